/**
 * `runCredentialTest()` runs a credential type's declarative `test` like n8n's CredentialsTester:
 * through n8n-core's `RoutingNode` on a temporary node, then `rules`.
 */
import './engine-env';

import { ExecuteContext, RoutingNode } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestRequest,
	ICredentialType,
	IExecuteData,
	INode,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeType,
	INodeTypes,
} from 'n8n-workflow';
import { createRunExecutionData, NodeConnectionTypes, Workflow } from 'n8n-workflow';
import { setupEngine } from './setup';
import { CredentialStore } from './credentials';
import { buildAdditionalData, buildStore } from './additionalData';

export interface CredentialTestOptions {
	/** Other credential types the tested one extends. */
	credentialTypes?: ICredentialType[];
	/** A store to use (default: a fresh one holding only `data`). */
	credentialStore?: CredentialStore;
}

export async function runCredentialTest(
	credentialType: ICredentialType,
	data: ICredentialDataDecryptedObject,
	options: CredentialTestOptions = {},
): Promise<INodeCredentialTestResult & { credentialStore: CredentialStore }> {
	setupEngine();
	const store = buildStore(
		[credentialType, ...(options.credentialTypes ?? [])],
		{ [credentialType.name]: data },
		options.credentialStore,
	);
	const result = await testCredentials(credentialType, store);
	return { ...result, credentialStore: store };
}

async function testCredentials(
	credentialType: ICredentialType,
	store: CredentialStore,
): Promise<INodeCredentialTestResult> {
	const testRequest: ICredentialTestRequest | undefined = credentialType.test;
	if (!testRequest) {
		return { status: 'Error', message: 'No testing function found for this credential.' };
	}
	const typeName = credentialType.name;
	const additionalData = buildAdditionalData(store);

	const credentialsDecrypted: ICredentialsDecrypted = {
		id: `harness-${typeName}`,
		name: `Harness ${typeName}`,
		type: typeName,
		data: store.get(typeName),
	};
	try {
		credentialsDecrypted.data = store.applyDefaultsAndExpressions(
			additionalData,
			credentialsDecrypted.data ?? {},
			typeName,
			'internal',
		);
	} catch (error) {
		return { status: 'Error', message: String((error as Error).message) };
	}

	// The temporary node n8n builds: a noOp whose only property routes the test request.
	const nodeTypeCopy: INodeType = {
		description: {
			displayName: 'No Operation, do nothing',
			name: 'n8n-nodes-base.noOp',
			group: ['organization'],
			version: 1,
			description: '',
			defaults: { name: 'No Operation, do nothing' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: typeName, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: testRequest.request },
					default: '',
				},
			],
		},
	};
	const node: INode = {
		id: 'temp',
		parameters: {},
		name: 'Temp-Node',
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [0, 0],
		credentials: { [typeName]: { id: credentialsDecrypted.id, name: credentialsDecrypted.name } },
	};
	const nodeTypes: INodeTypes = {
		getByName: () => nodeTypeCopy,
		getByNameAndVersion: () => nodeTypeCopy,
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
	});
	const runExecutionData = createRunExecutionData({ executionData: null });
	const executeData: IExecuteData = { node, data: {}, source: null };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		runExecutionData,
		0,
		[],
		{ main: [[{ json: {} }]] },
		executeData,
		[],
	);
	const routingNode = new RoutingNode(context, nodeTypeCopy, credentialsDecrypted);

	let response: INodeExecutionData[][] | null | undefined;
	try {
		response = await routingNode.runNode();
	} catch (error) {
		const cause = (
			error as { cause?: { response?: { status: number; statusText?: string }; code?: string } }
		).cause;
		if (cause?.response) {
			const statusCode = cause.response.status;
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && statusCode === rule.properties.value) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (statusCode < 199 || statusCode > 299) {
				return {
					status: 'Error',
					message: cause.response.statusText || `Received HTTP status code: ${statusCode}`,
				};
			}
		} else if (cause?.code) {
			return { status: 'Error', message: cause.code };
		}
		return { status: 'Error', message: String((error as Error).message) };
	}

	for (const rule of testRequest.rules ?? []) {
		if (rule.type === 'responseSuccessBody') {
			const responseData = response?.[0]?.[0]?.json;
			if (getPath(responseData, rule.properties.key) === rule.properties.value) {
				return { status: 'Error', message: rule.properties.message };
			}
		}
	}
	return { status: 'OK', message: 'Connection successful!' };
}

/** lodash.get for dotted paths (what n8n's tester uses for `responseSuccessBody` keys). */
function getPath(value: unknown, key: string): unknown {
	let current: unknown = value;
	for (const part of key.replace(/\[(\w+)\]/g, '.$1').split('.')) {
		if (current === null || current === undefined) return undefined;
		current = (current as Record<string, unknown>)[part];
	}
	return current;
}
