/**
 * `WaitingExecutions`: waiting and resuming as n8n's CLI does it (`WaitingWebhooks` of n8n 2.41.1
 * and 1.123.81), around n8n-core's real `WorkflowExecute` and `WebhookContext`. `run()` runs
 * *Harness Start → node under test* until the node calls `putExecutionToWait`; the execution is then
 * kept (as a deep copy, as if saved). `handle` serves `POST /webhook-waiting/<id>/<suffix>` like
 * n8n: 404 unknown execution or no restart webhook with that path, 409 running or finished, and
 * with `checksToken` (n8n 2.x) 401 without the execution's resume token. It loads the saved
 * execution, disables the waiting node, removes its waiting run data, calls the node's
 * `webhook()`; when that returns `workflowData`, the execution continues from there to its end.
 * With `checksToken: false` (n8n 1.x) nothing guards against resumes at the same moment.
 */
import './engine-env';

import { ExecutionLifecycleHooks, WebhookContext, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	IRun,
	IRunExecutionData,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, type Workflow } from 'n8n-workflow';

import { buildAdditionalData, buildNode, buildStore, defaultBaseUrls } from './additionalData';
import {
	agentResultOf,
	agentRunData,
	buildAgentWorkflow,
	type AgentToolOptions,
	type AgentToolResult,
	type AgentWorkflow,
} from './agentRunner';
import type { CredentialStore } from './credentials';
import { HarnessNodeTypes, type AnyNodeType } from './nodeTypes';
import { HARNESS_WORKFLOW_ID, harnessWorkflow, setupEngine } from './setup';
import type { HarnessRequest, HarnessResponse } from './webhookServer';

export interface WaitingRunOptions {
	node: AnyNodeType;
	credentialTypes: ICredentialType[];
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	parameters: INodeParameters;
	items?: IDataObject[];
	mode?: WorkflowExecuteMode;
	continueOnFail?: boolean;
	/** n8n's Retry On Fail of the node. */
	retryOnFail?: { maxTries: number; waitBetweenTries: number };
}

export interface Execution {
	id: string;
	status: 'running' | 'waiting' | 'finished';
	/** The run as the first part ended (waiting) and, after a resume, as it finished. */
	run: IRun;
	/** The waiting node's output while it waited. */
	waitingItems: INodeExecutionData[];
	/** The node's output after the resume (what webhook() handed on). */
	items?: INodeExecutionData[];
	/** How many times the rest of the workflow ran. */
	resumes: number;
	/** How many times the execution waited (an AI Agent's tool may wait once per call). */
	waits: number;
	/** `runAgent`: what the model read, once the execution finished. */
	agent?: AgentToolResult;
	/** Every request to its waiting address: status and body answered. */
	requests: Array<{ status: number; body: unknown }>;
	waitTill?: Date;
	/** Resolves when the execution finished after a resume. */
	finished: Promise<void>;
}

interface Saved {
	execution: Execution;
	workflow: Workflow;
	node: INode;
	nodeType: AnyNodeType;
	store: CredentialStore;
	mode: WorkflowExecuteMode;
	data: IRunExecutionData;
	workflowData: IWorkflowBase;
	resolveFinished: () => void;
	/** `runAgent`: the agent's workflow. */
	agent?: AgentWorkflow;
}

let lastNumber = 0;

/** A new execution, running; `resolveFinished` settles its `finished`. */
function newExecution(id: string): { execution: Execution; resolveFinished: () => void } {
	let resolveFinished = () => {};
	const execution: Execution = {
		id,
		status: 'running',
		run: undefined as unknown as IRun,
		waitingItems: [],
		resumes: 0,
		waits: 0,
		requests: [],
		finished: new Promise<void>((resolve) => (resolveFinished = resolve)),
	};
	return { execution, resolveFinished };
}

/** What n8n gives a run of the execution: its id, hooks and this n8n's waiting address. */
function additionalDataOf(
	store: CredentialStore,
	mode: WorkflowExecuteMode,
	id: string,
	workflowData: IWorkflowBase,
	waitingBaseUrl: string,
): IWorkflowExecuteAdditionalData {
	const additionalData = buildAdditionalData(store, defaultBaseUrls);
	additionalData.executionId = id;
	additionalData.hooks = new ExecutionLifecycleHooks(mode, id, workflowData);
	additionalData.webhookWaitingBaseUrl = waitingBaseUrl;
	return additionalData;
}

export class WaitingExecutions {
	private readonly saved = new Map<string, Saved>();

	/** `<n8n>/webhook-waiting`, the base of `$execution.resumeUrl`; set once the server listens. */
	waitingBaseUrl = 'http://127.0.0.1:5678/webhook-waiting';

	/**
	 * `checksToken`: n8n 2.x (the execution's resume token is required; one resume at a time).
	 * `loadDelayMs`: a slow n8n (after loading the execution), so that requests arriving together overlap.
	 */
	constructor(
		private readonly options: { checksToken: boolean; loadDelayMs?: number } = {
			checksToken: true,
		},
	) {}

	/** The next `n` requests find the execution running (not saved as waiting yet, or resumed and not finished). */
	stillRunningFor = 0;

	/**
	 * What a webhook process that is starting up answers before it reaches the execution (n8n 2.41.1,
	 * measured): the next requests get these answers, one each, in order.
	 */
	notReadyAnswers: Array<{ status: number; text: string }> = [];

	/** Requests to the waiting address now, and the most at once (counted before the gate). */
	requestsInFlight = { now: 0, most: 0 };

	private gate: Promise<void> | undefined;

	/** Holds every request to the waiting address (before it reaches the execution) until the returned function is called. */
	holdRequests(): () => void {
		let open!: () => void;
		this.gate = new Promise((resolve) => (open = resolve));
		return () => {
			this.gate = undefined;
			open();
		};
	}

	get(id: string): Execution | undefined {
		return this.saved.get(id)?.execution;
	}

	/** Runs the workflow until it waits (or ends). */
	async run(opts: WaitingRunOptions): Promise<Execution> {
		setupEngine();
		const store = buildStore(opts.credentialTypes, opts.credentials);
		const nodeUnderTest = buildNode(opts.node, opts.parameters, store, {
			id: `waiting-node-${++lastNumber}`,
			...(opts.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
			...(opts.retryOnFail ? { retryOnFail: true, ...opts.retryOnFail } : {}),
		});
		const nodeTypes = new HarnessNodeTypes([opts.node], {});
		const { startNode, workflow, workflowData } = harnessWorkflow(nodeUnderTest, nodeTypes, {
			name: 'Waiting harness',
		});
		const mode = opts.mode ?? 'webhook';
		const additionalData = buildAdditionalData(store, defaultBaseUrls);
		const id = additionalData.executionId as string;
		additionalData.hooks = new ExecutionLifecycleHooks(mode, id, workflowData);
		additionalData.webhookWaitingBaseUrl = this.waitingBaseUrl;
		const data: IRunExecutionData = createRunExecutionData({
			executionData: {
				nodeExecutionStack: [
					{
						node: startNode,
						data: { main: [(opts.items ?? [{}]).map((json) => ({ json }))] },
						source: null,
					},
				],
			},
		});
		const { execution, resolveFinished } = newExecution(id);
		// n8n saves the execution (status running) before it runs.
		const saved: Saved = {
			execution,
			workflow,
			node: nodeUnderTest,
			nodeType: opts.node,
			store,
			mode,
			data,
			workflowData,
			resolveFinished,
		};
		this.saved.set(id, saved);
		const run = await new WorkflowExecute(additionalData, mode, data).processRunExecutionData(
			workflow,
		);
		execution.waitingItems =
			run.data.resultData.runData[nodeUnderTest.name]?.at(-1)?.data?.main?.[0] ?? [];
		this.ranUntil(saved, run);
		return execution;
	}

	/**
	 * Runs Harness Start → Harness Agent with the node as the agent's tool (`runAgentTool`'s workflow, AI Agent
	 * v3's engine requests) until it waits or ends; each resume runs the agent on until the tool waits again or
	 * the agent is done (`finished`, then `agent` holds what the model read).
	 */
	async runAgent(opts: AgentToolOptions): Promise<Execution> {
		const built = buildAgentWorkflow(opts);
		const mode: WorkflowExecuteMode = 'webhook';
		const id = built.executionId;
		const additionalData = additionalDataOf(
			built.store,
			mode,
			id,
			built.workflowData,
			this.waitingBaseUrl,
		);
		const data = agentRunData(built);
		const { execution, resolveFinished } = newExecution(id);
		const saved: Saved = {
			execution,
			workflow: built.workflow,
			node: built.toolNode,
			nodeType: built.toolType,
			store: built.store,
			mode,
			data,
			workflowData: built.workflowData,
			resolveFinished,
			agent: built,
		};
		this.saved.set(id, saved);
		const run = await new WorkflowExecute(additionalData, mode, data).processRunExecutionData(
			built.workflow,
		);
		this.ranUntil(saved, run);
		return execution;
	}

	/**
	 * The wait's time limit passes (n8n's wait tracker): the execution goes on from where it waited, the waiting
	 * node disabled, so that its input items are its output (n8n-core's `handleWaitingState`).
	 */
	async passTimeLimit(id: string): Promise<void> {
		const saved = this.saved.get(id);
		if (!saved || saved.execution.status !== 'waiting')
			throw new Error(`execution ${id} does not wait`);
		saved.execution.status = 'running';
		const additionalData = additionalDataOf(
			saved.store,
			saved.mode,
			id,
			saved.workflowData,
			this.waitingBaseUrl,
		);
		const run = await new WorkflowExecute(
			additionalData,
			saved.mode,
			structuredClone(saved.data),
		).processRunExecutionData(saved.workflow);
		this.ranUntil(saved, run);
	}

	/** After a run of the execution: saved as waiting (as n8n saves it), or finished. */
	private ranUntil(saved: Saved, run: IRun): void {
		const { execution } = saved;
		execution.run = run;
		if (run.waitTill) {
			execution.waitTill = run.waitTill;
			execution.waits++;
			saved.data = structuredClone(run.data);
			execution.status = 'waiting';
			return;
		}
		execution.status = 'finished';
		if (saved.agent) execution.agent = agentResultOf(saved.agent, run);
		saved.resolveFinished();
	}

	/** The route `POST /webhook-waiting/<id>/<suffix>` (give it to startWebhookServer's `otherRoutes`). */
	handle = async (req: HarnessRequest, res: HarnessResponse): Promise<void> => {
		const inFlight = this.requestsInFlight;
		inFlight.now++;
		inFlight.most = Math.max(inFlight.most, inFlight.now);
		try {
			if (this.gate) await this.gate;
			await this.answer(req, res);
		} finally {
			inFlight.now--;
		}
	};

	private answer = async (req: HarnessRequest, res: HarnessResponse): Promise<void> => {
		// The path of waitingBaseUrl (n8n's N8N_ENDPOINT_WEBHOOK_WAIT, "webhook-waiting" by default).
		const waitingPath = new URL(this.waitingBaseUrl).pathname.replace(/\/$/, '');
		const match = req.path.startsWith(`${waitingPath}/`)
			? /^\/([^/]+)(?:\/([^/]+))?\/?$/.exec(req.path.slice(waitingPath.length))
			: null;
		const answer = (status: number, body: unknown, execution?: Execution) => {
			execution?.requests.push({ status, body });
			if (!res.headersSent) res.status(status).json(body);
		};
		const notReady = this.notReadyAnswers.shift();
		if (notReady) {
			res.status(notReady.status).send(notReady.text);
			return;
		}
		if (!match || req.method !== 'POST') return answer(404, { code: 404, message: 'not found' });
		const [, id, suffix] = match;
		const saved = this.saved.get(id);
		if (!saved) return answer(404, { code: 404, message: `The execution "${id}" does not exist.` });
		const { execution } = saved;
		if (this.options.checksToken && req.query.signature !== saved.data.resumeToken) {
			return answer(401, { error: 'Invalid token' }, execution);
		}
		if (this.stillRunningFor > 0) {
			this.stillRunningFor--;
			return answer(
				409,
				{ code: 409, message: `The execution "${id}" is running already.` },
				execution,
			);
		}
		if (execution.status === 'running')
			return answer(
				409,
				{ code: 409, message: `The execution "${id}" is running already.` },
				execution,
			);
		if (execution.status === 'finished')
			return answer(
				409,
				{ code: 409, message: `The execution "${id} has finished already.` },
				execution,
			);
		if (suffix !== saved.node.id)
			return answer(
				404,
				{ code: 404, message: 'no waiting webhook with a matching path/method' },
				execution,
			);

		// As loaded from the database: a copy per request (n8n 1.x: several requests may load the
		// waiting execution before any of them resumed it).
		const data = structuredClone(saved.data);
		if (this.options.loadDelayMs)
			await new Promise((resolve) => setTimeout(resolve, this.options.loadDelayMs));
		data.executionData!.nodeExecutionStack[0].node.disabled = true;
		data.waitTill = undefined;
		data.resultData.runData[data.resultData.lastNodeExecuted as string].pop();

		const additionalData = additionalDataOf(
			saved.store,
			saved.mode,
			id,
			saved.workflowData,
			this.waitingBaseUrl,
		);
		additionalData.httpRequest = req as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
		additionalData.httpResponse = res as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
		const description = (
			saved.nodeType.description as { webhooks?: IWebhookData['webhookDescription'][] }
		).webhooks?.find((w) => w.restartWebhook);
		if (!description) return answer(404, { code: 404, message: 'no restart webhook' }, execution);
		const webhookData: IWebhookData = {
			httpMethod: 'POST',
			node: saved.node.name,
			path: suffix,
			webhookDescription: description,
			workflowId: HARNESS_WORKFLOW_ID,
			workflowExecuteAdditionalData: additionalData,
		};
		let result: IWebhookResponseData;
		try {
			const context = new WebhookContext(
				saved.workflow,
				saved.node,
				additionalData,
				saved.mode,
				webhookData,
				[],
				data,
			);
			result = await (
				saved.nodeType as { webhook: (this: unknown) => Promise<IWebhookResponseData> }
			).webhook.call(context);
		} catch (error) {
			return answer(500, { code: 0, message: (error as Error).message }, execution);
		}
		if (result.noWebhookResponse) {
			execution.requests.push({ status: res.statusCode, body: '(answered by the node)' });
			return;
		}
		if (!result.workflowData)
			return answer(200, result.webhookResponse ?? { message: 'Webhook call received' }, execution);

		// n8n 2.x lets one resume through (the others fail); n8n 1.x runs each one.
		if (this.options.checksToken) execution.status = 'running';
		answer(200, result.webhookResponse ?? { message: 'Workflow was started' }, execution);
		data.executionData!.nodeExecutionStack[0].data.main = result.workflowData;
		execution.resumes++;
		const run = await new WorkflowExecute(additionalData, saved.mode, data).processRunExecutionData(
			saved.workflow,
		);
		execution.items = run.data.resultData.runData[saved.node.name]?.at(-1)?.data?.main?.[0] ?? [];
		this.ranUntil(saved, run);
	};
}
