import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookFunctions,
} from 'n8n-workflow';

/**
 * The reads of n8n-core internals in the action node, all here. Checked against n8n 1.123.81 and
 * 2.41.1 (the e2e suite's versions: test/e2e/run.js); look here first when a newer n8n no longer
 * resumes a wait, or an AI Agent's waiting tool misbehaves.
 *
 * A webhook() has no getContext(), so the waiting node's resume reads its saved node context
 * (`getContext('node')` of the run that started the wait) from the execution data that n8n-core's
 * WebhookContext was created with: `runExecutionData.executionData.contextData['node:<name>']`.
 */
interface WithExecutionData {
	runExecutionData?: {
		executionData?: { contextData?: Record<string, IDataObject | undefined> };
	} | null;
}

export function savedNodeContextOf(context: IWebhookFunctions): IDataObject | undefined {
	const contextData = (context as unknown as WithExecutionData).runExecutionData?.executionData
		?.contextData;
	return contextData?.[`node:${context.getNode().name}`];
}

// For an AI Agent's waiting tool (start.ts hands these to actions/agent/): the execution its tool run is part of.

interface StackEntry {
	node?: { name?: string };
	data?: { main?: Array<INodeExecutionData[] | null> };
}

interface ExecutionInternals {
	runExecutionData?: {
		executionData?: { nodeExecutionStack?: StackEntry[] };
		resultData?: { runData?: Record<string, unknown> };
	};
	workflow?: {
		settings?: IDataObject;
		nodes?: Record<string, { type?: string } | undefined>;
		connectionsBySourceNode?: Record<
			string,
			Record<string, Array<Array<{ node?: string } | null> | null> | undefined> | undefined
		>;
	};
}

function internalsOf(context: IExecuteFunctions): ExecutionInternals {
	return context as unknown as ExecutionInternals;
}

/** The workflow's settings: getWorkflowSettings() (n8n 1.123 and 2.x), else those of the workflow the context runs. */
function workflowSettingsOf(context: IExecuteFunctions): IDataObject {
	const read = (context as unknown as { getWorkflowSettings?: () => IDataObject })
		.getWorkflowSettings;
	if (typeof read === 'function') return read.call(context) ?? {};
	return internalsOf(context).workflow?.settings ?? {};
}

/** Whether the workflow runs in the legacy execution order (anything but v1). */
export function runsInLegacyOrder(context: IExecuteFunctions): boolean {
	return workflowSettingsOf(context).executionOrder !== 'v1';
}

/** Whether a Chat Trigger of the workflow ran in this execution (it started it). */
export function chatTriggerRan(context: IExecuteFunctions): boolean {
	const internals = internalsOf(context);
	const ran = internals.runExecutionData?.resultData?.runData ?? {};
	return Object.entries(internals.workflow?.nodes ?? {}).some(
		([name, node]) => node?.type === '@n8n/n8n-nodes-langchain.chatTrigger' && name in ran,
	);
}

const MCP_SERVER_TRIGGER = '@n8n/n8n-nodes-langchain.mcpTrigger';

/**
 * Whether this tool node is a tool of an MCP Server Trigger (its Tool output is connected to one):
 * the trigger runs a tool inside the MCP client's request, where nothing can wait.
 */
export function servedByMcpTrigger(context: IExecuteFunctions): boolean {
	const workflow = internalsOf(context).workflow;
	const nodes = workflow?.nodes ?? {};
	const isMcpTrigger = (name: string | undefined) =>
		name !== undefined && nodes[name]?.type === MCP_SERVER_TRIGGER;
	const outputs = workflow?.connectionsBySourceNode?.[context.getNode().name]?.ai_tool ?? [];
	return outputs.some((targets) => (targets ?? []).some((target) => isMcpTrigger(target?.node)));
}

/**
 * The input items of the other runs of this node that n8n queued for the agent's current turn
 * (parallel tool calls): the execution stack's entries of the same node. n8n saves these very
 * objects with a waiting execution.
 */
export function queuedRunsOfThisNode(context: IExecuteFunctions): INodeExecutionData[][] {
	const stack = internalsOf(context).runExecutionData?.executionData?.nodeExecutionStack ?? [];
	const name = context.getNode().name;
	return stack
		.filter((entry) => entry.node?.name === name)
		.map((entry) => entry.data?.main?.[0] ?? []);
}
