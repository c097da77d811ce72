import type { IDataObject, INodeExecutionData, NodeExecutionHint } from 'n8n-workflow';

import { mayHaveCreated, NotSentError } from '../itemErrors';
import { statedOutcomeOf } from '../../../shared/transport';

// What an AI Agent reads back.

/**
 * How an item ended, for the model: `refused` (nothing was sent: bad input, or a guardrail said
 * no), `failed` (the service said no or was not reached; nothing was created), `unknown` (sent,
 * and it may have been carried out).
 */
export type AgentFailureKind = 'refused' | 'failed' | 'unknown';

const ADVICE = {
	guardrail:
		'This is a limit set for these calls: do not try to get around it (no other numbers, no repeats); tell the user.',
	badNumber:
		'Ask the user for the right number of this person, then call with it; never guess or change a number yourself.',
	input:
		'Correct the value it names, using only what the user gave you (never invent a phone number), and try again.',
	failed: 'Correct what the message names and try once more, or tell the user.',
	unknown:
		'Do not repeat it: it may have been carried out (a call may have started). Tell the user to check it in the service.',
};

const MAX_TEXT = 600;

/** Short plain text: one message, no item suffix, no stack, bounded length. */
function plainText(text: string): string {
	const oneLine = text
		.replace(/\s*\[item \d+\]/g, '')
		.replace(/\s+/g, ' ')
		.trim()
		.replace(/[.\s]+$/, '');
	return oneLine.length > MAX_TEXT ? `${oneLine.slice(0, MAX_TEXT - 3)}...` : oneLine;
}

export function agentFailure(kind: AgentFailureKind, error: Error): IDataObject {
	const text = plainText(error.message);
	let message: string;
	const why = error instanceof NotSentError ? error.why : 'input';
	const refusal = error instanceof NotSentError ? error.refusal : undefined;
	if (kind === 'refused' && refusal) {
		// The person in the chat hears the reason and what to do; the builder's fix goes to the notice.
		const advice = refusal.forModel ?? (why === 'badNumber' ? ADVICE.badNumber : ADVICE.guardrail);
		return { outcome: kind, message: `Refused: ${plainText(refusal.reason)}. ${advice}` };
	}
	if (kind === 'refused') {
		if (why === 'refused') message = `${text}. ${ADVICE.guardrail}`;
		else if (why === 'badNumber') message = `${text}. ${ADVICE.badNumber}`;
		else if (why === 'notSent') message = `${text}. Tell the user.`;
		else message = `Not sent: ${text}. ${ADVICE.input}`;
	} else if (kind === 'unknown') {
		message = `${statedOutcomeOf(error) === 'unknown' ? text : `Outcome unknown: ${text}`}. ${ADVICE.unknown}`;
	} else {
		const description = (error as { description?: unknown }).description;
		const detail =
			typeof description === 'string' && description.trim() !== ''
				? ` ${plainText(description)}.`
				: '';
		message = `Failed: ${text}.${detail} ${ADVICE.failed}`;
	}
	return { outcome: kind, message };
}

/**
 * How a failed item ended, for the model: not sent by the node itself, maybe carried out (only an
 * operation that creates can have created something), or failed.
 */
export function failureKindOf(error: Error, creates: boolean): AgentFailureKind {
	if (error instanceof NotSentError) return 'refused';
	return creates && mayHaveCreated(error) ? 'unknown' : 'failed';
}

/**
 * The output field of an item whose candidate was sent but whose id could not be told from the
 * service's answer (a batch answer that cannot be matched to the items): the item then has no
 * `autoCallCandidateId` at all, so that no id of another person can reach a follow-up (e.g.
 * Depersonalize), and an AI Agent reads outcome `unknown` for it.
 */
export const CANDIDATE_ID_UNKNOWN = 'candidateIdUnknown';

/** Keys that hold the service's raw answer next to the ids read from it. */
const RAW_ANSWER_KEYS = ['response', 'unmappedResponse'];
const ID_KEYS = ['autoCallId', 'autoCallCandidateId', 'callId'];

/** A success as the agent needs it: the ids for a follow-up, not the raw answer (kept when no id was read). */
export function agentSuccess(json: IDataObject): IDataObject {
	const idUnknown = json[CANDIDATE_ID_UNKNOWN];
	if (typeof idUnknown === 'string') {
		const { autoCallId, phone } = json;
		return {
			outcome: 'unknown',
			message: `Sent, but its candidate id is unknown: ${plainText(idUnknown)}. ${ADVICE.unknown}`,
			...(autoCallId !== undefined ? { autoCallId } : {}),
			...(phone !== undefined ? { phone } : {}),
		};
	}
	const hasId = ID_KEYS.some((key) => typeof json[key] === 'string' && json[key] !== '');
	const result: IDataObject = { outcome: 'done' };
	for (const [key, value] of Object.entries(json)) {
		if (hasId && RAW_ANSWER_KEYS.includes(key)) continue;
		result[key] = value;
	}
	return result;
}

const NOT_DONE_OUTCOMES = ['refused', 'failed', 'unknown'];

/**
 * As a tool the node never fails, so a run that sent nothing would look like a plain success in the
 * agent's log: this notice above the tool's output says what the model was told instead.
 */
export function agentNotDoneHint(output: INodeExecutionData[]): NodeExecutionHint | undefined {
	const notDone = output.filter((item) => NOT_DONE_OUTCOMES.includes(String(item.json.outcome)));
	if (notDone.length === 0) return undefined;
	const first = String(notDone[0].json.message ?? notDone[0].json.outcome);
	const notSent = notDone.every((item) => item.json.outcome === 'refused');
	return toolCallWarning(
		`${whatCameOf(notDone.length, output.length, notSent)}; the model was told: ${first}`,
	);
}

/** "This tool call sent nothing", "2 of 3 items of this tool call did not succeed". */
function whatCameOf(notDone: number, items: number, notSent: boolean): string {
	const which = items === 1 ? 'This tool call' : `${notDone} of ${items} items of this tool call`;
	return `${which} ${notSent ? 'sent nothing' : 'did not succeed'}`;
}

/** A notice above the tool's output. */
function toolCallWarning(message: string): NodeExecutionHint {
	return { type: 'warning', location: 'outputPane', message };
}

/**
 * The builder's side of a refusal the model was told about, for the notice above the tool's output
 * (never in the items, which the model reads): the same reason, and the fix only the builder can
 * make. Undefined when no refusal of the run has such a fix (agentNotDoneHint then says what the
 * model was told). `errors`: the errors of the items that were not done, of `itemCount` items.
 */
export function agentBuilderNotice(
	errors: Error[],
	itemCount: number,
): NodeExecutionHint | undefined {
	const first = errors.find((error) => error instanceof NotSentError && error.refusal?.builderFix);
	const refusal = first instanceof NotSentError ? first.refusal : undefined;
	if (!refusal?.builderFix) return undefined;
	const notSent = errors.every((error) => error instanceof NotSentError);
	const fix = refusal.builderFix;
	return toolCallWarning(
		`${whatCameOf(errors.length, itemCount, notSent)}: ${plainText(refusal.reason)}. ${fix[0].toUpperCase()}${fix.slice(1)}.`,
	);
}
