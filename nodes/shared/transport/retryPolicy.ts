import { type Failure, LOGIN_FAILED_CODE, REFUSED_CODE } from './failure';

/** When a failed attempt is repeated, and when its outcome is unknown. Pure, tested case by case. */

/**
 * How safe a request is to send again when its outcome is unknown (timeout, dropped
 * connection, 5xx):
 * - `safe`: repeating changes nothing more (depersonalize, delete a recording, reads);
 * - `create`: a repeat may create a second task or dial a person twice;
 * - `createOnce`: a creation that the service de-duplicates (a candidate with `clientExternalId`).
 */
export type Repeatability = 'safe' | 'create' | 'createOnce';

/** Failures where the request never reached the service: repeating it cannot create anything twice. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether a failure leaves open whether the service carried the request out: it was sent and
 * the answer (if any) does not say. A 5xx, a redirect (not followed), a 2xx that is not what the
 * API promises, a timeout, a dropped connection or any network error not known to happen before
 * sending.
 */
export function isOutcomeUnknown(failure: Failure): boolean {
	if (failure.code === LOGIN_FAILED_CODE || failure.code === REFUSED_CODE) return false;
	if (failure.status !== undefined) {
		return failure.status >= 500 || (failure.status >= 300 && failure.status < 400) || failure.unexpected !== undefined;
	}
	return !(failure.code && NOT_SENT_CODES.has(failure.code));
}

export type RetryDecision = { retry: true; delayMs?: number } | { retry: false; uncertain: boolean };

/**
 * The retry rules; pure, so they can be tested case by case. `uncertain`: a creating request may
 * have been carried out. A creating request is never repeated after an unknown outcome, except
 * one the service de-duplicates (`createOnce`). Redirects and unexpected answers are never repeated.
 */
export function decideRetry(failure: Failure, repeatability: Repeatability): RetryDecision {
	if (failure.code === LOGIN_FAILED_CODE || failure.code === REFUSED_CODE) return { retry: false, uncertain: false };
	if (failure.status === 429) return { retry: true, delayMs: failure.retryAfterMs };
	if (failure.code && NOT_SENT_CODES.has(failure.code)) return { retry: true };
	if (!isOutcomeUnknown(failure)) return { retry: false, uncertain: false };
	const uncertain = repeatability !== 'safe';
	const answeredOddly = failure.redirectHost !== undefined || failure.unexpected !== undefined;
	if (repeatability === 'create' || answeredOddly || failure.code === 'ERR_CANCELED') return { retry: false, uncertain };
	return { retry: true };
}

/** Longest wait before a retry; when the service asks for longer, the item fails and says so. */
export const MAX_WAIT_MS = 60000;

export function backoffDelay(attempt: number, random: () => number = Math.random): number {
	const ceiling = Math.min(30000, 500 * 2 ** attempt);
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
