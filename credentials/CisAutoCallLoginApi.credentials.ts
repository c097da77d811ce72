import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	IHttpRequestHelper,
	INodeProperties,
} from 'n8n-workflow';

import { baseUrlProperty, icon, listOneTask } from './common';

export class CisAutoCallLoginApi implements ICredentialType {
	name = 'cisAutoCallLoginApi';

	displayName = 'CIS Auto-Call Login API';

	documentationUrl = 'https://github.com/cis-autocall/n8n-nodes-cis-autocall#credentials';

	icon = icon;

	properties: INodeProperties[] = [
		{
			displayName: 'Token',
			name: 'token',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
		baseUrlProperty,
		{
			displayName: 'Login URL',
			name: 'loginUrl',
			type: 'string',
			default: 'https://iam.twin24.ai/api/v1/auth/login',
			description: 'Where n8n logs in to get a token (and logs in again when the token expires)',
			required: true,
		},
		{
			displayName: 'Email',
			name: 'email',
			type: 'string',
			placeholder: 'e.g. nathan@example.com',
			default: '',
			required: true,
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
		},
		{
			displayName: 'Token Lifetime (Seconds)',
			name: 'ttl',
			type: 'number',
			typeOptions: { minValue: 60 },
			default: 86400,
			description: 'Lifetime asked for each token; n8n logs in again when the service says the token expired',
		},
	];

	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const loginUrl = String(credentials.loginUrl);
		let response: { token?: unknown };
		try {
			response = (await this.helpers.httpRequest({
				method: 'POST',
				url: loginUrl,
				body: {
					email: credentials.email,
					password: credentials.password,
					ttl: credentials.ttl,
				},
				json: true,
			})) as { token?: unknown };
		} catch (error) {
			// Rebuilt so that the request (which holds the password) never travels with the error.
			const status = (error as { httpCode?: string; response?: { status?: number } }).httpCode ??
				(error as { response?: { status?: number } }).response?.status;
			throw Object.assign(
				new Error(`Login at ${loginUrl} failed${status ? ` (HTTP ${status})` : ''}: check the email and password of the credential`),
				{ cisLoginFailed: true },
			);
		}
		if (typeof response?.token !== 'string' || response.token === '') {
			throw Object.assign(new Error(`Login at ${loginUrl} answered without a token`), { cisLoginFailed: true });
		}
		return { token: response.token };
	}

	// A function rather than the generic form: n8n then sets the header without running its
	// expression engine on every request, which at CRM volume costs as much as the request itself.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		requestOptions.headers = { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.token)}` };
		return requestOptions;
	}

	test: ICredentialTestRequest = listOneTask;
}
