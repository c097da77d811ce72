import { NodeApiError } from 'n8n-workflow';

import {
	type Failure,
	LOGIN_FAILED_CODE,
	REFUSED_CODE,
	type Repeatability,
	SSRF_BLOCKED_CODE,
} from './types';

/**
 * The one place for the failure rules: for a request and what went wrong with it, whether it may
 * be repeated, how long the service asked to wait, whether its outcome is unknown, whether it is a
 * sign of overload and whether the login must be renewed. Pure, tested case by case. The client,
 * the adaptive concurrency, the error wording and the actions' retry memory all ask it; a new
 * failure rule goes here.
 */

/** What kind of failure an attempt met; callers that only care about a few kinds test for those. */
export type FailureKind =
	/** The login credential got no token: nothing was sent. */
	| 'loginFailed'
	/** The credential would not send its token to that address: nothing was sent. */
	| 'refusedByCredential'
	/** n8n's SSRF protection refused the address before connecting: nothing was sent, and a repeat meets the same block. */
	| 'blockedByN8n'
	/** A network error known to happen before sending (connection refused, host not found). */
	| 'unreachable'
	/** A network error after sending, or one not known to happen before (timeout, dropped connection). */
	| 'noAnswer'
	/** 401: the token was rejected. */
	| 'unauthorized'
	/** 404 */
	| 'notFound'
	/** 409 */
	| 'conflict'
	/** 400 or 422: the service refused the input. */
	| 'refusedInput'
	/** 429 */
	| 'tooManyRequests'
	/** Any other 4xx (402, 403, 405, ...): the service refused. */
	| 'refused'
	/** 5xx */
	| 'serverError'
	/** 3xx: never followed, so that the token stays with the service. */
	| 'redirect'
	/** A 2xx that is not what the API promises (see AnswerCheck). */
	| 'unexpectedAnswer'
	/** Any other status (1xx, a 2xx that passed its checks). */
	| 'otherStatus';

/** What the failure rules say about one failed attempt of a request. */
export interface Classification {
	kind: FailureKind;
	/** The client may send the request again (within its retry budget). */
	repeat: boolean;
	/** With `repeat`: how long the service asked to wait (Retry-After of a 429); undefined means the normal backoff. */
	waitMs?: number;
	/**
	 * The request was sent and the answer (if any) does not say whether the service carried it out: a
	 * 5xx, a redirect (not followed), a 2xx that is not what the API promises, a timeout, a dropped
	 * connection or any network error not known to happen before sending.
	 */
	mayHaveBeenCarriedOut: boolean;
	/** A creating request that may have created: never repeated by itself, reported as "outcome unknown". */
	outcomeUnknown: boolean;
	/** The service answered with a 4xx: it did not carry the request out. */
	refusedByService: boolean;
	/** Nothing reached the service (the credential refused, the login failed, the host was unreachable). */
	nothingSent: boolean;
	/** A sign that the service is overloaded or failing: the adaptive concurrency halves its limit. */
	overload: boolean;
	/** 401: a fresh login may help (login credential, once per run). */
	renewLogin: boolean;
	/** The credential is of no use for this run (401 that a fresh login did not cure, failed login, an address n8n blocks): stop sending. */
	endsRun: boolean;
}

/** Failures where the request never reached the service: repeating it cannot create anything twice. */
const NOT_SENT_CODES = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
]);

const KIND_BY_STATUS: Record<number, FailureKind> = {
	400: 'refusedInput',
	401: 'unauthorized',
	404: 'notFound',
	409: 'conflict',
	422: 'refusedInput',
	429: 'tooManyRequests',
};

function kindOf(failure: Failure): FailureKind {
	if (failure.code === LOGIN_FAILED_CODE) return 'loginFailed';
	if (failure.code === REFUSED_CODE) return 'refusedByCredential';
	if (failure.code === SSRF_BLOCKED_CODE) return 'blockedByN8n';
	const status = failure.status;
	if (status === undefined)
		return failure.code && NOT_SENT_CODES.has(failure.code) ? 'unreachable' : 'noAnswer';
	if (failure.unexpected !== undefined) return 'unexpectedAnswer';
	if (KIND_BY_STATUS[status]) return KIND_BY_STATUS[status];
	if (status >= 500) return 'serverError';
	if (status >= 400) return 'refused';
	if (status >= 300) return 'redirect';
	return 'otherStatus';
}

/** Kinds after which the service may have carried the request out: sent, and the answer does not say. */
const CARRIED_OUT_UNKNOWN = new Set<FailureKind>([
	'noAnswer',
	'serverError',
	'redirect',
	'unexpectedAnswer',
]);

const OVERLOAD = new Set<FailureKind>([
	'tooManyRequests',
	'serverError',
	'unreachable',
	'noAnswer',
]);

/**
 * The failure rules. A creating request is never repeated after an unknown outcome, except one
 * the service de-duplicates (`createOnce`); redirects and unexpected answers are never repeated;
 * a 429 and a request that never reached the service are repeated whatever they do.
 */
export function classify(
	request: { repeatability: Repeatability },
	failure: Failure,
): Classification {
	const kind = kindOf(failure);
	const status = failure.status;
	const mayHaveBeenCarriedOut = CARRIED_OUT_UNKNOWN.has(kind);
	const outcomeUnknown = mayHaveBeenCarriedOut && request.repeatability !== 'safe';
	let repeat: boolean;
	if (kind === 'tooManyRequests' || kind === 'unreachable') repeat = true;
	else if (!mayHaveBeenCarriedOut) repeat = false;
	else {
		const answeredOddly = kind === 'unexpectedAnswer' || failure.redirectHost !== undefined;
		repeat =
			request.repeatability !== 'create' && !answeredOddly && failure.code !== 'ERR_CANCELED';
	}
	return {
		kind,
		repeat,
		waitMs: kind === 'tooManyRequests' ? failure.retryAfterMs : undefined,
		mayHaveBeenCarriedOut,
		outcomeUnknown,
		refusedByService: status !== undefined && status >= 400 && status < 500,
		nothingSent:
			kind === 'loginFailed' ||
			kind === 'refusedByCredential' ||
			kind === 'blockedByN8n' ||
			kind === 'unreachable',
		overload: OVERLOAD.has(kind),
		renewLogin: kind === 'unauthorized',
		endsRun: kind === 'unauthorized' || kind === 'loginFailed' || kind === 'blockedByN8n',
	};
}

/** The HTTP status of an error the client threw (a NodeApiError keeps it as text), if it has one. */
function statusOfError(error: unknown): number | undefined {
	const status = error instanceof NodeApiError ? Number(error.httpCode) : NaN;
	return Number.isInteger(status) ? status : undefined;
}

/**
 * The kind of failure behind an error the client threw, as far as the error tells (its status);
 * undefined without one. E.g. the trigger takes a 404, 409 or 422 to a task it parked as
 * "cannot be taken back".
 */
export function kindOfError(error: unknown): FailureKind | undefined {
	const status = statusOfError(error);
	return status === undefined ? undefined : kindOf({ status, message: '' });
}

/**
 * Whether a failed request may still have been carried out (created something). The client's
 * errors say so (`outcomeUnknown`: false after a 4xx, a failed login, a request it did not send).
 * Otherwise only a 4xx answer proves that nothing was carried out.
 */
export function errorMayHaveCarriedOut(error: unknown): boolean {
	if (error instanceof NodeApiError && typeof error.context.outcomeUnknown === 'boolean')
		return error.context.outcomeUnknown;
	const status = statusOfError(error);
	return (
		status === undefined ||
		!classify({ repeatability: 'safe' }, { status, message: '' }).refusedByService
	);
}
