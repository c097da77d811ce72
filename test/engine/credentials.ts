/**
 * A real `ICredentialsHelper` that applies credential types the way n8n's CLI helper
 * (packages/cli/src/credentials-helper.ts) does: defaults and expressions in credential data,
 * function or generic `authenticate`, `preAuthentication` driven by a hidden `expirable` field,
 * results written back with `updateCredentials`.
 */
import './engine-env';

import { getAdditionalKeys } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialsEncrypted,
	ICredentialsExpressionResolveValues,
	ICredentialType,
	IDataObject,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRequestOptionsSimplified,
	IWorkflowDataProxyAdditionalKeys,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	getCredentialOwnRequestAllowedDomains,
	ICredentialsHelper,
	isExpression,
	NodeHelpers,
	UserError,
	Workflow,
} from 'n8n-workflow';
import { PACKAGE_NAME } from './setup';

export function deepCopy<T>(value: T): T {
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
			throw new UserError(
				'Workflow and node are required for declarative credential authentication',
			);
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
			const stored = await (
				await this.getCredentials(nodeCredentials, credentialType.name)
			).getData();
			const dataToPersist: ICredentialDataDecryptedObject = { ...stored };
			for (const [key, value] of Object.entries(output)) {
				if (key === expirableProperty.name || !isExpression(stored[key]))
					dataToPersist[key] = value;
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

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentials> {
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
