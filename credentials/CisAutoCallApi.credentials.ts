import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { baseUrlProperty, icon, listOneTask, secretProperty, withBearerToken } from './common';

export class CisAutoCallApi implements ICredentialType {
	name = 'cisAutoCallApi';

	displayName = 'CIS Auto-Call API';

	documentationUrl =
		'https://github.com/cis-autocall/n8n-nodes-cis-autocall/blob/main/docs/getting-started.md#credentials';

	icon = icon;

	properties: INodeProperties[] = [
		baseUrlProperty,
		secretProperty({
			displayName: 'Access Token',
			name: 'accessToken',
			description:
				'Bearer token of the service; tokens expire, so to have n8n renew them use the "CIS Auto-Call Login API" credential',
		}),
	];

	// A method, not a property: n8n offers "Custom API Call" for credentials whose serialized
	// type carries `authenticate`, an operation this node does not have.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return withBearerToken(credentials.baseUrl, String(credentials.accessToken), requestOptions);
	}

	test: ICredentialTestRequest = listOneTask;
}
