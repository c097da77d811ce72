import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class CisAutoCallApi implements ICredentialType {
	name = 'cisAutoCallApi';

	displayName = 'CIS Auto-Call API';

	documentationUrl = 'https://github.com/cis-autocall/n8n-nodes-cis-autocall#credentials';

	icon = {
		light: 'file:../nodes/CisAutoCall/cisAutoCall.svg',
		dark: 'file:../nodes/CisAutoCall/cisAutoCall.dark.svg',
	} as const;

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://twin24.ai',
			placeholder: 'e.g. https://twin24.ai',
			description:
				'Address of the service without the API path; the node adds /cis/api/v1/... Use https://twin-ai.com for the international region.',
			required: true,
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Bearer token of the service. Tokens expire: to have n8n renew them, use the "CIS Auto-Call Login API" credential instead.',
			required: true,
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.accessToken}}',
			},
		},
	};

	// A read-only, documented list call: a rejected token answers 401/403.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/cis/api/v1/telephony/autoCall',
			qs: { limit: 1 },
			method: 'GET',
		},
		rules: [
			{ type: 'responseCode', properties: { value: 401, message: 'Token rejected (HTTP 401): it is invalid or expired' } },
			{ type: 'responseCode', properties: { value: 403, message: 'Token rejected (HTTP 403): the account may not use the API' } },
		],
	};
}
