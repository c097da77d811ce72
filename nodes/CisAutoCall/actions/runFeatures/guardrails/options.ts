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
		'Only numbers that begin with one of these may be called; separate them with commas. Spaces, brackets, dashes and + are ignored, X stands for any one digit, and a rule ending in X also fixes the length (+7 (495) XXX-XX-XX). A candidate with a number outside them is refused before anything is sent. Empty: any number.',
};

export const maxCallsPerRunOption: INodeProperties = {
	displayName: 'Max Calls per Run',
	name: 'maxCallsPerRun',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: DEFAULT_AGENT_MAX_CALLS,
	noDataExpression: true,
	description: `The most phone numbers this node may call in one execution of the workflow, over all its runs (every loop pass); each number of a candidate counts. As an AI Agent tool the count covers the whole agent run: every tool call, and all CIS Auto-Call tools of the agent together (a tool inside a sub-workflow starts a count of its own). A run that would go beyond it is refused and nothing of it is sent. Not set: no limit, except for an AI Agent tool: then ${DEFAULT_AGENT_MAX_CALLS}.`,
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
	description:
		'Whether numbers with fewer than 7 digits (internal lines) may be called. Off: they are refused before anything is sent. Emergency numbers (112, 911, 999 …) are always refused.',
};
