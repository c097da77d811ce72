import type { INodeProperties } from 'n8n-workflow';

// The editor fields of the guardrails (Options of the operations that start calls).

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
