import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { NotSentError } from '../itemErrors';

/**
 * "… and Wait for Result" as an AI Agent's tool. The AI Agent v3 (n8n 1.123 and 2.41) asks n8n to
 * run the tool node as an ordinary node run; that run waits like any waiting node, and on resume
 * n8n hands the agent what the node's webhook() returned. In two cases n8n hands the model the tool
 * run's input items instead (the model's arguments): when the wait's time limit passes, and for a
 * second call of the same tool in the same turn, which n8n skips once the first one resumes. So,
 * before waiting, the node writes into those input items what the model should read then.
 */

/** What the model reads when the wait ended with the call's result: one small object. */
export function agentWaitResult(json: IDataObject): IDataObject {
	return {
		outcome: json.outcome ?? null,
		status: json.status ?? null,
		callId: json.callId ?? null,
		result: json.result ?? {},
	};
}

/** "10 minutes", "1 hour". */
export function limitInWords(amount: number, unit: string): string {
	return `${amount} ${amount === 1 ? unit.replace(/s$/, '') : unit}`;
}

/** Replaces an item's JSON in place: n8n saves these very objects with the waiting execution. */
function overwrite(item: INodeExecutionData | undefined, json: IDataObject): void {
	if (!item?.json) return;
	for (const key of Object.keys(item.json)) delete item.json[key];
	Object.assign(item.json, json);
}

/**
 * Before the execution waits: what the model reads if no result comes within the time limit, and,
 * for the other calls of this tool that n8n queued in the same turn (`queuedRuns`: their input
 * items; n8n will not run them), a refusal in words the model acts on.
 */
export function prepareAgentWait(
	context: IExecuteFunctions,
	limit: string,
	queuedRuns: INodeExecutionData[][],
): void {
	for (const item of context.getInputData()) {
		overwrite(item, {
			outcome: 'noResult',
			message: `No result within ${limit}: the person was called, but the call's result did not arrive in time. Do not call again; tell the user the result will reach the CIS Auto-Call Trigger's workflow.`,
		});
	}
	for (const items of queuedRuns) {
		for (const item of items) {
			overwrite(item, {
				outcome: 'refused',
				message:
					'Refused: this tool calls one person at a time and was already calling someone in this turn, so nobody was called for this request. Call one person at a time: call this person again after you have read the result of the other call.',
			});
		}
	}
}

/** What the wait's start knows of the execution, from n8n (waiting/n8nInternals.ts) and from how the agent runs the tool (detection.ts). */
export interface AgentWaitSetting {
	legacyOrder: boolean;
	startedByChat: boolean;
	/** The agent runs its tools inside its own run (older AI Agent versions). */
	insideAgentRun: boolean;
	/** The tool is served by an MCP Server Trigger (an MCP client such as Claude Desktop calls it). */
	servedOverMcp: boolean;
}

/**
 * Refuses a waiting tool run before anything is sent where the agent could not read the result:
 * an MCP Server Trigger (it answers the MCP client within its request, so nothing can wait there),
 * the legacy execution order (the agent goes on before its tools have run), a Chat Trigger started
 * the execution (n8n answers the chat with an error as soon as the workflow waits; the model reads
 * the refusal and tells the chat user), or the agent runs its tools inside its own run (older AI
 * Agent versions, detection.ts), where a tool cannot pause.
 */
export function refuseAgentWait(context: IExecuteFunctions, setting: AgentWaitSetting): void {
	if (setting.servedOverMcp) {
		throw new NotSentError(
			context.getNode(),
			'Not sent: an MCP Server Trigger answers each tool call at once, so this tool cannot wait there for the result of a call, and nobody was called. Whoever built this workflow can give the MCP Server Trigger "Create and Run" as its tool to place the call, and a Data Table tool to look the result up in the table the CIS Auto-Call Trigger\'s workflow fills',
		);
	}
	if (setting.legacyOrder) {
		throw new NotSentError(
			context.getNode(),
			'Not sent: this tool waits for the result of a call, which n8n hands to the AI Agent only in execution order v1, so nobody was called. Whoever built this workflow can open its Settings and set Execution Order to "v1 (recommended)"',
		);
	}
	if (setting.startedByChat) {
		throw new NotSentError(
			context.getNode(),
			'Not sent: in a chat this tool cannot wait for the result of a call (n8n would answer the chat with an error while the workflow waits), so nobody was called. Whoever built this workflow can use "Create and Run" as the chat\'s tool',
		);
	}
	if (setting.insideAgentRun || typeof context.putExecutionToWait !== 'function') {
		throw new NotSentError(
			context.getNode(),
			'Not sent: this AI Agent cannot wait for a tool, so nobody was called. Whoever built this workflow can use the AI Agent node version 3 or newer, or "Create and Run" as the tool',
		);
	}
}
