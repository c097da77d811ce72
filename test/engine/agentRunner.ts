/**
 * `runAgentTool()`: the node as an AI Agent's tool, run the two ways n8n runs tools.
 */
import './engine-env';

import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	EngineRequest,
	EngineResponse,
	IConnections,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IRun,
	IRunData,
	IRunExecutionData,
	ITaskData,
	IWorkflowBase,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, NodeConnectionTypes, NodeHelpers, Workflow } from 'n8n-workflow';
import { HARNESS_WORKFLOW_ID, START_NODE_TYPE, setupEngine } from './setup';
import { HarnessNodeTypes, nodeTypeName, type AnyNodeType, type ErrorSink } from './nodeTypes';
import { CredentialStore } from './credentials';
import {
	buildAdditionalData,
	buildNode,
	buildStore,
	defaultBaseUrls,
	nodeNameFor,
} from './additionalData';

const AGENT_NODE_TYPE = 'n8n-nodes-harness.harnessAgent';

/**
 * n8n's tool variant of a `usableAsTool` node, built as n8n's CLI builds it (packages/cli
 * `NodeTypes.getByNameAndVersion` + `convertNodeToAiTool` in tool-generation.ts, 1.123 and 2.41):
 * the same node object (same `execute`), its description with name `<name>Tool`, no inputs, one
 * `ai_tool` output and the "Tool Description" parameters. The CLI code is not in n8n-core, so it
 * is rebuilt here.
 */
function toolVariantOf(type: INodeType): INodeType {
	const base = type.description;
	const description: INodeTypeDescription = {
		...base,
		name: `${base.name}Tool`,
		displayName: `${base.displayName} Tool`,
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
		properties: [...base.properties],
	};
	delete description.usableAsTool;
	const hasResourceOrOperation = base.properties.some(
		(p) => p.name === 'resource' || p.name === 'operation',
	);
	if (!base.properties.some((p) => p.name === 'toolDescription')) {
		const toolDescription: INodeProperties = {
			displayName: 'Description',
			name: 'toolDescription',
			type: 'string',
			default: base.description,
			required: true,
			typeOptions: { rows: 2 },
			...(hasResourceOrOperation
				? { displayOptions: { show: { descriptionType: ['manual'] } } }
				: {}),
		};
		description.properties.unshift(toolDescription);
		if (hasResourceOrOperation) {
			description.properties.unshift({
				displayName: 'Tool Description',
				name: 'descriptionType',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Set Automatically', value: 'auto' },
					{ name: 'Set Manually', value: 'manual' },
				],
				default: 'auto',
			});
		}
	}
	return Object.create(type, { description: { value: description } }) as INodeType;
}

/** What the harness agent is asked to do; it stands in for the model's decisions. */
interface AgentScript {
	toolCalls: IDataObject[];
	via: 'engineRequest' | 'supplyData';
}

interface ToolSeen {
	name: string;
	description: string;
	/** `$fromAI` keys the model is asked for, with their descriptions. */
	arguments: Array<{ key: string; description?: string }>;
}

/** What n8n's AI Agent v3 gives the model for one tool result (nodes-langchain buildSteps.ts `buildObservation`). */
function observationOf(task: ITaskData | undefined): string {
	const items = task?.data?.[NodeConnectionTypes.AiTool]?.[0]?.map((item) => item?.json);
	if (items && items.length > 0) return JSON.stringify(items);
	if (task?.error)
		return JSON.stringify({
			error: task.error.message ?? 'Unknown error',
			...(task.error.name ? { errorType: task.error.name } : {}),
		});
	return JSON.stringify('');
}

/**
 * Stands in for n8n's AI Agent node (the script stands in for the model): takes the connected tool the way the agent does
 * (`getInputConnectionData(ai_tool)`: n8n-core wraps the node in a LangChain tool whose schema
 * comes from the `$fromAI()` calls in its parameters), then makes the scripted tool calls, one
 * after another, either
 * - `engineRequest`, as the AI Agent v3 does (the default agent in n8n 1.123 and 2.41): it returns
 *   an EngineRequest per call; n8n-core's WorkflowExecute runs the tool node as an ordinary node
 *   with the call's arguments as its input item, then resumes the agent with the result; or
 * - `supplyData`, as the LangChain tool wrapper does (AI Agent v1/v2 and other callers):
 *   `tool.invoke(args)` runs the node inside n8n-core's SupplyDataContext, where n8n 2.x's
 *   `isToolExecution()` is true.
 * Its output item holds the observations (the text the model reads back) and the tool as the model
 * sees it.
 */
function harnessAgent(script: AgentScript): INodeType {
	async function execute(
		this: IExecuteFunctions,
		response?: EngineResponse<IDataObject>,
	): Promise<INodeExecutionData[][] | EngineRequest<IDataObject>> {
		const connected = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as
			ToolLike[] | ToolLike;
		const tools = Array.isArray(connected) ? connected : [connected];
		const tool = tools[0];
		// A call's `$tool` names the tool node it goes to (default: the first tool).
		const toolFor = (args: IDataObject) =>
			tools.find((each) => each.metadata?.sourceNodeName === args.$tool) ?? tool;
		const argumentsOf = ({ $tool, ...args }: IDataObject) => args;
		const seen: ToolSeen = {
			name: tool.name,
			description: tool.description,
			arguments: Object.entries(tool.schema?.shape ?? {}).map(([key, value]) => ({
				key,
				description: value?.description,
			})),
		};
		if (script.via === 'supplyData') {
			const observations: string[] = [];
			for (const args of script.toolCalls) {
				try {
					observations.push(String(await toolFor(args).invoke(argumentsOf(args))));
				} catch (error) {
					observations.push(`Error: ${(error as Error).message}`);
				}
			}
			return [[{ json: { observations, tool: seen } as unknown as IDataObject }]];
		}
		const observations = [...((response?.metadata?.observations as string[] | undefined) ?? [])];
		for (const result of response?.actionResponses ?? [])
			observations.push(observationOf(result.data));
		if (observations.length < script.toolCalls.length) {
			const index = observations.length;
			return {
				actions: [
					{
						actionType: 'ExecutionNodeAction',
						nodeName: String(toolFor(script.toolCalls[index]).metadata?.sourceNodeName),
						input: argumentsOf(script.toolCalls[index]),
						type: NodeConnectionTypes.AiTool,
						id: `call_${index}`,
						metadata: { itemIndex: 0 },
					},
				],
				metadata: { observations },
			};
		}
		return [[{ json: { observations, tool: seen } as unknown as IDataObject }]];
	}
	return {
		description: {
			displayName: 'Harness Agent',
			name: 'harnessAgent',
			group: ['transform'],
			version: 1,
			description: 'Calls its connected tool as an AI Agent would',
			defaults: { name: 'Harness Agent' },
			inputs: [
				NodeConnectionTypes.Main,
				{ type: NodeConnectionTypes.AiTool, displayName: 'Tools', required: true },
			],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		},
		execute: execute as INodeType['execute'],
	};
}

/** The parts of a LangChain tool the harness agent uses. */
interface ToolLike {
	name: string;
	description: string;
	schema?: { shape?: Record<string, { description?: string }> };
	metadata?: IDataObject;
	invoke(args: IDataObject): Promise<unknown>;
}

/** One run of the tool node, as the node saw it. */
export interface ToolInvocation {
	/** `isToolExecution()` as the node's context answered it (undefined: the function is missing). */
	isToolExecution?: boolean;
	/** The node type the node ran as (its tool variant: `<package>.<name>Tool`). */
	nodeType: string;
}

class AgentToolNodeTypes extends HarnessNodeTypes {
	private readonly agent: INodeType;

	private readonly toolTypeName: string;

	/** The tool variant as n8n runs it (its runs recorded in `invocations`). */
	readonly tool: INodeType;

	constructor(
		node: INodeType,
		script: AgentScript,
		sink: ErrorSink,
		invocations: ToolInvocation[],
	) {
		super([node], sink);
		this.agent = harnessAgent(script);
		const variant = toolVariantOf(node);
		this.toolTypeName = nodeTypeName(variant);
		const execute = variant.execute as (...args: unknown[]) => Promise<INodeExecutionData[][]>;
		this.tool = Object.create(variant, {
			execute: {
				value: async function (this: IExecuteFunctions, ...args: unknown[]) {
					const probe = (this as { isToolExecution?: () => boolean }).isToolExecution;
					invocations.push({
						isToolExecution: typeof probe === 'function' ? probe.call(this) : undefined,
						nodeType: this.getNode().type,
					});
					return await execute.apply(this, args);
				},
			},
		}) as INodeType;
	}

	getByName(nodeType: string): AnyNodeType {
		if (nodeType === AGENT_NODE_TYPE) return this.agent;
		if (nodeType === this.toolTypeName) return this.tool;
		return super.getByName(nodeType);
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		if (nodeType === AGENT_NODE_TYPE || nodeType === this.toolTypeName) {
			return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
		}
		return super.getByNameAndVersion(nodeType, version);
	}
}

let agentExecutions = 0;

export interface AgentToolOptions {
	/** Instance of the node class under test (a `usableAsTool` node). */
	node: INodeType;
	credentialTypes: ICredentialType[];
	/** The tool node's parameters, with `$fromAI()` where the model supplies a value. */
	parameters: INodeParameters;
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/**
	 * The arguments of each tool call the model makes, in order (keys = the `$fromAI()` keys); a
	 * `$tool` key names the tool node the call goes to (default: the first).
	 */
	toolCalls: IDataObject[];
	/** More tool nodes of the same node type connected to the agent (name and parameters). */
	moreTools?: Array<{ nodeName: string; parameters: INodeParameters }>;
	/** How n8n runs the tool (see HarnessAgent); default `engineRequest`, the AI Agent v3. */
	via?: 'engineRequest' | 'supplyData';
	/** The tool node's name (the model sees it as the tool name). Default: the node's default name. */
	nodeName?: string;
	/** The tool node's id: runs with the same id share n8n's de-duplication entries (the node's record). Default: one per run. */
	nodeId?: string;
	/** Optional node settings of the tool node, as in workflow JSON. */
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	onError?: 'continueRegularOutput' | 'continueErrorOutput' | 'stopWorkflow';
}

export interface AgentToolResult {
	/** What the model read back for each tool call, in order. */
	observations: string[];
	/** The tool as the model saw it. */
	tool?: ToolSeen;
	/** Each run of the tool node (one per call, more with Retry On Fail). */
	invocations: ToolInvocation[];
	/** The agent's error if the execution failed. */
	error?: Error;
	runData: IRunData;
	credentialStore: CredentialStore;
	run: IRun;
	toolNodeName: string;
}

/** The agent's workflow, built once per execution; `runAgentTool` runs it, `WaitingExecutions.runAgent` runs it until it waits. */
export interface AgentWorkflow {
	workflow: Workflow;
	workflowData: IWorkflowBase;
	startNode: INode;
	agentNode: INode;
	toolNode: INode;
	/** The tool variant the tool node runs as (with its `webhook()` for a resume). */
	toolType: INodeType;
	store: CredentialStore;
	sink: ErrorSink;
	invocations: ToolInvocation[];
	executionId: string;
}

/** Harness Start → Harness Agent, with the node under test connected to the agent as its tool (`ai_tool` connection). */
export function buildAgentWorkflow(opts: AgentToolOptions): AgentWorkflow {
	setupEngine();
	const store = buildStore(opts.credentialTypes, opts.credentials);
	const sink: ErrorSink = {};
	const invocations: ToolInvocation[] = [];
	const script: AgentScript = { toolCalls: opts.toolCalls, via: opts.via ?? 'engineRequest' };
	const nodeTypes = new AgentToolNodeTypes(opts.node, script, sink, invocations);
	const toolType = toolVariantOf(opts.node);
	const executionNumber = ++agentExecutions;
	const toolNode = buildNode(toolType, opts.parameters, store, {
		// A node of its own per run unless given: n8n's de-duplication entries are per node (see nodeRunner's nodeId).
		id: opts.nodeId ?? `harness-tool-${executionNumber}`,
		name: opts.nodeName ?? nodeNameFor(opts.node),
		...(opts.retryOnFail !== undefined ? { retryOnFail: opts.retryOnFail } : {}),
		...(opts.maxTries !== undefined ? { maxTries: opts.maxTries } : {}),
		...(opts.waitBetweenTries !== undefined ? { waitBetweenTries: opts.waitBetweenTries } : {}),
		...(opts.onError ? { onError: opts.onError } : {}),
	});
	const moreToolNodes = (opts.moreTools ?? []).map((extra, index) =>
		buildNode(toolType, extra.parameters, store, {
			id: `harness-tool-${executionNumber}-${index + 2}`,
			name: extra.nodeName,
		}),
	);
	const startNode: INode = {
		id: 'harness-start',
		name: 'Harness Start',
		type: START_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const agentNode: INode = {
		id: 'harness-agent',
		name: 'Harness Agent',
		type: AGENT_NODE_TYPE,
		typeVersion: 1,
		position: [200, 0],
		parameters: {},
	};
	const connections: IConnections = {
		[startNode.name]: {
			main: [[{ node: agentNode.name, type: NodeConnectionTypes.Main, index: 0 }]],
		},
		[toolNode.name]: {
			[NodeConnectionTypes.AiTool]: [
				[{ node: agentNode.name, type: NodeConnectionTypes.AiTool, index: 0 }],
			],
		},
	};
	for (const node of moreToolNodes) {
		connections[node.name] = {
			[NodeConnectionTypes.AiTool]: [
				[{ node: agentNode.name, type: NodeConnectionTypes.AiTool, index: 0 }],
			],
		};
	}
	const nodes = [startNode, agentNode, toolNode, ...moreToolNodes];
	const workflow = new Workflow({
		id: HARNESS_WORKFLOW_ID,
		name: 'Engine harness (agent)',
		nodes,
		connections,
		active: false,
		nodeTypes,
		staticData: {},
		settings: { executionOrder: 'v1' },
	});
	const workflowData = {
		id: HARNESS_WORKFLOW_ID,
		name: 'Engine harness (agent)',
		active: false,
		isArchived: false,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		createdAt: new Date(),
		updatedAt: new Date(),
	} as unknown as IWorkflowBase;
	// Every execution has its own id in n8n; nodes may keep per-execution memory by it.
	return {
		workflow,
		workflowData,
		startNode,
		agentNode,
		toolNode,
		toolType: nodeTypes.tool,
		store,
		sink,
		invocations,
		executionId: `agent-${executionNumber}`,
	};
}

/** The execution's first stack entry: Harness Start with one empty item. */
export function agentRunData(built: AgentWorkflow): IRunExecutionData {
	return createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{ node: built.startNode, data: { main: [[{ json: {} }]] }, source: null },
			],
		},
	});
}

/** What the model read and the tool as it saw it, from a finished run. */
export function agentResultOf(built: AgentWorkflow, run: IRun): AgentToolResult {
	const runData = run.data.resultData.runData;
	const agentOutput = runData[built.agentNode.name]?.[0]?.data?.main?.[0]?.[0]?.json as
		{ observations: string[]; tool: ToolSeen } | undefined;
	const recordedError = run.data.resultData.error;
	return {
		observations: agentOutput?.observations ?? [],
		tool: agentOutput?.tool,
		invocations: built.invocations,
		error: recordedError ? ((built.sink.thrown as Error | undefined) ?? recordedError) : undefined,
		runData,
		credentialStore: built.store,
		run,
		toolNodeName: built.toolNode.name,
	};
}

/**
 * Runs Harness Start → Harness Agent, with the node under test connected to the agent as its
 * tool (`ai_tool` connection), in one execution of n8n-core's WorkflowExecute.
 */
export async function runAgentTool(opts: AgentToolOptions): Promise<AgentToolResult> {
	const built = buildAgentWorkflow(opts);
	const mode: WorkflowExecuteMode = 'manual';
	const hooks = new ExecutionLifecycleHooks(mode, '1', built.workflowData);
	const additionalData = buildAdditionalData(built.store, defaultBaseUrls, hooks);
	additionalData.executionId = built.executionId;
	const run = await new WorkflowExecute(
		additionalData,
		mode,
		agentRunData(built),
	).processRunExecutionData(built.workflow);
	return agentResultOf(built, run);
}
