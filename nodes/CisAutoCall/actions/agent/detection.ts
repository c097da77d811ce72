import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

/**
 * How n8n runs the node, decided here alone: `none` (not for an AI Agent); `tool`, an AI Agent's
 * tool in a node run of its own (the AI Agent node v3, the default in n8n 1.123 and 2.41: the node
 * runs as its tool variant, whose type name ends in "Tool", n8n's own test for a tool, `@tool` in
 * displayOptions); `toolInsideAgentRun`, a tool the agent runs inside its own run
 * (`isToolExecution()`: n8n 2.x through its LangChain wrapper), where a tool cannot pause to wait.
 * A resume (webhook()) knows only the type name, which is all it needs.
 */
export type AgentMode = 'none' | 'tool' | 'toolInsideAgentRun';

export function agentModeOf(context: IExecuteFunctions | IWebhookFunctions): AgentMode {
	const toolExecution = (context as { isToolExecution?: () => boolean }).isToolExecution;
	if (typeof toolExecution === 'function' && toolExecution.call(context) === true)
		return 'toolInsideAgentRun';
	return context.getNode().type.endsWith('Tool') ? 'tool' : 'none';
}
