/**
 * How long the client waits before repeating a request. Whether it repeats at all is decided by
 * classify() (classify.ts).
 */

/** Longest wait before a retry; when the service asks for longer, the item fails and says so. */
export const MAX_WAIT_MS = 60000;

/** Exponential backoff with jitter: half the ceiling plus a random part of the other half. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
	const ceiling = Math.min(30000, 500 * 2 ** attempt);
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
