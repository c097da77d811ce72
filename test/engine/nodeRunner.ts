/**
 * `runNode()` builds a real `Workflow` (harness start node -> node under test) and runs it with
 * n8n-core's `WorkflowExecute`, so parameters/expressions, `getCredentials`,
 * `httpRequestWithAuthentication` (preAuthentication, authenticate, 401 refresh and retry),
 * Continue On Fail / error output routing and pairedItem are n8n's own code.
 */
import './engine-env';

import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	ExecutionBaseError,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IRun,
	IRunData,
	IRunExecutionData,
	ITaskData,
	IVersionedNodeType,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	createRunExecutionData,
	ExecutionBaseError as ExecutionBaseErrorClass,
} from 'n8n-workflow';
import { harnessWorkflow, setupEngine } from './setup';
import { HarnessNodeTypes, type ErrorSink } from './nodeTypes';
import { CredentialStore, deepCopy } from './credentials';
import { buildAdditionalData, buildNode, buildStore, defaultBaseUrls } from './additionalData';

export interface RunOptions {
	/** Instance of the node class under test, e.g. `new CisAutoCall()`. */
	node: INodeType | IVersionedNodeType;
	/** Instances of the credential classes, e.g. `[new CisAutoCallApi(), new CisAutoCallLoginApi()]`. */
	credentialTypes: ICredentialType[];
	/** The node's parameters as in workflow JSON; expressions (`={{ $json.phone }}`) resolve for real. */
	parameters: INodeParameters;
	/** Credential data by credential type name, e.g. `{ cisAutoCallApi: { baseUrl, accessToken } }`. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** Input items' json (default `[{}]`). */
	items?: IDataObject[];
	/** Sets the node's `onError` to `continueRegularOutput`. */
	continueOnFail?: boolean;
	onError?: 'continueRegularOutput' | 'continueErrorOutput';
	typeVersion?: number;
	/**
	 * Optional: reuse a store from an earlier run (tokens that preAuthentication saved stay).
	 * `credentials` given here are written into it first.
	 */
	credentialStore?: CredentialStore;
	/** Optional: the node's static data (`getWorkflowStaticData('node')`), mutated in place. */
	staticData?: IDataObject;
	/**
	 * Execution mode (default `manual`, what "Execute workflow" uses). Production runs
	 * started by a trigger use `trigger` / `webhook`.
	 */
	mode?: WorkflowExecuteMode;
	/** Optional: retryOnFail settings of the node, as in workflow JSON. */
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	/**
	 * The node's id. n8n's de-duplication helpers keep their entries per workflow and node id:
	 * by default every run gets a node of its own (like a new workflow); give the same id to run
	 * the same node again (e.g. n8n's Retry of a failed execution).
	 */
	nodeId?: string;
}

let lastNodeNumber = 0;

export interface RunResult {
	/** Main output 0 of the node under test (with pairedItem, as the engine produced it). */
	items: INodeExecutionData[];
	/** All outputs of the node under test (the error output too). */
	outputs: INodeExecutionData[][];
	/**
	 * The node's error if the run failed. n8n 2.x records a flattened copy in run data
	 * (`recordedError`); when the node's execute() threw an n8n error instance
	 * (NodeApiError, NodeOperationError, ...) that instance is given here, so
	 * `instanceof`, `httpCode`, `description`, `context.itemIndex` can be checked.
	 * Otherwise (raw errors, which the engine wraps; declarative nodes) it is `recordedError`.
	 */
	error?: ExecutionBaseError | Error;
	/** The error exactly as the engine stored it in run data (a plain object in n8n 2.x). */
	recordedError?: ExecutionBaseError;
	/** `executionTime` of the node under test, from run data. */
	executionTimeMs: number;
	runData: IRunData;
	credentialStore: CredentialStore;
	/** The full run, as `WorkflowExecute` returned it. */
	run: IRun;
	/** Name of the node under test in the workflow. */
	nodeName: string;
}

export async function runNode(opts: RunOptions): Promise<RunResult> {
	setupEngine();
	const store = buildStore(opts.credentialTypes, opts.credentials, opts.credentialStore);

	const onError = opts.onError ?? (opts.continueOnFail ? 'continueRegularOutput' : undefined);
	const nodeUnderTest = buildNode(opts.node, opts.parameters, store, {
		id: opts.nodeId ?? `harness-node-under-test-${++lastNodeNumber}`,
		...(opts.typeVersion !== undefined ? { typeVersion: opts.typeVersion } : {}),
		...(onError ? { onError } : {}),
		...(opts.retryOnFail !== undefined ? { retryOnFail: opts.retryOnFail } : {}),
		...(opts.maxTries !== undefined ? { maxTries: opts.maxTries } : {}),
		...(opts.waitBetweenTries !== undefined ? { waitBetweenTries: opts.waitBetweenTries } : {}),
	});
	const staticData: IDataObject = {};
	const nodeStaticKey = `node:${nodeUnderTest.name}`;
	if (opts.staticData) staticData[nodeStaticKey] = deepCopy(opts.staticData);

	const sink: ErrorSink = {};
	const nodeTypes = new HarnessNodeTypes([opts.node], sink);
	const { startNode, workflow, workflowData } = harnessWorkflow(nodeUnderTest, nodeTypes, {
		name: 'Engine harness',
		staticData,
	});
	const mode: WorkflowExecuteMode = opts.mode ?? 'manual';
	const hooks = new ExecutionLifecycleHooks(mode, '1', workflowData);
	const additionalData = buildAdditionalData(store, defaultBaseUrls, hooks);

	const items = (opts.items ?? [{}]).map((json) => ({ json: deepCopy(json) }));
	const runExecutionData: IRunExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node: startNode, data: { main: [items] }, source: null }],
		},
	});

	let run: IRun;
	try {
		run = await new WorkflowExecute(additionalData, mode, runExecutionData).processRunExecutionData(
			workflow,
		);
	} catch (error) {
		// Refused before any node ran, e.g. WorkflowHasIssuesError (a required parameter is
		// empty): n8n 2.x checks parameter issues of the nodes to run first.
		return {
			items: [],
			outputs: [],
			error: error as Error,
			executionTimeMs: 0,
			runData: {},
			credentialStore: store,
			run: {
				data: runExecutionData,
				mode,
				startedAt: new Date(),
				status: 'error',
			} as unknown as IRun,
			nodeName: nodeUnderTest.name,
		};
	}

	if (opts.staticData) {
		const after = (workflow.staticData[nodeStaticKey] ?? {}) as IDataObject;
		replaceContents(opts.staticData, deepCopy(after));
	}

	const runData = run.data.resultData.runData;
	const task: ITaskData | undefined = runData[nodeUnderTest.name]?.[0];
	const outputs = (task?.data?.main ?? []).map((output) => output ?? []);
	const recordedError = task?.error ?? run.data.resultData.error;
	const error =
		recordedError && sink.thrown instanceof ExecutionBaseErrorClass
			? (sink.thrown as ExecutionBaseError)
			: recordedError;
	return {
		items: outputs[0] ?? [],
		outputs,
		error,
		recordedError,
		executionTimeMs: task?.executionTime ?? 0,
		runData,
		credentialStore: store,
		run,
		nodeName: nodeUnderTest.name,
	};
}

export function replaceContents(target: IDataObject, source: IDataObject): void {
	for (const key of Object.keys(target)) delete target[key];
	Object.assign(target, source);
}
