import { createHash, timingSafeEqual } from 'crypto';

/** The webhook secret: timing-safe checks, the hash kept instead of the secret, the secret in the URL. */

function sha256(text: string): Buffer {
	return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Timing-safe compare of the secret a request carries with the expected one. Both sides are
 * hashed first so that the compare takes the same time whatever their lengths. An empty
 * expected secret matches nothing.
 */
export function secretMatches(given: unknown, expected: unknown): boolean {
	if (typeof expected !== 'string' || expected === '') return false;
	const givenText = typeof given === 'string' ? given : '';
	const equal = timingSafeEqual(sha256(givenText), sha256(expected));
	return equal && typeof given === 'string';
}

/**
 * What is kept of a generated secret: its SHA-256 (hex). The secret itself is needed only once,
 * in the URL registered with the service; static data (which the public API and exports show)
 * holds only this hash. The secret is 24 random bytes, so the hash cannot be turned back.
 */
export function hashSecret(secret: string): string {
	return sha256(secret).toString('hex');
}

/** Timing-safe check of the secret a request carries against a stored hashSecret() value. */
export function secretMatchesHash(given: unknown, expectedHash: unknown): boolean {
	if (typeof expectedHash !== 'string' || !/^[0-9a-f]{64}$/.test(expectedHash)) return false;
	const givenHash = sha256(typeof given === 'string' ? given : '');
	return timingSafeEqual(givenHash, Buffer.from(expectedHash, 'hex')) && typeof given === 'string';
}

/** The query parameter carrying the secret in the registered URL. */
export const SECRET_PARAMETER = 'secret';

/** `url` with `?secret=<secret>` added (or replaced). */
export function withSecret(url: string, secret: string): string {
	const parsed = new URL(url);
	parsed.searchParams.set(SECRET_PARAMETER, secret);
	return parsed.toString();
}

/** `url` without its secret parameter, for comparing registrations. */
export function withoutSecret(url: string): string {
	try {
		const parsed = new URL(url);
		parsed.searchParams.delete(SECRET_PARAMETER);
		return parsed.toString();
	} catch {
		return url;
	}
}
