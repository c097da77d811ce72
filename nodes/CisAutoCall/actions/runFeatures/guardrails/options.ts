import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_AGENT_MAX_CALLS } from '../../agent';

// The editor fields of the guardrails (Options of the operations that start calls); the AI Agent's
// own options and notices are the agent's (agent/options.ts).

export const allowedNumbersOption: INodeProperties = {
	displayName: 'Allowed Numbers',
	name: 'allowedNumbers',
	type: 'string',
	default: '',
	noDataExpression: true,
	placeholder: 'e.g. 7900, +7 (495)',
	description:
		'Only numbers that begin with one of these, separated by commas, may be called; empty = any number',
	hint: 'Spaces, brackets, dashes and + are ignored, X stands for any one digit, and a rule ending in X also fixes the length (+7 (495) XXX-XX-XX). A candidate with a number outside them is refused before anything is sent.',
};

export const maxCallsPerRunOption: INodeProperties = {
	displayName: 'Max Calls per Run',
	name: 'maxCallsPerRun',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: DEFAULT_AGENT_MAX_CALLS,
	noDataExpression: true,
	description:
		'The most phone numbers this node may call in one execution of the workflow, over all its runs (loop passes)',
	hint: `Each number of a candidate counts. A run that would go beyond it is refused and nothing of it is sent. Not set: no limit, except for an AI Agent tool: then ${DEFAULT_AGENT_MAX_CALLS}. As an AI Agent tool the count covers the whole agent run: every tool call, and all CIS Auto-Call tools of the agent together (a tool inside a sub-workflow starts a count of its own).`,
};

/**
 * Numbers shorter than a person's phone are refused unless this allows them; emergency numbers
 * are refused whatever it says. Read from the saved parameters, never from an expression.
 */
export const allowShortNumbersOption: INodeProperties = {
	displayName: 'Allow Short Numbers',
	name: 'allowShortNumbers',
	type: 'boolean',
	default: false,
	noDataExpression: true,
	description: 'Whether numbers with fewer than 7 digits (internal lines) may be called',
	hint: 'Off: they are refused before anything is sent. Emergency numbers (112, 911, 999 …) are always refused.',
};

/** Upper bounds of the limits across runs: a full day's claim asks the record about up to twice its slots (limits.ts). */
export const MAX_CALLS_PER_DAY = 1000;
export const MAX_CALL_AGAIN_HOURS = 24 * 30;

/** Counted over all runs of this node, in n8n's database; read from the saved workflow only (limits.ts). */
export const maxCallsPerDayOption: INodeProperties = {
	displayName: 'Max Calls per Day',
	name: 'maxCallsPerDay',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: MAX_CALLS_PER_DAY },
	default: 0,
	noDataExpression: true,
	description:
		'The most numbers this node may call in any 24 hours, over all its executions, chat messages and MCP calls',
	hint: "0: no limit. Counted in n8n's database, so every execution and queue-mode worker shares the count; a call over it is refused and not sent.",
};

export const callAgainAfterHoursOption: INodeProperties = {
	displayName: 'Call a Number Again After (Hours)',
	name: 'callAgainAfterHours',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: MAX_CALL_AGAIN_HOURS },
	default: 0,
	noDataExpression: true,
	description:
		'A number this node called within this many hours is refused, naming when it may be called again',
	hint: "0: no limit. Counted in n8n's database over all executions of this node, so a number is not called again by another run or worker.",
};
