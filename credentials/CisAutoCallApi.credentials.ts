import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { baseUrlProperty, icon, listOneTask, withBearerToken } from './common';

export class CisAutoCallApi implements ICredentialType {
	name = 'cisAutoCallApi';

	displayName = 'CIS Auto-Call API';

	documentationUrl = 'https://github.com/cis-autocall/n8n-nodes-cis-autocall#credentials';

	icon = icon;

	properties: INodeProperties[] = [
		baseUrlProperty,
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

	// A function rather than the generic form: n8n then sets the header without running its
	// expression engine on every request, which at CRM volume costs as much as the request itself.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return withBearerToken(credentials.baseUrl, String(credentials.accessToken), requestOptions);
	}

	test: ICredentialTestRequest = listOneTask;
}
