import type { IDataObject } from 'n8n-workflow';

import { INVALID_JSON, isPlainObject, nestsDeeperThan, parseJson } from '../../shared/validation';

/** An incoming request's body read as an event of the service, or the reason it is refused. */

export type ParsedBody =
	{ ok: true; payload: IDataObject; event: string } | { ok: false; reason: string };

function isBytes(value: unknown): value is Uint8Array {
	return value instanceof Uint8Array;
}

/** What n8n leaves in the body when it did not parse one. */
export function isEmptyBody(body: unknown): boolean {
	return (
		body === undefined || body === null || (isPlainObject(body) && Object.keys(body).length === 0)
	);
}

/**
 * The deepest nesting a body may have. The service's events are a few levels deep; a body far
 * deeper would overflow the stack of every recursive step after this one (canonical JSON,
 * n8n's copies of the item), so it is refused with 400 before any of them.
 */
export const MAX_NESTING = 100;

/**
 * Reads an event from what n8n parsed (`body`) or, when n8n left it unparsed (a content type
 * other than JSON), from the raw bytes. The event must be a JSON object with a text `event`.
 * `parsedAsJson`: n8n already parsed the body as JSON (a string `body` is then a JSON string value).
 */
export function parseEventBody(body: unknown, rawBody?: unknown, parsedAsJson = false): ParsedBody {
	let value: unknown = body;
	if (typeof value === 'string' && !parsedAsJson) value = parseJson(value);
	else if (isBytes(value)) value = parseJson(Buffer.from(value).toString('utf8'));
	else if (isEmptyBody(value) && isBytes(rawBody) && rawBody.length > 0) {
		value = parseJson(Buffer.from(rawBody).toString('utf8'));
	}
	if (value === INVALID_JSON) return { ok: false, reason: 'the body is not JSON' };
	if (value === undefined || value === null) return { ok: false, reason: 'the body is empty' };
	if (!isPlainObject(value)) return { ok: false, reason: 'the body is not a JSON object' };
	if (nestsDeeperThan(value, MAX_NESTING)) {
		return { ok: false, reason: `the body is nested deeper than ${MAX_NESTING} levels` };
	}
	const event = value.event;
	if (typeof event !== 'string' || event.trim() === '') {
		return { ok: false, reason: 'the body has no "event" field' };
	}
	return { ok: true, payload: value, event: event.trim() };
}
