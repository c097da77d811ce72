import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { baseUrlProperty, icon, listOneTask } from './common';

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

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.accessToken}}',
			},
		},
	};

	test: ICredentialTestRequest = listOneTask;
}
