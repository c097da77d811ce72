import type { IExecuteFunctions } from 'n8n-workflow';

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
