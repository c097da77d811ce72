/**
 * The trigger's webhook lifecycle: `runWebhookMethod()` calls checkExists/create/delete in n8n-core's
 * `HookContext`; the trigger workflow and its webhook routes, shared with the webhook server.
 */
import './engine-env';

import { HookContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IHttpRequestMethods,
	INode,
	INodeParameters,
	INodeType,
	IVersionedNodeType,
	IWebhookData,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { NodeHelpers, UserError, Workflow } from 'n8n-workflow';
import { DEFAULT_WEBHOOK_ID, HARNESS_WORKFLOW_ID, setupEngine } from './setup';
import { HarnessNodeTypes, type AnyNodeType } from './nodeTypes';
import { CredentialStore, deepCopy } from './credentials';
import { buildAdditionalData, buildNode, buildStore } from './additionalData';
import { replaceContents } from './nodeRunner';

interface TriggerSetup {
	workflow: Workflow;
	node: INode;
	nodeType: INodeType;
	store: CredentialStore;
	staticKey: string;
}

export function buildTriggerWorkflow(
	opts: {
		node: AnyNodeType;
		credentialTypes: ICredentialType[];
		credentials?: Record<string, ICredentialDataDecryptedObject>;
		parameters: INodeParameters;
		webhookId?: string;
		typeVersion?: number;
		credentialStore?: CredentialStore;
	},
	staticData: IDataObject,
): TriggerSetup {
	setupEngine();
	const store = buildStore(opts.credentialTypes, opts.credentials, opts.credentialStore);
	const node = buildNode(opts.node, opts.parameters, store, {
		webhookId: opts.webhookId ?? DEFAULT_WEBHOOK_ID,
		...(opts.typeVersion !== undefined ? { typeVersion: opts.typeVersion } : {}),
	});
	const staticKey = `node:${node.name}`;
	const workflow = new Workflow({
		id: HARNESS_WORKFLOW_ID,
		name: 'Engine harness',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes: new HarnessNodeTypes([opts.node]),
		staticData: { [staticKey]: staticData },
		settings: { executionOrder: 'v1' },
	});
	const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	return { workflow, node: workflow.getNode(node.name) as INode, nodeType, store, staticKey };
}

/** Like n8n's `WebhookService.getNodeWebhooks()` (one entry per HTTP method). */
export function getNodeWebhooks(
	workflow: Workflow,
	node: INode,
	nodeType: INodeType,
	additionalData: IWorkflowExecuteAdditionalData,
): IWebhookData[] {
	const result: IWebhookData[] = [];
	for (const webhookDescription of nodeType.description.webhooks ?? []) {
		let nodeWebhookPath = workflow.expression.getSimpleParameterValue(
			node,
			webhookDescription.path,
			'internal',
			{},
		);
		if (nodeWebhookPath === undefined) continue;
		nodeWebhookPath = String(nodeWebhookPath).replace(/^\//, '').replace(/\/$/, '');
		const isFullPath = workflow.expression.getSimpleParameterValue(
			node,
			webhookDescription.isFullPath,
			'internal',
			{},
			undefined,
			false,
		) as boolean;
		const restartWebhook = workflow.expression.getSimpleParameterValue(
			node,
			webhookDescription.restartWebhook,
			'internal',
			{},
			undefined,
			false,
		) as boolean;
		const webhookPath = NodeHelpers.getNodeWebhookPath(
			workflow.id,
			node,
			nodeWebhookPath,
			isFullPath,
			restartWebhook,
		);
		const methods = workflow.expression.getSimpleParameterValue(
			node,
			webhookDescription.httpMethod,
			'internal',
			{},
			undefined,
			'GET',
		);
		for (const httpMethod of String(methods).split(',')) {
			if (!httpMethod.trim()) continue;
			result.push({
				httpMethod: httpMethod.trim() as IHttpRequestMethods,
				node: node.name,
				path: webhookPath,
				webhookDescription,
				workflowId: workflow.id,
				workflowExecuteAdditionalData: additionalData,
				webhookId:
					(webhookPath.startsWith(':') || webhookPath.includes('/:')) && node.webhookId
						? node.webhookId
						: undefined,
			});
		}
	}
	return result;
}

function stripTrailingSlash(url: string): string {
	return url.replace(/\/+$/, '');
}

export interface WebhookMethodOptions {
	node: INodeType | IVersionedNodeType;
	credentialTypes: ICredentialType[];
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	parameters: INodeParameters;
	method: 'checkExists' | 'create' | 'delete';
	/** The node's static data object (`getWorkflowStaticData('node')`), mutated in place like n8n persists it. */
	staticData: IDataObject;
	/** Base of the node's webhook URL, e.g. `http://127.0.0.1:PORT/webhook/` (production) or `.../webhook-test/` (manual). */
	webhookBaseUrl: string;
	webhookId?: string;
	/**
	 * Execution mode of the hook context. n8n uses `trigger` when it activates a workflow,
	 * `internal` when it removes webhooks, `manual` for test listens. Default: `trigger` for
	 * checkExists/create, `internal` for delete.
	 */
	mode?: 'trigger' | 'internal' | 'manual';
	activation?: WorkflowActivateMode;
	typeVersion?: number;
	credentialStore?: CredentialStore;
	/** Webhook description name (default: the first webhook of the node, usually `default`). */
	webhookName?: string;
}

export interface WebhookMethodResult {
	result: boolean | undefined;
	error?: Error;
	credentialStore: CredentialStore;
	/** The node's webhook URL as the hook context computed it. */
	webhookUrl?: string;
}

export async function runWebhookMethod(opts: WebhookMethodOptions): Promise<WebhookMethodResult> {
	const { workflow, node, nodeType, store, staticKey } = buildTriggerWorkflow(
		opts,
		deepCopy(opts.staticData),
	);
	const mode: WorkflowExecuteMode =
		opts.mode ?? (opts.method === 'delete' ? 'internal' : 'trigger');
	const isTest = mode === 'manual';
	const base = stripTrailingSlash(opts.webhookBaseUrl);
	const additionalData = buildAdditionalData(store, {
		webhookBaseUrl: base,
		webhookTestBaseUrl: base,
	});
	const webhooks = getNodeWebhooks(workflow, node, nodeType, additionalData);
	const webhookData = opts.webhookName
		? webhooks.find((w) => w.webhookDescription.name === opts.webhookName)
		: webhooks[0];
	if (!webhookData)
		throw new UserError(`Harness: node "${node.name}" has no webhook to run ${opts.method} for`);
	if (isTest) webhookData.isTest = true;

	const fn = nodeType.webhookMethods?.[webhookData.webhookDescription.name]?.[opts.method];
	if (fn === undefined) {
		return { result: undefined, credentialStore: store };
	}
	const context = new HookContext(
		workflow,
		node,
		additionalData,
		mode,
		opts.activation ?? (isTest ? 'manual' : opts.method === 'delete' ? 'update' : 'activate'),
		webhookData,
	);
	let result: boolean | undefined;
	let error: Error | undefined;
	try {
		result = (await fn.call(context)) as boolean | undefined;
	} catch (e) {
		error = e as Error;
	}
	replaceContents(opts.staticData, deepCopy((workflow.staticData[staticKey] ?? {}) as IDataObject));
	return {
		result,
		error,
		credentialStore: store,
		webhookUrl: context.getNodeWebhookUrl(webhookData.webhookDescription.name),
	};
}
