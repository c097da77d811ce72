import type { INodeProperties } from 'n8n-workflow';

// The editor fields of the guardrails (Options of the operations that start calls).

/** The cap when an AI Agent runs the node as a tool and the user set no Max Calls per Run. */
export const DEFAULT_AGENT_MAX_CALLS = 3;

/**
 * Numbers written without their country code, as a CRM of one country keeps them, get this country's
 * code when read (defaultCountry.ts).
 */
export const defaultCountryOption: INodeProperties = {
	displayName: 'Default Country',
	name: 'defaultCountry',
	type: 'string',
	default: '',
	noDataExpression: true,
	placeholder: 'e.g. US',
	description:
		'The country of numbers written without their country code, as a two-letter code (US, GB, DE …). Such a number is called with that country\'s code: (212) 555-0147 with US as +1 212 555 0147, 020 7946 0958 with GB as +44 20 7946 0958. A number written with + or 00 keeps its own code. Empty: numbers must be written country code first.',
};

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

/**
 * As an AI Agent tool, one number per call unless this allows more: a model could otherwise put
 * 40 numbers into one call's phone field. Read from the saved parameters, never from an expression.
 */
export const agentSeveralNumbersOption: INodeProperties = {
	displayName: 'AI Agent May Give Several Numbers per Call',
	name: 'agentSeveralNumbers',
	type: 'boolean',
	default: false,
	noDataExpression: true,
	description:
		'Whether an AI Agent using this node as a tool may give more than one number for one person (each number still counts against Max Calls per Run). Off: a tool call with several numbers is refused.',
};

/**
 * Starting a task (Start the Task Too, Call Task → Start) phones everyone already in it, which no
 * cap can count: refused for an AI Agent tool unless this allows it. Read from the saved
 * parameters, never from an expression.
 */
export const agentMayStartTaskOption: INodeProperties = {
	displayName: 'AI Agent May Start the Task',
	name: 'agentMayStartTask',
	type: 'boolean',
	default: false,
	noDataExpression: true,
	description:
		'Whether an AI Agent using this node as a tool may start a call task, which phones everyone already in it: Max Calls per Run cannot count those calls. Off: such a tool call is refused and nothing is sent.',
};

/** On Call Task → Start, shown only on the AI-tool variant of the node (n8n's `@tool` display rule). */
export const agentStartNotice: INodeProperties = {
	displayName:
		'Starting a task phones everyone already in it, at real cost. An AI Agent may do it only when "AI Agent May Start the Task" is on in Options.',
	name: 'agentStartNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: { '@tool': [true] } },
};

/** Shown only on the AI-tool variant of the node (n8n's `@tool` display rule). */
export const agentToolNotice: INodeProperties = {
	displayName: `As an AI Agent tool this phones real people at real cost: at most ${DEFAULT_AGENT_MAX_CALLS} numbers per agent run, counted over all CIS Auto-Call tools of the agent together, unless you set "Max Calls per Run" in Options; one number per call, no task started. Set "Allowed Numbers" to say who may be called.`,
	name: 'agentToolNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: { '@tool': [true] } },
};
