import { createHash } from 'crypto';

import { isPlainObject } from './validation';

/** JSON with object keys sorted at every level, so that equal values give equal text. */
export function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	if (isPlainObject(value)) {
		const keys = Object.keys(value)
			.filter((key) => value[key] !== undefined)
			.sort();
		return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

/** SHA-256 (hex) of the canonical JSON: equal values, whatever their key order, have equal fingerprints. */
export function fingerprintOf(value: unknown): string {
	return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
