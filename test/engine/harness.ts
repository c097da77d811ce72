/**
 * Engine harness: runs this package's nodes through n8n's REAL engine.
 *
 * - `runNode()` builds a real `Workflow` (harness start node -> node under test) and runs it
 *   with n8n-core's `WorkflowExecute`, so parameters/expressions, `getCredentials`,
 *   `httpRequestWithAuthentication` (preAuthentication, authenticate, 401 refresh and retry),
 *   Continue On Fail / error output routing and pairedItem are n8n's own code.
 * - `CredentialStore` is a real `ICredentialsHelper` that applies credential types the way
 *   n8n's CLI helper (packages/cli/src/credentials-helper.ts) does: defaults and expressions
 *   in credential data, function or generic `authenticate`, `preAuthentication` driven by a
 *   hidden `expirable` field, results written back with `updateCredentials`.
 * - `runCredentialTest()` runs a credential type's declarative `test` like n8n's
 *   CredentialsTester: through n8n-core's `RoutingNode` on a temporary node, then `rules`.
 * - `runWebhookMethod()` calls checkExists/create/delete in n8n-core's `HookContext`.
 * - `startWebhookServer()` serves the trigger's production webhook URL over real HTTP and
 *   calls `webhook()` in n8n-core's `WebhookContext`, answering like n8n's live webhooks in
 *   response mode `onReceived`.
 *
 * Setup notes (see README.md in this folder): the `@n8n/di` container needs nothing
 * registered by hand; n8n-core resolves `OutboundHttp`, `Logger`, `ErrorReporter`,
 * `InstanceSettings` etc. lazily. `InstanceSettings` is pointed at a throw-away folder
 * (N8N_USER_FOLDER) before first use. Expressions use n8n-workflow's `legacy` engine (the
 * in-process tournament evaluator, n8n-workflow's default): the `vm` engine needs the
 * isolated-vm native module, which is not built here (Node 20, ignore-scripts).
 */
import './engine-env';

import { parseIncomingMessage } from '@n8n/backend-network';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { parse as parseQueryString } from 'node:querystring';
import {
	ExecuteContext,
	ExecutionLifecycleHooks,
	ExternalSecretsProxy,
	getAdditionalKeys,
	getHtmlSandboxCSP,
	HookContext,
	isWebhookHtmlSandboxingDisabled,
	RoutingNode,
	WebhookContext,
	WorkflowExecute,
} from 'n8n-core';
import type {
	ExecutionBaseError,
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialsDecrypted,
	ICredentialsEncrypted,
	ICredentialsExpressionResolveValues,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	EngineRequest,
	EngineResponse,
	IConnections,
	IExecuteData,
	IExecuteFunctions,
	IHttpRequestHelper,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IRequestOptionsSimplified,
	IRun,
	IRunData,
	IRunExecutionData,
	ITaskData,
	IVersionedNodeType,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	IWorkflowBase,
	IWorkflowDataProxyAdditionalKeys,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	createRunExecutionData,
	ExecutionBaseError as ExecutionBaseErrorClass,
	Expression,
	getCredentialOwnRequestAllowedDomains,
	ICredentialsHelper,
	isExpression,
	NodeConnectionTypes,
	NodeHelpers,
	UserError,
	Workflow,
} from 'n8n-workflow';

// ---------------------------------------------------------------------------------------------
// One-time engine setup
// ---------------------------------------------------------------------------------------------

/** Package name used as the node type prefix, like n8n does for community packages. */
const PACKAGE_NAME: string = (() => {
	try {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		return (require('../../package.json') as { name: string }).name;
	} catch {
		return 'n8n-nodes-harness';
	}
})();

export const HARNESS_WORKFLOW_ID = 'HarnessWorkflow1';
export const DEFAULT_WEBHOOK_ID = '0b1c2d3e-4f50-4a61-8b72-9c8d7e6f5a40';
const START_NODE_TYPE = 'n8n-nodes-harness.harnessStart';

let engineReady = false;

/**
 * Prepares n8n-core once per jest worker. The environment (user folder for
 * `InstanceSettings`, log level) is set by ./engine-env before n8n-core loads; here the
 * expression engine is pinned to `legacy`.
 */
export function setupEngine(): void {
	if (engineReady) return;
	engineReady = true;
	// `legacy` = tournament in the same V8 isolate (n8n-workflow's default engine). The `vm`
	// engine would need isolated-vm's native addon (not built; wants Node 24).
	Expression.setExpressionEngine('legacy');
}

// ---------------------------------------------------------------------------------------------
// Node types
// ---------------------------------------------------------------------------------------------

/** The harness-owned start node: behaves like n8n's Manual Trigger (passes its input on). */
class HarnessStart implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Harness Start',
		name: 'harnessStart',
		group: ['trigger'],
		version: 1,
		description: 'Emits the items given to the harness',
		defaults: { name: 'Harness Start' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}

type AnyNodeType = INodeType | IVersionedNodeType;

function nodeTypeName(node: AnyNodeType): string {
	return `${PACKAGE_NAME}.${node.description.name}`;
}

function isVersioned(node: AnyNodeType): node is IVersionedNodeType {
	return 'nodeVersions' in node;
}

function defaultTypeVersion(node: AnyNodeType): number {
	if (isVersioned(node)) return node.currentVersion ?? node.description.defaultVersion ?? 1;
	const { version } = node.description;
	return Array.isArray(version) ? Math.max(...version) : version;
}

/** Receives the error the node's execute() threw (the engine only keeps a flattened copy). */
interface ErrorSink {
	thrown?: unknown;
}

/**
 * The same node type, with execute() observed: the error it throws is noted and rethrown
 * unchanged. Everything else (description, methods, prototype chain) is the original.
 */
function observeExecute(type: INodeType, sink: ErrorSink): INodeType {
	const original = type.execute;
	if (typeof original !== 'function') return type;
	const observed = Object.create(type) as INodeType;
	observed.execute = async function (this: IExecuteFunctions, ...args: unknown[]) {
		try {
			return await (original as (...a: unknown[]) => Promise<INodeExecutionData[][] | null>).apply(
				this,
				args,
			);
		} catch (error) {
			sink.thrown = error;
			throw error;
		}
	} as INodeType['execute'];
	return observed;
}

class HarnessNodeTypes implements INodeTypes {
	private readonly types: Record<string, AnyNodeType> = {};

	private readonly observed = new Map<string, INodeType>();

	constructor(
		nodes: AnyNodeType[],
		private readonly sink?: ErrorSink,
	) {
		this.types[START_NODE_TYPE] = new HarnessStart();
		for (const node of nodes) this.types[nodeTypeName(node)] = node;
	}

	getByName(nodeType: string): AnyNodeType {
		const type = this.types[nodeType];
		if (!type) throw new UserError(`Harness: unknown node type "${nodeType}"`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		const type = NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
		if (!this.sink || nodeType === START_NODE_TYPE) return type;
		const key = `${nodeType}@${String(version)}`;
		let observed = this.observed.get(key);
		if (!observed) {
			observed = observeExecute(type, this.sink);
			this.observed.set(key, observed);
		}
		return observed;
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

// ---------------------------------------------------------------------------------------------
// Credentials
// ---------------------------------------------------------------------------------------------

function deepCopy<T>(value: T): T {
	return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** What the harness stores per credential type; a stand-in for n8n's credentials table. */
class StoredCredentials implements ICredentials {
	id?: string;

	name: string;

	type: string;

	data: string | undefined = undefined;

	constructor(
		details: INodeCredentialsDetails,
		type: string,
		private readonly store: CredentialStore,
	) {
		this.id = details.id ?? undefined;
		this.name = details.name;
		this.type = type;
	}

	async getData(): Promise<ICredentialDataDecryptedObject> {
		return deepCopy(this.store.get(this.type) ?? {});
	}

	getDataToSave(): ICredentialsEncrypted {
		return { id: this.id, name: this.name, type: this.type, data: undefined };
	}

	async setData(data: ICredentialDataDecryptedObject): Promise<void> {
		this.store.set(this.type, data);
	}

	async updateData(
		toUpdate: Partial<ICredentialDataDecryptedObject>,
		toDelete: string[] = [],
	): Promise<void> {
		const next = { ...(this.store.get(this.type) ?? {}), ...toUpdate } as IDataObject;
		for (const key of toDelete) delete next[key];
		this.store.set(this.type, next as ICredentialDataDecryptedObject);
	}
}

const credentialMockNode: INode = {
	id: 'harness-credential-mock',
	name: '',
	typeVersion: 1,
	type: 'mock',
	position: [0, 0],
	parameters: {},
};

const credentialMockNodeTypes: INodeTypes = {
	getByName: () => ({ description: { properties: [] } }) as unknown as INodeType,
	getByNameAndVersion: () => ({ description: { properties: [] } }) as unknown as INodeType,
	getKnownTypes: () => ({}),
};

/**
 * A real `ICredentialsHelper` holding decrypted credential data per credential type.
 * Behaviour follows n8n's CLI `CredentialsHelper`; no database, no encryption, no
 * overwrites, no external secrets.
 */
export class CredentialStore extends ICredentialsHelper {
	private readonly types = new Map<string, ICredentialType>();

	private readonly data = new Map<string, ICredentialDataDecryptedObject>();

	/** How many times a credential type's `preAuthentication` function actually ran. */
	preAuthCalls = 0;

	/** The same, per credential type name. */
	preAuthCallsByType: Record<string, number> = {};

	/** Forced refreshes (preAuthentication called with credentialsExpired = true, e.g. after a 401). */
	preAuthForcedCalls = 0;

	/** How many requests were authenticated (authenticate() calls), per credential type name. */
	authenticateCallsByType: Record<string, number> = {};

	/** Every `updateCredentials` write, in order (what n8n would save to its database). */
	readonly updates: Array<{ type: string; data: ICredentialDataDecryptedObject }> = [];

	constructor(
		credentialTypes: ICredentialType[] = [],
		credentials: Record<string, ICredentialDataDecryptedObject> = {},
	) {
		super();
		for (const type of credentialTypes) this.addType(type);
		for (const [type, data] of Object.entries(credentials)) this.set(type, data);
	}

	addType(type: ICredentialType): void {
		this.types.set(type.name, type);
	}

	hasType(name: string): boolean {
		return this.types.has(name);
	}

	/** Current stored (raw, as saved) data of a credential type. */
	get(type: string): ICredentialDataDecryptedObject | undefined {
		const value = this.data.get(type);
		return value === undefined ? undefined : deepCopy(value);
	}

	set(type: string, data: ICredentialDataDecryptedObject): void {
		this.data.set(type, deepCopy(data));
	}

	/** Names of credential types that have data in the store. */
	storedTypes(): string[] {
		return [...this.data.keys()];
	}

	getType(name: string): ICredentialType {
		const type = this.types.get(name);
		if (!type) {
			throw new UserError(
				`Harness: credential type "${name}" is unknown; pass an instance in credentialTypes`,
			);
		}
		return type;
	}

	getParentTypes(name: string): string[] {
		const type = this.types.get(name);
		if (!type?.extends) return [];
		const parents: string[] = [];
		for (const parent of type.extends) {
			parents.push(parent, ...this.getParentTypes(parent));
		}
		return parents;
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		const type = this.types.get(credentialType);
		if (!type?.restrictToSupportedNodes) return true;
		const supported = (type.supportedNodes ?? []).map((n) =>
			n.includes('.') ? n : `${PACKAGE_NAME}.${n}`,
		);
		return supported.includes(nodeType);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incomingRequestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		this.authenticateCallsByType[typeName] = (this.authenticateCallsByType[typeName] ?? 0) + 1;
		const requestOptions = incomingRequestOptions as IHttpRequestOptions;
		const { authenticate } = this.getType(typeName);
		if (!authenticate) return requestOptions;
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions);
		}
		if (!workflow || !node) {
			throw new UserError('Workflow and node are required for declarative credential authentication');
		}
		if (requestOptions.headers === undefined) requestOptions.headers = {};
		if (authenticate.type === 'generic') {
			const target = requestOptions as unknown as Record<string, Record<string, unknown>>;
			for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
				for (const [key, value] of Object.entries(outerValue as Record<string, string>)) {
					const keyResolved = this.resolveValue(key, credentials, workflow, node);
					const valueResolved = this.resolveValue(value, credentials, workflow, node);
					if (!target[outerKey]) target[outerKey] = {};
					target[outerKey][keyResolved] = valueResolved;
				}
			}
		}
		return requestOptions;
	}

	private resolveValue(
		value: string,
		credentials: ICredentialDataDecryptedObject,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(value)) return value;
		const resolved = workflow.expression.getSimpleParameterValue(
			node,
			value,
			'internal',
			{ $credentials: credentials } as IWorkflowDataProxyAdditionalKeys,
			undefined,
			'',
		);
		if (!resolved) return '';
		return String(resolved);
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = this.getType(typeName);
		const expirableProperty = credentialType.properties.find(
			(property) => property.type === 'hidden' && property?.typeOptions?.expirable === true,
		);
		if (expirableProperty?.name === undefined) return undefined;

		// n8n treats its credential-test temp node (noOp with temp === '') as "always log in".
		const isTestingCredentials =
			node?.parameters?.temp === '' && node?.type === 'n8n-nodes-base.noOp';

		if (typeof credentialType.preAuthentication !== 'function') return undefined;
		if (
			credentials[expirableProperty.name] !== '' &&
			!credentialsExpired &&
			!isTestingCredentials
		) {
			return undefined;
		}

		this.preAuthCalls++;
		this.preAuthCallsByType[typeName] = (this.preAuthCallsByType[typeName] ?? 0) + 1;
		if (credentialsExpired) this.preAuthForcedCalls++;
		const output = (await credentialType.preAuthentication.call(
			restrictToCredentialDomains(helpers, credentials),
			credentials,
		)) as ICredentialDataDecryptedObject;

		// Like n8n: only an output carrying the expirable property is stored and used.
		if (output?.[expirableProperty.name] === undefined) return undefined;

		if (node.credentials) {
			const nodeCredentials = node.credentials[credentialType.name];
			const stored = await (await this.getCredentials(nodeCredentials, credentialType.name)).getData();
			const dataToPersist: ICredentialDataDecryptedObject = { ...stored };
			for (const [key, value] of Object.entries(output)) {
				if (key === expirableProperty.name || !isExpression(stored[key])) dataToPersist[key] = value;
			}
			await this.updateCredentials(nodeCredentials, credentialType.name, dataToPersist);
			return Object.assign(credentials, output);
		}
		return undefined;
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = this.getType(typeName);
		if (typeof credentialType.preAuthentication !== 'function') return undefined;
		const output = await credentialType.preAuthentication.call(
			restrictToCredentialDomains(helpers, credentials),
			credentials,
		);
		return (output as ICredentialDataDecryptedObject) ?? undefined;
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string): Promise<ICredentials> {
		if (!this.data.has(type)) {
			throw new UserError(
				`Harness: no data for credential type "${type}"; pass it in credentials.${type}`,
			);
		}
		return new StoredCredentials(nodeCredentials ?? { id: null, name: type }, type, this);
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = this.data.get(type);
		if (stored === undefined) {
			throw new UserError(
				`Harness: no data for credential type "${type}"; pass it in credentials.${type}`,
			);
		}
		if (raw === true) return deepCopy(stored);
		return this.applyDefaultsAndExpressions(
			additionalData,
			deepCopy(stored),
			type,
			mode,
			executeData,
			expressionResolveValues,
		);
	}

	/** Like n8n's `applyDefaultsAndOverwrites` (without overwrites). */
	applyDefaultsAndExpressions(
		additionalData: IWorkflowExecuteAdditionalData,
		original: ICredentialDataDecryptedObject,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): ICredentialDataDecryptedObject {
		const properties = this.getCredentialsProperties(type);
		let decrypted = NodeHelpers.getNodeParameters(
			properties,
			original as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		if (original.oauthTokenData !== undefined) decrypted.oauthTokenData = original.oauthTokenData;

		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		if (expressionResolveValues) {
			try {
				decrypted = expressionResolveValues.workflow.expression.getParameterValue(
					decrypted as INodeParameters,
					expressionResolveValues.runExecutionData,
					expressionResolveValues.runIndex,
					expressionResolveValues.itemIndex,
					expressionResolveValues.node.name,
					expressionResolveValues.connectionInputData,
					mode,
					additionalKeys,
					executeData,
					false,
					decrypted,
				) as ICredentialDataDecryptedObject;
			} catch (e) {
				(e as Error).message += ' [Error resolving credentials]';
				throw e;
			}
		} else {
			const workflow = new Workflow({
				nodes: [credentialMockNode],
				connections: {},
				active: false,
				nodeTypes: credentialMockNodeTypes,
			});
			decrypted = workflow.expression.getComplexParameterValue(
				credentialMockNode,
				decrypted as INodeParameters,
				mode,
				additionalKeys,
				undefined,
				undefined,
				decrypted,
			) as ICredentialDataDecryptedObject;
		}
		return decrypted;
	}

	async updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.set(type, data);
		this.updates.push({ type, data: deepCopy(data) });
	}

	async updateCredentialsOauthTokenData(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		const next = { ...(this.data.get(type) ?? {}), oauthTokenData: data.oauthTokenData };
		this.set(type, next as ICredentialDataDecryptedObject);
		this.updates.push({ type, data: deepCopy(next as ICredentialDataDecryptedObject) });
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const credentialType = this.getType(type);
		if (credentialType.extends === undefined) return credentialType.properties;
		const combined: INodeProperties[] = [];
		for (const parent of credentialType.extends) {
			if (this.types.has(parent)) {
				NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
			}
		}
		NodeHelpers.mergeNodeProperties(combined, credentialType.properties);
		return combined;
	}
}

/** As n8n does: a preAuthentication hook only gets `httpRequest`, limited to the credential's allowed domains. */
function restrictToCredentialDomains(
	helpers: IHttpRequestHelper,
	credentials: ICredentialDataDecryptedObject,
): IHttpRequestHelper {
	return {
		helpers: {
			httpRequest: async (requestOptions: IHttpRequestOptions): Promise<unknown> => {
				const allowedDomains = getCredentialOwnRequestAllowedDomains(credentials);
				if (allowedDomains === undefined) return await helpers.helpers.httpRequest(requestOptions);
				if (requestOptions.allowedDomains !== undefined) {
					throw new UserError(
						'This credential restricts requests to specific domains, which cannot be combined with the domains its authentication step asks for.',
					);
				}
				return await helpers.helpers.httpRequest({ ...requestOptions, allowedDomains });
			},
		},
	} as IHttpRequestHelper;
}

// ---------------------------------------------------------------------------------------------
// Additional data, workflow
// ---------------------------------------------------------------------------------------------

interface BaseUrls {
	webhookBaseUrl: string;
	webhookTestBaseUrl: string;
}

const defaultBaseUrls: BaseUrls = {
	webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
	webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
};

/** n8n gives every execution its own id; nodes may key per-execution memory by it. */
let lastExecutionId = 0;

function buildAdditionalData(
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

function buildStore(
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

function nodeNameFor(node: AnyNodeType): string {
	const defaults = node.description as Partial<INodeTypeDescription>;
	return defaults.defaults?.name ?? node.description.displayName;
}

function buildNode(
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

// ---------------------------------------------------------------------------------------------
// runNode
// ---------------------------------------------------------------------------------------------

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
}

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
		...(opts.typeVersion !== undefined ? { typeVersion: opts.typeVersion } : {}),
		...(onError ? { onError } : {}),
		...(opts.retryOnFail !== undefined ? { retryOnFail: opts.retryOnFail } : {}),
		...(opts.maxTries !== undefined ? { maxTries: opts.maxTries } : {}),
		...(opts.waitBetweenTries !== undefined ? { waitBetweenTries: opts.waitBetweenTries } : {}),
	});
	const startNode: INode = {
		id: 'harness-start',
		name: nodeUnderTest.name === 'Harness Start' ? 'Harness Start 1' : 'Harness Start',
		type: START_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};

	const staticData: IDataObject = {};
	const nodeStaticKey = `node:${nodeUnderTest.name}`;
	if (opts.staticData) staticData[nodeStaticKey] = deepCopy(opts.staticData);

	const connections = {
		[startNode.name]: {
			main: [[{ node: nodeUnderTest.name, type: NodeConnectionTypes.Main, index: 0 }]],
		},
	};
	const sink: ErrorSink = {};
	const nodeTypes = new HarnessNodeTypes([opts.node], sink);
	const workflow = new Workflow({
		id: HARNESS_WORKFLOW_ID,
		name: 'Engine harness',
		nodes: [startNode, nodeUnderTest],
		connections,
		active: false,
		nodeTypes,
		staticData,
		settings: { executionOrder: 'v1' },
	});

	const workflowData = {
		id: HARNESS_WORKFLOW_ID,
		name: 'Engine harness',
		active: false,
		isArchived: false,
		nodes: [startNode, nodeUnderTest],
		connections,
		settings: { executionOrder: 'v1' },
		createdAt: new Date(),
		updatedAt: new Date(),
	} as unknown as IWorkflowBase;
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
			run: { data: runExecutionData, mode, startedAt: new Date(), status: 'error' } as unknown as IRun,
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

function replaceContents(target: IDataObject, source: IDataObject): void {
	for (const key of Object.keys(target)) delete target[key];
	Object.assign(target, source);
}

// ---------------------------------------------------------------------------------------------
// runAgentTool: the node as an AI Agent's tool, run the two ways n8n runs tools
// ---------------------------------------------------------------------------------------------

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
	const hasResourceOrOperation = base.properties.some((p) => p.name === 'resource' || p.name === 'operation');
	if (!base.properties.some((p) => p.name === 'toolDescription')) {
		const toolDescription: INodeProperties = {
			displayName: 'Description',
			name: 'toolDescription',
			type: 'string',
			default: base.description,
			required: true,
			typeOptions: { rows: 2 },
			...(hasResourceOrOperation ? { displayOptions: { show: { descriptionType: ['manual'] } } } : {}),
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
	if (task?.error) return JSON.stringify({ error: task.error.message ?? 'Unknown error', ...(task.error.name ? { errorType: task.error.name } : {}) });
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
		const connected = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as ToolLike[] | ToolLike;
		const tool = Array.isArray(connected) ? connected[0] : connected;
		const seen: ToolSeen = {
			name: tool.name,
			description: tool.description,
			arguments: Object.entries(tool.schema?.shape ?? {}).map(([key, value]) => ({ key, description: value?.description })),
		};
		if (script.via === 'supplyData') {
			const observations: string[] = [];
			for (const args of script.toolCalls) {
				try {
					observations.push(String(await tool.invoke(args)));
				} catch (error) {
					observations.push(`Error: ${(error as Error).message}`);
				}
			}
			return [[{ json: { observations, tool: seen } as unknown as IDataObject }]];
		}
		const observations = [...((response?.metadata?.observations as string[] | undefined) ?? [])];
		for (const result of response?.actionResponses ?? []) observations.push(observationOf(result.data));
		if (observations.length < script.toolCalls.length) {
			const index = observations.length;
			return {
				actions: [
					{
						actionType: 'ExecutionNodeAction',
						nodeName: String(tool.metadata?.sourceNodeName),
						input: script.toolCalls[index],
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
			inputs: [NodeConnectionTypes.Main, { type: NodeConnectionTypes.AiTool, displayName: 'Tools', required: true }],
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

	private readonly tool: INodeType;

	constructor(node: INodeType, script: AgentScript, sink: ErrorSink, invocations: ToolInvocation[]) {
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
	/** The arguments of each tool call the model makes, in order (keys = the `$fromAI()` keys). */
	toolCalls: IDataObject[];
	/** How n8n runs the tool (see HarnessAgent); default `engineRequest`, the AI Agent v3. */
	via?: 'engineRequest' | 'supplyData';
	/** The tool node's name (the model sees it as the tool name). Default: the node's default name. */
	nodeName?: string;
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

/**
 * Runs Harness Start → Harness Agent, with the node under test connected to the agent as its
 * tool (`ai_tool` connection), in one execution of n8n-core's WorkflowExecute.
 */
export async function runAgentTool(opts: AgentToolOptions): Promise<AgentToolResult> {
	setupEngine();
	const store = buildStore(opts.credentialTypes, opts.credentials);
	const sink: ErrorSink = {};
	const invocations: ToolInvocation[] = [];
	const script: AgentScript = { toolCalls: opts.toolCalls, via: opts.via ?? 'engineRequest' };
	const nodeTypes = new AgentToolNodeTypes(opts.node, script, sink, invocations);
	const toolType = toolVariantOf(opts.node);
	const toolNode = buildNode(toolType, opts.parameters, store, {
		id: 'harness-tool',
		name: opts.nodeName ?? nodeNameFor(opts.node),
		...(opts.retryOnFail !== undefined ? { retryOnFail: opts.retryOnFail } : {}),
		...(opts.maxTries !== undefined ? { maxTries: opts.maxTries } : {}),
		...(opts.waitBetweenTries !== undefined ? { waitBetweenTries: opts.waitBetweenTries } : {}),
		...(opts.onError ? { onError: opts.onError } : {}),
	});
	const startNode: INode = { id: 'harness-start', name: 'Harness Start', type: START_NODE_TYPE, typeVersion: 1, position: [0, 0], parameters: {} };
	const agentNode: INode = {
		id: 'harness-agent',
		name: 'Harness Agent',
		type: AGENT_NODE_TYPE,
		typeVersion: 1,
		position: [200, 0],
		parameters: {},
	};
	const connections: IConnections = {
		[startNode.name]: { main: [[{ node: agentNode.name, type: NodeConnectionTypes.Main, index: 0 }]] },
		[toolNode.name]: { [NodeConnectionTypes.AiTool]: [[{ node: agentNode.name, type: NodeConnectionTypes.AiTool, index: 0 }]] },
	};
	const nodes = [startNode, agentNode, toolNode];
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
	const mode: WorkflowExecuteMode = 'manual';
	const hooks = new ExecutionLifecycleHooks(mode, '1', workflowData);
	const additionalData = buildAdditionalData(store, defaultBaseUrls, hooks);
	// Every execution has its own id in n8n; nodes may keep per-execution memory by it.
	additionalData.executionId = `agent-${++agentExecutions}`;
	const runExecutionData: IRunExecutionData = createRunExecutionData({
		executionData: { nodeExecutionStack: [{ node: startNode, data: { main: [[{ json: {} }]] }, source: null }] },
	});
	const run = await new WorkflowExecute(additionalData, mode, runExecutionData).processRunExecutionData(workflow);
	const runData = run.data.resultData.runData;
	const agentOutput = runData[agentNode.name]?.[0]?.data?.main?.[0]?.[0]?.json as
		| { observations: string[]; tool: ToolSeen }
		| undefined;
	const recordedError = run.data.resultData.error;
	return {
		observations: agentOutput?.observations ?? [],
		tool: agentOutput?.tool,
		invocations,
		error: recordedError ? ((sink.thrown as Error | undefined) ?? recordedError) : undefined,
		runData,
		credentialStore: store,
		run,
		toolNodeName: toolNode.name,
	};
}

// ---------------------------------------------------------------------------------------------
// Credential test (declarative `test` request), like n8n's CredentialsTester
// ---------------------------------------------------------------------------------------------

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
		const cause = (error as { cause?: { response?: { status: number; statusText?: string }; code?: string } })
			.cause;
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

// ---------------------------------------------------------------------------------------------
// Webhook helpers
// ---------------------------------------------------------------------------------------------

interface TriggerSetup {
	workflow: Workflow;
	node: INode;
	nodeType: INodeType;
	store: CredentialStore;
	staticKey: string;
}

function buildTriggerWorkflow(
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
function getNodeWebhooks(
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

// ---------------------------------------------------------------------------------------------
// runWebhookMethod
// ---------------------------------------------------------------------------------------------

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
	const mode: WorkflowExecuteMode = opts.mode ?? (opts.method === 'delete' ? 'internal' : 'trigger');
	const isTest = mode === 'manual';
	const base = stripTrailingSlash(opts.webhookBaseUrl);
	const additionalData = buildAdditionalData(store, { webhookBaseUrl: base, webhookTestBaseUrl: base });
	const webhooks = getNodeWebhooks(workflow, node, nodeType, additionalData);
	const webhookData = opts.webhookName
		? webhooks.find((w) => w.webhookDescription.name === opts.webhookName)
		: webhooks[0];
	if (!webhookData) throw new UserError(`Harness: node "${node.name}" has no webhook to run ${opts.method} for`);
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
	return { result, error, credentialStore: store, webhookUrl: context.getNodeWebhookUrl(webhookData.webhookDescription.name) };
}

// ---------------------------------------------------------------------------------------------
// startWebhookServer
// ---------------------------------------------------------------------------------------------

export interface WebhookServerOptions {
	node: INodeType | IVersionedNodeType;
	credentialTypes: ICredentialType[];
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	parameters: INodeParameters;
	/** The node's static data object, as create() left it. */
	staticData: IDataObject;
	webhookId?: string;
	/**
	 * false (default, n8n 2.x behaviour): each webhook() call gets a fresh deep copy of
	 * `staticData`; what webhook() writes is dropped. true (n8n 1.x): one shared object,
	 * mutated in place, so `staticData` shows what webhook() wrote.
	 */
	persistStaticData?: boolean;
	/**
	 * Like n8n's N8N_PROXY_HOPS (express `trust proxy` = hops): with N > 0, `req.ip` /
	 * `req.ips` come from `X-Forwarded-For`, trusting N proxies. Default 0: `req.ip` is the
	 * socket address (127.0.0.1 in tests).
	 */
	proxyHops?: number;
	typeVersion?: number;
	credentialStore?: CredentialStore;
}

export interface WebhookCall {
	method: string;
	url: string;
	/** HTTP status the harness (or the node) answered with. */
	statusCode: number;
	/** What webhook() returned (undefined if it threw). */
	response?: IWebhookResponseData;
	/** The error webhook() threw, if any. */
	error?: Error;
}

export interface WebhookServer {
	/** The node's production webhook URL, e.g. `http://127.0.0.1:PORT/webhook/<webhookId>/webhook`. */
	url: string;
	/** `http://127.0.0.1:PORT/webhook` */
	baseUrl: string;
	/** workflowData of each webhook() call that started the workflow. */
	started: INodeExecutionData[][][];
	/** Number of requests that reached webhook(). */
	calls: number;
	/** Details of each request that reached webhook(). */
	log: WebhookCall[];
	credentialStore: CredentialStore;
	close(): Promise<void>;
}

/** Express's request additions that n8n nodes use (a small, explicit subset). */
type HarnessRequest = IncomingMessage & {
	body?: unknown;
	rawBody?: Buffer;
	query: IDataObject;
	params: Record<string, string>;
	path: string;
	originalUrl: string;
	ip?: string;
	ips: string[];
	hostname: string;
	protocol: string;
	secure: boolean;
	contentType?: string;
	encoding?: BufferEncoding;
	header(name: string): string | string[] | undefined;
	get(name: string): string | string[] | undefined;
	readRawBody(): Promise<void>;
};

type HarnessResponse = ServerResponse & {
	req: HarnessRequest;
	status(code: number): HarnessResponse;
	sendStatus(code: number): HarnessResponse;
	send(body?: unknown): HarnessResponse;
	json(body: unknown): HarnessResponse;
	set(field: string | Record<string, string>, value?: string | string[]): HarnessResponse;
	header(field: string | Record<string, string>, value?: string | string[]): HarnessResponse;
	type(contentType: string): HarnessResponse;
	get(field: string): string | number | string[] | undefined;
};

const MAX_BODY_BYTES = 16 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
		size += buffer.length;
		if (size > MAX_BODY_BYTES) throw new Error('request entity too large');
		chunks.push(buffer);
	}
	return Buffer.concat(chunks);
}

/** Express's `req.ip` / `req.ips` with `trust proxy` set to a hop count (proxy-addr semantics). */
function clientAddresses(raw: IncomingMessage, hops: number): { ip?: string; ips: string[] } {
	const socketAddress = raw.socket.remoteAddress;
	if (!hops || hops <= 0) return { ip: socketAddress, ips: [] };
	const forwarded = String(raw.headers['x-forwarded-for'] ?? '')
		.split(',')
		.map((part) => part.trim())
		.filter(Boolean)
		.reverse();
	const addresses = [socketAddress ?? '', ...forwarded];
	let trustedLength = addresses.length;
	for (let i = 0; i < addresses.length - 1; i++) {
		if (i >= hops) {
			trustedLength = i + 1;
			break;
		}
	}
	const trusted = addresses.slice(0, trustedLength);
	return { ip: trusted[trusted.length - 1], ips: trusted.slice(1).reverse() };
}

function decorateRequest(raw: IncomingMessage, proxyHops = 0): HarnessRequest {
	const req = raw as HarnessRequest;
	const url = new URL(raw.url ?? '/', 'http://127.0.0.1');
	const query: IDataObject = {};
	for (const [key, value] of Object.entries(parseQueryString(url.search.slice(1)))) {
		query[key] = value as string | string[];
	}
	req.query = query;
	req.params = {};
	req.path = url.pathname;
	req.originalUrl = raw.url ?? '/';
	const { ip, ips } = clientAddresses(raw, proxyHops);
	req.ip = ip;
	req.ips = ips;
	req.hostname = String(raw.headers.host ?? '127.0.0.1').replace(/:\d+$/, '');
	req.protocol = 'http';
	req.secure = false;
	req.header = (name: string) => {
		const lower = name.toLowerCase();
		if (lower === 'referer' || lower === 'referrer') return raw.headers.referer ?? raw.headers.referrer;
		return raw.headers[lower];
	};
	req.get = req.header;
	// n8n's rawBodyReader: content type/encoding from the headers, lazy raw body.
	parseIncomingMessage(req as unknown as Parameters<typeof parseIncomingMessage>[0]);
	req.readRawBody = async () => {
		if (!req.rawBody) req.rawBody = await readBody(raw);
	};
	return req;
}

function decorateResponse(raw: ServerResponse, req: HarnessRequest): HarnessResponse {
	const res = raw as HarnessResponse;
	res.req = req;
	res.status = (code: number) => {
		res.statusCode = code;
		return res;
	};
	res.set = (field, value) => {
		if (typeof field === 'object') {
			for (const [k, v] of Object.entries(field)) res.setHeader(k, v);
		} else if (value !== undefined) {
			res.setHeader(field, value);
		}
		return res;
	};
	res.header = res.set;
	res.get = (field: string) => res.getHeader(field);
	res.type = (contentType: string) => {
		res.setHeader('Content-Type', contentType.includes('/') ? contentType : `application/${contentType}`);
		return res;
	};
	res.json = (body: unknown) => {
		if (!res.getHeader('Content-Type')) res.setHeader('Content-Type', 'application/json; charset=utf-8');
		res.end(JSON.stringify(body));
		return res;
	};
	res.send = (body?: unknown) => {
		if (body === undefined || body === null) {
			res.end();
		} else if (Buffer.isBuffer(body)) {
			if (!res.getHeader('Content-Type')) res.setHeader('Content-Type', 'application/octet-stream');
			res.end(body);
		} else if (typeof body === 'string') {
			if (!res.getHeader('Content-Type')) res.setHeader('Content-Type', 'text/html; charset=utf-8');
			res.end(body);
		} else if (typeof body === 'number' || typeof body === 'boolean' || typeof body === 'object') {
			return res.json(body);
		}
		return res;
	};
	res.sendStatus = (code: number) => {
		res.statusCode = code;
		if (!res.getHeader('Content-Type')) res.setHeader('Content-Type', 'text/plain; charset=utf-8');
		res.end(String(code));
		return res;
	};
	return res;
}

function isParsableContentType(contentType: string | undefined): boolean {
	if (!contentType) return false;
	return (
		contentType.startsWith('application/json') ||
		contentType.startsWith('text/plain') ||
		contentType.startsWith('application/x-www-form-urlencoded') ||
		contentType.endsWith('/xml') ||
		contentType.endsWith('+xml')
	);
}

class UnprocessableBodyError extends Error {}

/**
 * n8n's webhook body handling (`parseRequestBody` + `parseBody`): typeVersion 1 nodes always
 * get the raw body read; JSON, form and text bodies are parsed into `req.body`; any other
 * body leaves `req.body` undefined (the bytes stay in `req.rawBody`). Newer typeVersions
 * skip reading non-parsable bodies altogether. XML is not parsed by the harness.
 */
async function parseWebhookBody(req: HarnessRequest, nodeVersion: number): Promise<void> {
	const { contentType } = req;
	if (contentType?.startsWith('multipart/')) {
		throw new UnprocessableBodyError('multipart/form-data bodies are not supported by the harness');
	}
	if (nodeVersion > 1 && !isParsableContentType(contentType)) return;
	await req.readRawBody();
	const { rawBody } = req;
	if (!rawBody?.length) return;
	const encoding = (req.encoding ?? 'utf-8') as BufferEncoding;
	try {
		if (contentType === 'application/json') {
			req.body = JSON.parse(rawBody.toString(encoding));
		} else if (contentType === 'application/x-www-form-urlencoded') {
			req.body = { ...parseQueryString(rawBody.toString(encoding), undefined, undefined, { maxKeys: 1000 }) };
		} else if (contentType === 'text/plain') {
			req.body = rawBody.toString(encoding);
		}
	} catch (error) {
		const e = new UnprocessableBodyError('Failed to parse request body');
		(e as Error & { hint?: string }).hint = (error as Error).message;
		throw e;
	}
}

function sendStatic(res: HarnessResponse, body: unknown, code: number): void {
	if (res.headersSent || res.writableEnded) return;
	res.status(code);
	if (!isWebhookHtmlSandboxingDisabled()) res.setHeader('Content-Security-Policy', getHtmlSandboxCSP());
	if (typeof body === 'string') res.send(body);
	else res.json(body);
}

function sendError(res: HarnessResponse, code: number, body: IDataObject): void {
	if (res.headersSent || res.writableEnded) return;
	res.status(code).json(body);
}

export async function startWebhookServer(opts: WebhookServerOptions): Promise<WebhookServer> {
	setupEngine();
	const store = buildStore(opts.credentialTypes, opts.credentials, opts.credentialStore);
	const sharedStaticData = opts.staticData;

	// Resolve the route once from a throw-away workflow (same as n8n's registration).
	const probe = buildTriggerWorkflow({ ...opts, credentialStore: store }, deepCopy(sharedStaticData));
	const webhookDescriptions = probe.nodeType.description.webhooks ?? [];
	if (webhookDescriptions.length === 0) {
		throw new UserError(`Harness: node "${probe.node.name}" has no webhooks`);
	}
	for (const description of webhookDescriptions) {
		const mode = description.responseMode ?? 'onReceived';
		if (typeof mode === 'string' && !mode.startsWith('=') && mode !== 'onReceived') {
			throw new UserError(
				`Harness: responseMode "${mode}" is not supported (only onReceived); the harness does not run the workflow after webhook()`,
			);
		}
	}

	const started: INodeExecutionData[][][] = [];
	const log: WebhookCall[] = [];
	const sockets = new Set<Socket>();
	let baseUrl = '';
	let routes: IWebhookData[] = [];
	const state = { calls: 0 };

	const handle = async (rawReq: IncomingMessage, rawRes: ServerResponse) => {
		const req = decorateRequest(rawReq, opts.proxyHops ?? 0);
		const res = decorateResponse(rawRes, req);
		const method = (req.method ?? 'GET').toUpperCase();
		const prefix = new URL(baseUrl).pathname + '/';
		const requestPath = req.path.startsWith(prefix)
			? decodeURIComponent(req.path.slice(prefix.length)).replace(/\/$/, '')
			: undefined;
		const route = routes.find((r) => r.path === requestPath && r.httpMethod === method);
		if (!route) {
			const pathKnown = routes.some((r) => r.path === requestPath);
			sendError(res, 404, {
				code: 404,
				message: pathKnown
					? `This webhook is not registered for ${method} requests.`
					: `The requested webhook "${method} ${requestPath ?? req.path}" is not registered.`,
			});
			return;
		}

		// The per-request workflow, as n8n loads it (with the saved static data).
		const staticData = opts.persistStaticData ? sharedStaticData : deepCopy(sharedStaticData);
		const { workflow, node, nodeType } = buildTriggerWorkflow(
			{ ...opts, credentialStore: store },
			staticData,
		);
		const webhookDescription: IWebhookDescription = route.webhookDescription;
		try {
			await parseWebhookBody(req, node.typeVersion);
		} catch (error) {
			const hint = (error as Error & { hint?: string }).hint;
			sendError(res, 422, {
				code: 422,
				message: (error as Error).message,
				...(hint ? { hint } : {}),
			});
			return;
		}

		const additionalData = buildAdditionalData(store, {
			webhookBaseUrl: baseUrl,
			webhookTestBaseUrl: baseUrl.replace(/\/webhook$/, '/webhook-test'),
		});
		additionalData.httpRequest = req as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
		additionalData.httpResponse = res as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
		const webhookData: IWebhookData = { ...route, workflowExecuteAdditionalData: additionalData };

		const responseCode =
			webhookDescription.responseCode === undefined
				? 200
				: Number(
						workflow.expression.getSimpleParameterValue(
							node,
							webhookDescription.responseCode,
							'webhook',
							{},
							undefined,
							200,
						) ?? 200,
					);
		const responseData =
			webhookDescription.responseData === undefined
				? undefined
				: workflow.expression.getComplexParameterValue(
						node,
						webhookDescription.responseData,
						'webhook',
						{},
						undefined,
						undefined,
					);

		state.calls++;
		const call: WebhookCall = { method, url: req.originalUrl, statusCode: 0 };
		log.push(call);
		let result: IWebhookResponseData;
		try {
			const context = new WebhookContext(workflow, node, additionalData, 'webhook', webhookData, [], null);
			result = (await nodeType.webhook!.call(context)) as IWebhookResponseData;
			call.response = result;
		} catch (error) {
			call.error = error as Error;
			sendError(res, 500, {
				code: 0,
				message: 'Workflow Webhook Error: Workflow could not be started!',
			});
			call.statusCode = res.statusCode;
			return;
		}

		if (result.workflowData !== undefined) {
			started.push(result.workflowData);
			if (result.noWebhookResponse !== true) {
				let body: unknown;
				if (responseData === 'noData') body = undefined;
				else if (responseData) body = responseData;
				else if (result.webhookResponse !== undefined) body = result.webhookResponse;
				else body = { message: 'Workflow was started' };
				sendStatic(res, body, responseCode);
			}
		} else if (result.noWebhookResponse !== true) {
			sendStatic(
				res,
				result.webhookResponse !== undefined ? result.webhookResponse : { message: 'Webhook call received' },
				responseCode,
			);
		}
		call.statusCode = res.statusCode;
	};

	const server: Server = createServer((req, res) => {
		handle(req, res).catch((error: Error) => {
			if (!res.headersSent) {
				res.statusCode = 500;
				res.setHeader('Content-Type', 'application/json; charset=utf-8');
				res.end(JSON.stringify({ code: 0, message: error.message }));
			} else {
				res.destroy(error);
			}
		});
	});
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	const { port } = server.address() as AddressInfo;
	baseUrl = `http://127.0.0.1:${port}/webhook`;

	const routeAdditionalData = buildAdditionalData(store, {
		webhookBaseUrl: baseUrl,
		webhookTestBaseUrl: baseUrl,
	});
	routes = getNodeWebhooks(probe.workflow, probe.node, probe.nodeType, routeAdditionalData);
	const url = `${baseUrl}/${routes[0].path}`;

	return {
		url,
		baseUrl,
		started,
		get calls() {
			return state.calls;
		},
		log,
		credentialStore: store,
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
