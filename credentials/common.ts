import type { ICredentialTestRequest, INodeProperties } from 'n8n-workflow';

/** What both credentials share: the service's address, the icon and the read-only test call. */

export const icon = {
	light: 'file:../nodes/CisAutoCall/cisAutoCall.svg',
	dark: 'file:../nodes/CisAutoCall/cisAutoCall.dark.svg',
} as const;

export const baseUrlProperty: INodeProperties = {
	displayName: 'Base URL',
	name: 'baseUrl',
	type: 'string',
	default: 'https://twin24.ai',
	placeholder: 'e.g. https://twin24.ai',
	description:
		'Address of the service without the API path; the node adds /cis/api/v1/... Use https://twin-ai.com for the international region.',
	required: true,
};

/** A documented list call that changes nothing; a rejected token answers 401/403. */
export const listOneTask: ICredentialTestRequest = {
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
