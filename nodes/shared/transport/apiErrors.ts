import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { allowingSetting, blockedAddress } from '../ssrfBlock';
import { maskUrlSecrets } from '../urlSecrets';
import { isPlainObject } from '../validation';
import { classify } from './classify';
import { MAX_WAIT_MS } from './retryPolicy';
import { API_PATH, type ApiRequest, type Failure, type RequestContext } from './types';

/** A failure as the NodeApiError the user reads: what happened, whether it may have been carried out, no secret. */

const HINT_BY_STATUS: Record<number, string> = {
	401: 'The access token is invalid or expired. Check the credential; the "CIS Auto-Call Login API" credential renews tokens by itself.',
	402: 'The service refused for a payment reason; check the account balance.',
	403: 'The token is not allowed to do this; check the permissions of the account.',
	404: 'That id does not exist on the service; check the id (a call, candidate or task id).',
	405: 'The service does not accept this request method here.',
	429: 'The service is receiving too many requests; lower "Max Requests per Second" or "Concurrency" in the options.',
};

const RENEWED_TOKEN_REJECTED =
	'The service rejected the token even after a fresh login. Check that the account may use the API and that the Base URL and the Login URL belong to the same service.';

const NOT_REPEATED =
	'It was not repeated, because repeating a creating request can call a person twice. Look at the task on the service (its candidates and calls) before running these items again.';

function serviceMessage(body: unknown): string | undefined {
	if (typeof body === 'string')
		return body.trim() === '' || /^\s*</.test(body) ? undefined : body.slice(0, 500);
	if (!isPlainObject(body)) return undefined;
	const error = body.error ?? body.message;
	const text =
		typeof error === 'string' ? error : error !== undefined ? JSON.stringify(error) : undefined;
	const details =
		body.details === undefined || body.details === null ? undefined : JSON.stringify(body.details);
	return [text, details].filter(Boolean).join(' ') || undefined;
}

/** The start of an answer, for an error: short, whitespace folded. */
function excerpt(body: unknown, max = 120): string | undefined {
	if (body === undefined || body === null || body === '') return undefined;
	const text = (typeof body === 'string' ? body : JSON.stringify(body)).replace(/\s+/g, ' ').trim();
	return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** `value` without the credential's secrets and without the `secret=` values of the URLs it quotes (urlSecrets.ts). */
function redact<T>(value: T, secrets: string[]): T {
	if (value === undefined) return value;
	const text = JSON.stringify(value);
	if (text === undefined || !secrets.some((secret) => text.includes(secret)))
		return maskUrlSecrets(value);
	let cleaned = text;
	for (const secret of secrets) cleaned = cleaned.split(secret).join('***');
	return maskUrlSecrets(JSON.parse(cleaned) as T);
}

export function toNodeApiError(
	context: RequestContext,
	request: ApiRequest,
	failure: Failure,
	{
		attempts,
		itemIndex,
		secrets = [],
		renewsToken = false,
		askedWaitMs,
	}: {
		attempts: number;
		itemIndex?: number;
		secrets?: string[];
		renewsToken?: boolean;
		askedWaitMs?: number;
	},
): NodeApiError {
	const { kind, outcomeUnknown: uncertain } = classify(request, failure);
	const endpoint = `${request.method} ${API_PATH}${request.path.split('?')[0]}`;
	const fromService = serviceMessage(failure.body);
	const quoted = excerpt(failure.body);
	const tried = attempts > 1 ? ` after ${attempts} attempts` : '';
	let message: string;
	let description: string;
	if (failure.unexpected !== undefined) {
		message = `Unexpected answer from the service to ${endpoint}: ${failure.status} with ${failure.unexpected}`;
		description = `The API promises another answer, so this is not a success. ${quoted ? `The answer began with: ${quoted}` : 'The answer was empty.'}`;
	} else if (failure.redirectHost !== undefined) {
		message = `The service answered ${failure.status} to ${endpoint}: a redirect to ${failure.redirectHost}, which n8n does not follow (nothing was sent there)`;
		description =
			'Redirects are not followed, so that the token and your data never reach another address. If the service has moved, set the Base URL of the credential to its new address.';
	} else if (failure.status) {
		message = `The service answered ${failure.status} to ${endpoint}${tried}${fromService ? `: ${fromService}` : ''}`;
		// In the words of the credential test (credentials/common.ts), which are also the README's.
		if (failure.status === 401)
			message = `The service refused the token (HTTP 401): it is wrong or has expired (${endpoint}${tried}${fromService ? `: ${fromService}` : ''})`;
		if (
			request.beyondSpec &&
			(failure.status === 405 || (kind === 'notFound' && !request.notFoundMeans))
		) {
			message = `This operation is not available on that server (${failure.status} for ${endpoint})`;
			description = 'Not every server of the service offers this operation, and this one does not.';
		} else if (kind === 'notFound' && request.notFoundMeans) {
			description = request.notFoundMeans;
		} else if (kind === 'refusedInput') {
			// the message quotes the service's reason already: said once
			description = fromService
				? 'The service refused the values of this request, so nothing was created.'
				: 'The service refused the request without a reason; nothing was created.';
		} else if (kind === 'unauthorized' && renewsToken) {
			description = RENEWED_TOKEN_REJECTED;
		} else {
			description =
				HINT_BY_STATUS[failure.status] ??
				(kind === 'serverError'
					? 'The service failed; try again later.'
					: "See the service's answer above.");
		}
	} else if (kind === 'loginFailed') {
		message = failure.message;
		description = /SSRF protection/.test(failure.message)
			? 'n8n could not get a token; nothing was sent to the service.'
			: 'n8n could not get a token; nothing was sent to the service. Check the Login URL, email and password of the credential.';
	} else if (kind === 'blockedByN8n' && failure.blocked) {
		const address = blockedAddress(failure.blocked);
		message = `Not sent: n8n's SSRF protection blocked the request to ${address} (${endpoint}); nothing reached the service`;
		description =
			`n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED) does not let nodes connect to ${address}, so the request never left n8n and nothing was created. ` +
			`To allow the service, the n8n administrator can ${allowingSetting(failure.blocked)} and restart n8n.`;
	} else if (kind === 'refusedByCredential') {
		message = failure.message;
		description =
			'The credential refused to send its token there; nothing was sent to the service. Check the Base URL of the credential.';
	} else {
		message = `No answer from the service for ${endpoint}${tried}: ${networkReason(failure)}`;
		description =
			'Check the Base URL of the credential and that the service is reachable from n8n.';
	}
	if (askedWaitMs !== undefined) {
		message = `The service answered ${failure.status} to ${endpoint} and asked to wait ${Math.ceil(askedWaitMs / 1000)} s before the next request, longer than the ${MAX_WAIT_MS / 1000} s this node waits`;
		description =
			'Nothing was carried out. Run these items again later, or lower "Max Requests per Second" or "Concurrency" in the options.';
	}
	if (uncertain) {
		const why =
			failure.unexpected !== undefined
				? `the service answered ${failure.status} with an unexpected body (${failure.unexpected})`
				: failure.redirectHost !== undefined
					? `the service answered ${failure.status}, a redirect to ${failure.redirectHost} that n8n does not follow`
					: failure.status
						? `the service answered ${failure.status} after the request was sent`
						: `${networkReason(failure)} after the request was sent`;
		message = `Outcome unknown for ${endpoint}${tried}: ${why}. It may have been created; check the task before running again`;
		const answer =
			failure.unexpected !== undefined
				? quoted
					? ` The answer began with: ${quoted}`
					: ' The answer was empty.'
				: fromService
					? ` The service said: ${fromService}`
					: '';
		description = `${NOT_REPEATED}${answer}`;
	}
	const errorBody: JsonObject = {
		httpCode: failure.status ? String(failure.status) : null,
		error: fromService ?? null,
	};
	if (failure.unexpected !== undefined) errorBody.body = quoted ?? null;
	else if (failure.body !== undefined)
		errorBody.body = (
			typeof failure.body === 'string' ? excerpt(failure.body, 1000) : failure.body
		) as JsonObject;
	const error = new NodeApiError(context.getNode(), redact(errorBody, secrets), {
		message: redact(message, secrets),
		description: redact(description, secrets),
		httpCode: failure.status ? String(failure.status) : undefined,
		itemIndex,
	});
	// NodeApiError swaps a message that contains a network code (ECONNRESET, ...) for a generic
	// sentence, which would drop the endpoint, the attempts and "outcome unknown".
	error.message = redact(message, secrets);
	// For the callers: whether a creating request may have been carried out (see errorMayHaveCarriedOut).
	error.context.outcomeUnknown = uncertain;
	const stated = uncertain
		? 'unknown'
		: kind === 'blockedByN8n' && failure.blocked && askedWaitMs === undefined
			? 'notSent'
			: undefined;
	if (stated) error.context.statedOutcome = stated;
	return error;
}

/**
 * What an error's message already says of the request's outcome: `notSent` (the node never sent it)
 * or `unknown` (it may have been carried out); undefined when the message says neither.
 */
export type StatedOutcome = 'notSent' | 'unknown';

export function statedOutcomeOf(error: unknown): StatedOutcome | undefined {
	if (!(error instanceof NodeApiError)) return undefined;
	const stated = error.context.statedOutcome;
	return stated === 'notSent' || stated === 'unknown' ? stated : undefined;
}

const NETWORK_REASONS: Record<string, string> = {
	ECONNREFUSED: 'the connection was refused',
	ENOTFOUND: 'the host name was not found',
	EAI_AGAIN: 'the host name could not be looked up',
	EHOSTUNREACH: 'the host is unreachable',
	ENETUNREACH: 'the network is unreachable',
	ETIMEDOUT: 'the request timed out',
	ECONNRESET: 'the connection was dropped',
	ECONNABORTED: 'the connection was aborted',
	EPIPE: 'the connection was dropped',
	EPROTO: 'the connection failed (protocol error)',
};

function networkReason(failure: Failure): string {
	const words = failure.code ? NETWORK_REASONS[failure.code] : undefined;
	if (words) return `${words} (${failure.code})`;
	return failure.code ?? (failure.message || 'no answer');
}

/**
 * `first` said again in other words (the run's or the item's), keeping its HTTP code: n8n shows the
 * message given, not one of its own for that code.
 */
export function restatedApiError(
	node: INode,
	first: NodeApiError,
	message: string,
	description: string,
	itemIndex?: number,
): NodeApiError {
	const error = new NodeApiError(node, { httpCode: first.httpCode, message } as JsonObject, {
		message,
		description,
		httpCode: first.httpCode ?? undefined,
		itemIndex,
	});
	error.message = message;
	return error;
}
