import type { INodeCredentialDescription, INodeProperties } from 'n8n-workflow';

export const authenticationProperty: INodeProperties = {
	displayName: 'Authentication',
	name: 'authentication',
	type: 'options',
	options: [
		{
			name: 'Access Token',
			value: 'accessToken',
			description: 'A token pasted into the credential',
		},
		{
			name: 'Login (Email and Password)',
			value: 'login',
			description: 'N8n logs in and renews the token when it expires',
		},
	],
	default: 'accessToken',
};

export const credentialDescriptions: INodeCredentialDescription[] = [
	{
		name: 'cisAutoCallApi',
		required: true,
		displayOptions: { show: { authentication: ['accessToken'] } },
	},
	{
		name: 'cisAutoCallLoginApi',
		required: true,
		displayOptions: { show: { authentication: ['login'] } },
	},
];
