import type {
	IDataObject,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { isPlainObject } from '../../../shared/validation';
import {
	type CandidateResult,
	RESUME_BODY_FIELD,
	statusInWords,
	waitKeyMatches,
	withoutWaitMarker,
} from '../../../shared/waitForResult';
import { keptWait, type StoredWait } from './storedWait';
import { agentModeOf, agentWaitResult } from '../agent';

/**
 * The resume of a wait: the waiting node's webhook(), called by n8n for each request to its
 * waiting address (the trigger hands the results over there: CisAutoCallTrigger/handOver/).
 * Only a request with the wait's key, carrying a result for every candidate waited for, continues
 * the execution. Anything else leaves the execution waiting, unharmed.
 */

/** What a resume request leads to. */
type Resume =
	/** Not this wait's key, or the execution keeps no wait: answered 401. */
	| { kind: 'notThisWait' }
	/** Results of some candidates are still missing: answered 202, the execution goes on waiting. */
	| { kind: 'waitingForOthers'; missing: number }
	/** Every candidate has its result: the execution goes on with one item per input item. */
	| { kind: 'complete'; output: INodeExecutionData[] };

function textOrNull(value: unknown): string | null {
	return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
}

function objectOrNull(value: unknown): IDataObject | null {
	return isPlainObject(value) ? value : null;
}

/** One output item of a candidate, from what the trigger handed over (only known fields). */
function resultItem(given: IDataObject, item: number): INodeExecutionData {
	const result: CandidateResult = {
		outcome: given.outcome === 'answered' ? 'answered' : 'notReached',
		callStatus: textOrNull(given.callStatus),
		callId: textOrNull(given.callId),
		taskId: textOrNull(given.taskId),
		result: objectOrNull(given.result),
		variables: objectOrNull(given.variables),
		callbackData: (objectOrNull(withoutWaitMarker(given.callbackData)) ?? {}) as IDataObject,
		endedAt: textOrNull(given.endedAt) ?? new Date().toISOString(),
		endedBy: textOrNull(given.endedBy) ?? '',
	};
	return { json: { status: statusInWords(result), ...result }, pairedItem: { item } };
}

/** One item per input item: the result of each candidate waited for, "Not called" for the others. */
function outputOf(stored: StoredWait, results: IDataObject): INodeExecutionData[] {
	const inputCount = Math.max(stored.total, stored.items[stored.items.length - 1] + 1);
	const output: INodeExecutionData[] = [];
	for (let item = 0; item < inputCount; item++) {
		const given = results[String(item)];
		const result =
			stored.items.includes(item) && isPlainObject(given)
				? resultItem(given, item)
				: {
						json: { status: 'Not called', outcome: 'notCalled' } as IDataObject,
						pairedItem: { item },
					};
		const skippedNumbers = stored.skippedNumbers[String(item)];
		output.push(
			skippedNumbers === undefined
				? result
				: { ...result, json: { ...result.json, skippedNumbers } },
		);
	}
	return output;
}

/** What a request body leads to, for the wait the execution keeps. */
function resumeOf(stored: StoredWait | undefined, body: unknown): Resume {
	const resume = isPlainObject(body) ? body[RESUME_BODY_FIELD] : undefined;
	if (!stored || !isPlainObject(resume) || !waitKeyMatches(resume.key, stored.hash))
		return { kind: 'notThisWait' };
	const results = isPlainObject(resume.results) ? resume.results : {};
	const missing = stored.items.filter((item) => !isPlainObject(results[String(item)]));
	if (missing.length > 0) return { kind: 'waitingForOthers', missing: missing.length };
	return { kind: 'complete', output: outputOf(stored, results) };
}

/** The waiting node's webhook(). */
export async function resumeWithResults(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const refuse = (status: number, answer: IDataObject): IWebhookResponseData => {
		context
			.getResponseObject()
			.status(status)
			.json({ resumed: false, ...answer });
		return { noWebhookResponse: true };
	};
	const resume = resumeOf(keptWait(context), context.getBodyData());
	switch (resume.kind) {
		case 'notThisWait':
			return refuse(401, { error: 'Not a resume of this wait' });
		case 'waitingForOthers':
			return refuse(202, { waitingFor: resume.missing });
		case 'complete':
			// An AI Agent's tool: the model reads one small object per item.
			return {
				workflowData: [
					agentModeOf(context) !== 'none'
						? resume.output.map((item) => ({ ...item, json: agentWaitResult(item.json) }))
						: resume.output,
				],
				webhookResponse: { resumed: true },
			};
	}
}
