/**
 * Runs a list search method of the action node the way n8n's editor does
 * (DynamicNodeParametersService.getResourceLocatorResults): a temporary workflow holding one
 * "Temp-Node" with the node's current parameters, and n8n-core's real LoadOptionsContext, whose
 * helpers authenticate through the harness' real CredentialStore.
 */
import '../engine/engine-env';

import { LoadOptionsContext } from 'n8n-core';
import type {
	INode,
	INodeListSearchResult,
	INodeParameters,
	INodeType,
	INodeTypes,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCall } from '../../nodes/CisAutoCall/CisAutoCall.node';
import { CredentialStore, setupEngine } from '../engine/harness';
import type { Simulator } from '../../simulator';
import { credentialsFor } from './fixtures';

const NODE_TYPE = 'n8n-nodes-cis-autocall.cisAutoCall';

export interface ListSearchOptions {
	/** The node's parameters as the editor holds them (defaults are filled in like the editor does). */
	parameters?: INodeParameters;
	filter?: string;
	paginationToken?: string;
	methodName?: string;
	credentialStore?: CredentialStore;
}

export async function runListSearch(sim: Simulator, options: ListSearchOptions = {}): Promise<INodeListSearchResult> {
	setupEngine();
	const nodeType: INodeType = new CisAutoCall();
	const store =
		options.credentialStore ?? new CredentialStore([new CisAutoCallApi(), new CisAutoCallLoginApi()], credentialsFor(sim));
	const given: INodeParameters = { resource: 'callTask', operation: 'get', ...(options.parameters ?? {}) };
	const parameters =
		NodeHelpers.getNodeParameters(nodeType.description.properties, given, true, false, null, null) ?? given;
	const node: INode = {
		id: 'temp-node-id',
		name: 'Temp-Node',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: {
			cisAutoCallApi: { id: 'harness-cisAutoCallApi', name: 'Token' },
			cisAutoCallLoginApi: { id: 'harness-cisAutoCallLoginApi', name: 'Login' },
		},
	};
	const nodeTypes: INodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const additionalData = {
		credentialsHelper: store,
		currentNodeParameters: parameters,
		executionId: undefined,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		variables: {},
	} as unknown as IWorkflowExecuteAdditionalData;
	const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters.autoCallId');
	const method = nodeType.methods?.listSearch?.[options.methodName ?? 'searchCallTasks'];
	if (!method) throw new Error(`no list search method ${options.methodName ?? 'searchCallTasks'}`);
	return await method.call(context, options.filter, options.paginationToken);
}
