import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeProperties,
} from 'n8n-workflow';

import { displayUrl, insecureUrlProblem, redirectHost } from '../nodes/shared/serviceUrl';
import { allowingSetting, blockedAddress, ssrfBlockOf } from '../nodes/shared/ssrfBlock';
import { baseUrlProperty, icon, listOneTask, secretProperty, withBearerToken } from './common';

const LOGIN_URL_EXAMPLE = 'https://iam.twin24.ai/api/v1/auth/login';

export class CisAutoCallLoginApi implements ICredentialType {
	name = 'cisAutoCallLoginApi';

	displayName = 'CIS Auto-Call Login API';

	documentationUrl =
		'https://github.com/cis-autocall/n8n-nodes-cis-autocall/blob/main/docs/getting-started.md#credentials';

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
			default: LOGIN_URL_EXAMPLE,
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
		secretProperty({ displayName: 'Password', name: 'password' }),
		{
			displayName: 'Token Lifetime (Seconds)',
			name: 'ttl',
			type: 'number',
			typeOptions: { minValue: 60 },
			default: 86400,
			description:
				'Lifetime asked for each token; n8n logs in again when the service says the token expired',
		},
	];

	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const loginUrl = String(credentials.loginUrl ?? '').trim();
		const shown = displayUrl(loginUrl);
		const refused =
			insecureUrlProblem('Login URL', loginUrl) ??
			insecureUrlProblem('Base URL', credentials.baseUrl);
		if (refused) throw loginFailure(`${refused}. Nothing was sent.`);
		let response: IN8nHttpFullResponse;
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
				// A redirect would carry the password to wherever it points.
				disableFollowRedirect: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			})) as IN8nHttpFullResponse;
		} catch (error) {
			// Rebuilt so that the request (which holds the password) never travels with the error.
			const blocked = ssrfBlockOf(error, loginUrl);
			if (blocked) {
				throw loginFailure(
					`Login at ${shown} not sent: n8n's SSRF protection blocks ${blockedAddress(blocked)}, so nothing reached the service. To allow it, the n8n administrator can ${allowingSetting(blocked)} and restart n8n.`,
				);
			}
			throw loginFailure(
				`Login at ${shown} failed: no answer (${networkCode(error)}). Check the Login URL: the service's login address, such as ${LOGIN_URL_EXAMPLE}.`,
			);
		}
		const status = response.statusCode;
		if (status >= 300 && status < 400) {
			const host = redirectHost(response.headers?.location, loginUrl);
			throw loginFailure(
				`Login at ${shown} was answered with a redirect (HTTP ${status}) to ${host}; n8n does not follow redirects, so the password was not sent there. Set the Login URL to the address that answers itself.`,
			);
		}
		if (status < 200 || status >= 300) {
			throw loginFailure(
				status === 404
					? `Login at ${shown} failed (HTTP 404): nothing answers there. Set the Login URL to the service's login address, such as ${LOGIN_URL_EXAMPLE}.`
					: `Login at ${shown} failed (HTTP ${status}): check the email and password (the ones you sign in to the service with).`,
			);
		}
		const token = (response.body as { token?: unknown } | undefined)?.token;
		if (typeof token !== 'string' || token === '') {
			throw loginFailure(`Login at ${shown} answered without a token`);
		}
		return { token };
	}

	// A method, not a property: n8n offers "Custom API Call" for credentials whose serialized
	// type carries `authenticate`, an operation this node does not have.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return withBearerToken(credentials.baseUrl, String(credentials.token), requestOptions);
	}

	test: ICredentialTestRequest = listOneTask;
}

/** The login marks its own failures: no request of the node was sent, nothing to repeat. */
function loginFailure(message: string): Error {
	return Object.assign(new Error(message), { cisLoginFailed: true });
}

function networkCode(error: unknown): string {
	const outer = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
	const code = outer?.code ?? outer?.cause?.code;
	return typeof code === 'string' ? code : 'the connection failed';
}
