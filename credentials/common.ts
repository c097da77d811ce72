import type { ICredentialTestRequest, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { insecureUrlProblem } from '../nodes/shared/serviceUrl';

/**
 * What the credentials share: the icon, the secret fields; the two API credentials also the
 * service's address, the bearer header and the read-only test call.
 */

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
		'Address of the service without the API path; https://twin-ai.com for the international region',
	hint: "The node adds /cis/api/v1/... Only https:// is accepted (plain http:// only for this machine: localhost, 127.x.x.x, ::1). With plain http://, list localhost and 127.0.0.1 in n8n's NO_PROXY when HTTP_PROXY is set, or the token goes to the proxy unencrypted.",
	required: true,
};

/** A required text that n8n stores encrypted and shows as dots (a token, a password, a secret). */
export function secretProperty(
	field: Pick<INodeProperties, 'displayName' | 'name' | 'description' | 'hint'>,
): INodeProperties {
	return { ...field, type: 'string', typeOptions: { password: true }, default: '', required: true };
}

/** Marks an error of the credential's own checks: nothing was sent. */
function credentialRefusal(message: string): Error {
	return Object.assign(new Error(message), { cisRefused: true });
}

/**
 * Adds the bearer token to a request, and only to a request that goes to the Base URL's own
 * address over https (or loopback). Every request that carries the token is told not to follow
 * redirects: n8n would otherwise send the Authorization header on to wherever a 3xx points.
 * This also holds when another node (e.g. HTTP Request) uses this credential.
 */
export function withBearerToken(
	baseUrl: unknown,
	token: string,
	requestOptions: IHttpRequestOptions,
): IHttpRequestOptions {
	const problem =
		insecureUrlProblem('Base URL', baseUrl) ?? otherAddressProblem(String(baseUrl), requestOptions);
	if (problem) throw credentialRefusal(`${problem}. Nothing was sent.`);
	requestOptions.disableFollowRedirect = true;
	// The same for n8n's legacy request helper (request-promise options).
	Object.assign(requestOptions, { followRedirect: false, followAllRedirects: false });
	requestOptions.headers = { ...requestOptions.headers, Authorization: `Bearer ${token}` };
	return requestOptions;
}

function otherAddressProblem(
	baseUrl: string,
	requestOptions: IHttpRequestOptions,
): string | undefined {
	const legacy = requestOptions as IHttpRequestOptions & { uri?: unknown };
	const raw = requestOptions.url ?? legacy.uri;
	let target: URL;
	try {
		target = new URL(
			String(raw),
			requestOptions.baseURL ? String(requestOptions.baseURL) : undefined,
		);
	} catch {
		return 'The token is sent only to the Base URL, and the address of this request could not be read';
	}
	const allowed = new URL(baseUrl.trim()).origin;
	if (target.origin === allowed) return undefined;
	return `The token of this credential is sent only to its Base URL (${allowed}), not to ${target.origin}`;
}

const REDIRECT_MESSAGE =
	'n8n does not follow redirects, so that the token never reaches another address. Set the Base URL to the address the service really answers on.';

// What the credential test says: what is wrong, then what to do about it.
const TOKEN_REFUSED =
	'The service refused the token (HTTP 401): it is wrong or has expired. Log in to the service for a new token and paste it here, or use the "CIS Auto-Call Login API" credential, which renews it for you.';
const ACCOUNT_REFUSED =
	"The service refused the token (HTTP 403): this account may not use the API. Ask the service's support to allow API access for it.";
const NOTHING_AT_BASE_URL =
	"Nothing answered at this Base URL (HTTP 404). Give the service's address without any path, for example https://twin24.ai.";

/** A documented list call that changes nothing; a rejected token answers 401/403. */
export const listOneTask: ICredentialTestRequest = {
	request: {
		baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
		url: '/cis/api/v1/telephony/autoCall',
		qs: { limit: 1 },
		method: 'GET',
		disableFollowRedirect: true,
	},
	rules: [
		{ type: 'responseCode', properties: { value: 401, message: TOKEN_REFUSED } },
		{ type: 'responseCode', properties: { value: 403, message: ACCOUNT_REFUSED } },
		{ type: 'responseCode', properties: { value: 404, message: NOTHING_AT_BASE_URL } },
		...[301, 302, 303, 307, 308].map((status) => ({
			type: 'responseCode' as const,
			properties: {
				value: status,
				message: `The service answered with a redirect (HTTP ${status}); ${REDIRECT_MESSAGE}`,
			},
		})),
	],
};
