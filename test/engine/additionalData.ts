/**
 * The pieces every harness run builds: n8n's additional data (credential helper, webhook URLs,
 * hooks), the credential store of a run and the node under test as a workflow node.
 */
import './engine-env';

import { ExecutionLifecycleHooks, ExternalSecretsProxy } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	INode,
	INodeParameters,
	INodeTypeDescription,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { ICredentialsHelper, UserError } from 'n8n-workflow';
import { HARNESS_WORKFLOW_ID } from './setup';
import { defaultTypeVersion, nodeTypeName, type AnyNodeType } from './nodeTypes';
import { CredentialStore, deepCopy } from './credentials';

interface BaseUrls {
	webhookBaseUrl: string;
	webhookTestBaseUrl: string;
}

export const defaultBaseUrls: BaseUrls = {
	webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
	webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
};

/** n8n gives every execution its own id; nodes may key per-execution memory by it. */
let lastExecutionId = 0;

export function buildAdditionalData(
	credentialsHelper: ICredentialsHelper,
	urls: BaseUrls = defaultBaseUrls,
	hooks?: ExecutionLifecycleHooks,
): IWorkflowExecuteAdditionalData {
	const instanceBaseUrl = 'http://127.0.0.1:5678/';
	const notAvailable = (what: string) => async () => {
		throw new UserError(`Harness: ${what} is not available in the engine harness`);
	};
	const additionalData = {
		credentialsHelper,
		hooks,
		executionId: String(++lastExecutionId),
		userId: 'harness-user',
		workflowId: HARNESS_WORKFLOW_ID,
		currentNodeExecutionIndex: 0,
		currentNodeParameters: undefined,
		restApiUrl: `${instanceBaseUrl}rest`,
		instanceBaseUrl,
		formBaseUrl: `${instanceBaseUrl}form`,
		formWaitingBaseUrl: `${instanceBaseUrl}form-waiting`,
		formTestBaseUrl: `${instanceBaseUrl}form-test`,
		webhookBaseUrl: urls.webhookBaseUrl,
		webhookWaitingBaseUrl: `${instanceBaseUrl}webhook-waiting`,
		webhookTestBaseUrl: urls.webhookTestBaseUrl,
		mcpBaseUrl: `${instanceBaseUrl}mcp`,
		mcpTestBaseUrl: `${instanceBaseUrl}mcp-test`,
		variables: {},
		externalSecretsProxy: new ExternalSecretsProxy(),
		executeWorkflow: notAvailable('executeWorkflow (sub-workflows)'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: notAvailable('startRunnerTask (Code node task runners)'),
	};
	return additionalData as unknown as IWorkflowExecuteAdditionalData;
}

export function buildStore(
	credentialTypes: ICredentialType[],
	credentials: Record<string, ICredentialDataDecryptedObject> | undefined,
	existing?: CredentialStore,
): CredentialStore {
	if (!existing) return new CredentialStore(credentialTypes, credentials ?? {});
	for (const type of credentialTypes) if (!existing.hasType(type.name)) existing.addType(type);
	for (const [type, data] of Object.entries(credentials ?? {})) existing.set(type, data);
	return existing;
}

function nodeCredentialsFor(store: CredentialStore): INode['credentials'] {
	const result: NonNullable<INode['credentials']> = {};
	for (const type of store.storedTypes()) {
		result[type] = { id: `harness-${type}`, name: `Harness ${type}` };
	}
	return result;
}

export function nodeNameFor(node: AnyNodeType): string {
	const defaults = node.description as Partial<INodeTypeDescription>;
	return defaults.defaults?.name ?? node.description.displayName;
}

export function buildNode(
	nodeType: AnyNodeType,
	parameters: INodeParameters,
	store: CredentialStore,
	extra: Partial<INode> = {},
): INode {
	return {
		id: 'harness-node-under-test',
		name: nodeNameFor(nodeType),
		type: nodeTypeName(nodeType),
		typeVersion: extra.typeVersion ?? defaultTypeVersion(nodeType),
		position: [200, 0],
		parameters: deepCopy(parameters),
		credentials: nodeCredentialsFor(store),
		...extra,
	};
}
