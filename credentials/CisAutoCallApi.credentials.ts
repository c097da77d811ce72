import type { ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

import { baseUrlProperty, bearerAuthentication, icon, listOneTask, secretProperty } from './common';

export class CisAutoCallApi implements ICredentialType {
	name = 'cisAutoCallApi';

	displayName = 'CIS Auto-Call API';

	documentationUrl = 'https://github.com/cis-autocall/n8n-nodes-cis-autocall#credentials';

	icon = icon;

	properties: INodeProperties[] = [
		baseUrlProperty,
		secretProperty({
			displayName: 'Access Token',
			name: 'accessToken',
			description:
				'Bearer token of the service. Tokens expire: to have n8n renew them, use the "CIS Auto-Call Login API" credential instead.',
		}),
	];

	authenticate = bearerAuthentication('accessToken');

	test: ICredentialTestRequest = listOneTask;
}
