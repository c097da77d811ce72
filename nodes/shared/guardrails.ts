import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { describeValue, InputError, requireInteger } from './validation';

/**
 * Guardrails for the operations that start calls: which numbers may be called, and how many calls
 * one workflow execution may start. They matter most when an AI Agent drives the node as a tool,
 * where a model chooses the numbers.
 */

/** The cap when an AI Agent runs the node as a tool and the user set no Max Calls per Run. */
export const DEFAULT_AGENT_MAX_CALLS = 3;

export const allowedNumbersOption: INodeProperties = {
	displayName: 'Allowed Numbers',
	name: 'allowedNumbers',
	type: 'string',
	default: '',
	noDataExpression: true,
	placeholder: 'e.g. 7900, +7 (495)',
	description:
		'Only numbers that begin with one of these may be called; separate them with commas. Spaces, brackets, dashes and + are ignored, X stands for any one digit, and a rule ending in X also fixes the length (+7 (495) XXX-XX-XX). A candidate with a number outside them is refused before anything is sent. Empty: any number.',
};

export const maxCallsPerRunOption: INodeProperties = {
	displayName: 'Max Calls per Run',
	name: 'maxCallsPerRun',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: DEFAULT_AGENT_MAX_CALLS,
	noDataExpression: true,
	description: `The most candidates (people to call) this node may create in one execution of the workflow, over all its runs (every agent tool call, every loop pass). A run that would go beyond it is refused and nothing of it is sent. Not set: no limit, except when an AI Agent uses the node as a tool: then ${DEFAULT_AGENT_MAX_CALLS}.`,
};

/** Shown only on the AI-tool variant of the node (n8n's `@tool` display rule). */
export const agentToolNotice: INodeProperties = {
	displayName: `As an AI Agent tool this phones real people at real cost. Unless you set "Max Calls per Run" in Options, at most ${DEFAULT_AGENT_MAX_CALLS} calls are started per workflow execution; set "Allowed Numbers" to say who may be called.`,
	name: 'agentToolNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: { '@tool': [true] } },
};

/** One rule of Allowed Numbers: digits, and X for any one digit. */
export interface NumberRule {
	/** As the user wrote it, for messages. */
	text: string;
	pattern: string;
	/** A rule that ends in X describes whole numbers of its length; otherwise it is a prefix. */
	wholeNumber: boolean;
}

export interface Guardrails {
	allowedNumbers: NumberRule[];
	/** Undefined: no limit. */
	maxCalls?: number;
	/** Whether maxCalls is the agent default rather than the user's setting. */
	maxCallsIsDefault: boolean;
}

export function readGuardrails(options: IDataObject, asAgentTool: boolean): Guardrails {
	const allowedNumbers = parseAllowedNumbers(options.allowedNumbers);
	const setting = options.maxCallsPerRun;
	if (setting === undefined || setting === null || setting === '') {
		return asAgentTool
			? { allowedNumbers, maxCalls: DEFAULT_AGENT_MAX_CALLS, maxCallsIsDefault: true }
			: { allowedNumbers, maxCallsIsDefault: false };
	}
	return { allowedNumbers, maxCalls: requireInteger('maxCallsPerRun', setting, { min: 1 }), maxCallsIsDefault: false };
}

export function parseAllowedNumbers(value: unknown): NumberRule[] {
	if (value === undefined || value === null) return [];
	if (typeof value !== 'string') {
		throw new InputError('allowedNumbers', value, 'is not a text; enter number prefixes separated by commas, e.g. 7900, +7 (495)');
	}
	return value
		.split(/[,;\n]+/)
		.map((part) => part.trim())
		.filter((part) => part !== '')
		.map((text) => {
			if (!/^\+?[0-9Xx()\-. ]+$/.test(text)) {
				throw new InputError(
					'allowedNumbers',
					text,
					'is not a number prefix or pattern; use digits, and X for any one digit, e.g. 7900 or +7 (495) XXX-XX-XX',
				);
			}
			const pattern = text.replace(/[^0-9Xx]/g, '').toUpperCase();
			if (!/^[0-9]/.test(pattern)) {
				throw new InputError('allowedNumbers', text, 'does not begin with a digit, so it would allow any number');
			}
			return { text, pattern, wholeNumber: pattern.endsWith('X') };
		});
}

export function matchesRule(digits: string, rule: NumberRule): boolean {
	if (digits.length < rule.pattern.length) return false;
	if (rule.wholeNumber && digits.length !== rule.pattern.length) return false;
	for (let index = 0; index < rule.pattern.length; index++) {
		const expected = rule.pattern[index];
		if (expected !== 'X' && expected !== digits[index]) return false;
	}
	return true;
}

/** The first number (digits, as toPhones gives them) that no rule allows; none when there are no rules. */
export function firstDisallowed(phones: string[], rules: NumberRule[]): string | undefined {
	if (rules.length === 0) return undefined;
	return phones.find((digits) => !rules.some((rule) => matchesRule(digits, rule)));
}

/**
 * A guardrail said no: the input is valid, but the user's settings do not allow it. Handled like
 * bad input (the router adds the item; nothing is sent), worded as a refusal.
 */
export class Refusal extends InputError {
	constructor(field: string, value: unknown, reason: string) {
		super(field, value, reason);
		this.name = 'Refusal';
		this.message = `Refused: ${reason}`;
	}
}

/** Refuses a candidate with a number outside Allowed Numbers. */
export function checkAllowedNumbers(phones: string[], rules: NumberRule[]): void {
	const number = firstDisallowed(phones, rules);
	if (number === undefined) return;
	const allowed = rules.map((rule) => describeValue(rule.text)).join(', ');
	throw new Refusal('phone', number, `the number ${number} is not in Allowed Numbers (${allowed}), so it was not called`);
}

/**
 * Whether n8n runs the node as an AI Agent tool. `isToolExecution()` says so where the runtime has
 * it and knows (n8n 2.x, when the tool is called through its LangChain wrapper). The AI Agent
 * node v3 (the default in n8n 1.123 and 2.41) runs tools as ordinary nodes, where that function
 * answers false or is missing; the node then still runs as its tool variant, whose type name ends
 * in "Tool", which is n8n's own test for a tool (`@tool` in displayOptions).
 */
export function runsAsAgentTool(context: IExecuteFunctions): boolean {
	const toolExecution = (context as { isToolExecution?: () => boolean }).isToolExecution;
	if (typeof toolExecution === 'function' && toolExecution.call(context) === true) return true;
	return context.getNode().type.endsWith('Tool');
}

const MAX_EXECUTIONS = 1000;

/**
 * Calls started per workflow execution and node, so that Max Calls per Run holds over every run of
 * the node in one execution: an agent calls its tool once per run, a loop runs the node once per
 * pass. An execution runs in one process (in queue mode, on one worker), so process memory holds
 * it; the oldest executions are dropped beyond MAX_EXECUTIONS.
 */
export class CallLedger {
	private readonly started = new Map<string, number>();

	constructor(private readonly maxExecutions = MAX_EXECUTIONS) {}

	used(key: string | undefined): number {
		return key === undefined ? 0 : (this.started.get(key) ?? 0);
	}

	/** Books `count` calls if they fit under `max` (all or none); returns whether they were booked. */
	book(key: string | undefined, count: number, max: number | undefined): boolean {
		const used = this.used(key);
		if (max !== undefined && used + count > max) return false;
		if (key !== undefined && count > 0) {
			this.started.delete(key);
			this.started.set(key, used + count);
			while (this.started.size > this.maxExecutions) this.started.delete(this.started.keys().next().value as string);
		}
		return true;
	}

	/** Gives back calls that were booked but proved not to have started (the service refused them). */
	release(key: string | undefined, count: number): void {
		if (key === undefined || count <= 0) return;
		const left = Math.max(0, this.used(key) - count);
		if (left === 0) this.started.delete(key);
		else this.started.set(key, left);
	}
}

export const callLedger = new CallLedger();

/** Workflow, execution and node; undefined when n8n gives no execution id (then each run counts alone). */
export function ledgerKeyOf(context: IExecuteFunctions): string | undefined {
	const executionId = context.getExecutionId();
	if (!executionId) return undefined;
	return JSON.stringify([context.getWorkflow().id ?? '', executionId, context.getNode().name]);
}

/** Refuses the calls of a run that would go beyond Max Calls per Run. */
export function capRefusal(guardrails: Guardrails, used: number, count: number): Refusal {
	const max = guardrails.maxCalls as number;
	const setting = guardrails.maxCallsIsDefault
		? 'the limit for an AI Agent tool when "Max Calls per Run" is not set'
		: '"Max Calls per Run"';
	const calls = count === 1 ? 'this call' : `these ${count} calls`;
	return new Refusal(
		'maxCallsPerRun',
		max,
		`${calls} would go beyond ${max} ${max === 1 ? 'call' : 'calls'} per workflow execution (${setting}); ${used} already started, so nothing was sent`,
	);
}

// ---------------------------------------------------------------------------------------------
// What an AI Agent reads back
// ---------------------------------------------------------------------------------------------

/**
 * How an item ended, for the model: `refused` (nothing was sent: bad input, or a guardrail said
 * no), `failed` (the service said no or was not reached; nothing was created), `unknown` (sent,
 * and it may have been carried out).
 */
export type AgentFailureKind = 'refused' | 'failed' | 'unknown';

const ADVICE = {
	guardrail: 'This is a limit the user set: do not try to get around it (no other numbers, no repeats); tell the user.',
	input: 'Correct the value it names, using only what the user gave you (never invent a phone number), and try again.',
	failed: 'Correct what the message names and try once more, or tell the user.',
	unknown: 'Do not repeat it: it may have been carried out (a call may have started). Tell the user to check it in the service.',
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
	if (kind === 'refused') {
		// This package's own texts: a Refusal starts with "Refused: ", bad input with "Invalid ".
		if (text.startsWith('Refused: ')) message = `${text}. ${ADVICE.guardrail}`;
		else if (text.startsWith('Not sent')) message = `${text}. Tell the user.`;
		else message = `Not sent: ${text}. ${ADVICE.input}`;
	} else if (kind === 'unknown') {
		message = `${text.startsWith('Outcome unknown') ? text : `Outcome unknown: ${text}`}. ${ADVICE.unknown}`;
	} else {
		const description = (error as { description?: unknown }).description;
		const detail = typeof description === 'string' && description.trim() !== '' ? ` ${plainText(description)}.` : '';
		message = `Failed: ${text}.${detail} ${ADVICE.failed}`;
	}
	return { outcome: kind, message };
}

/** Keys that hold the service's raw answer next to the ids read from it. */
const RAW_ANSWER_KEYS = ['response', 'unmappedResponse'];
const ID_KEYS = ['autoCallId', 'autoCallCandidateId', 'callId'];

/** A success as the agent needs it: the ids for a follow-up, not the raw answer (kept when no id was read). */
export function agentSuccess(json: IDataObject): IDataObject {
	const hasId = ID_KEYS.some((key) => typeof json[key] === 'string' && json[key] !== '');
	const result: IDataObject = { outcome: 'done' };
	for (const [key, value] of Object.entries(json)) {
		if (hasId && RAW_ANSWER_KEYS.includes(key)) continue;
		result[key] = value;
	}
	return result;
}
