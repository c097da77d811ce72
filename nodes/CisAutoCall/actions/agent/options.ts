import type { INodeProperties } from 'n8n-workflow';

// The editor fields of AI-agent mode: the options that allow an AI Agent more (the guardrails
// feature shows them next to its own) and the notices on the node's tool variant.

/** The cap when an AI Agent runs the node as a tool and the user set no Max Calls per Run. */
export const DEFAULT_AGENT_MAX_CALLS = 3;

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
		'Whether an AI Agent using this node as a tool may give more than one number for one person',
	hint: 'Each number still counts against Max Calls per Run. Off: a tool call with several numbers is refused.',
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
		'Whether an AI Agent using this node as a tool may start a call task, which phones everyone already in it',
	hint: 'Max Calls per Run cannot count those calls. Off: such a tool call is refused and nothing is sent.',
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
