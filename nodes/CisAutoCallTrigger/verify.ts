import { createHash, timingSafeEqual } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

/**
 * Checks the trigger runs on every incoming request, as plain functions with plain inputs
 * (no n8n context), so each can be tested on its own: source address allow-list, secret,
 * body shape, callbackData normalisation, output shape. Repeats: deliveries.ts.
 */

// ---------------------------------------------------------------------------------------------
// Source addresses
// ---------------------------------------------------------------------------------------------

/** An address range: the address bytes (4 for IPv4, 16 for IPv6) and the prefix length in bits. */
export interface AddressRange {
	bytes: number[];
	prefix: number;
	text: string;
}

export interface AddressList {
	ranges: AddressRange[];
	/** Entries that are neither an IP address nor a CIDR range. */
	invalid: string[];
}

function parseIPv4(text: string): number[] | undefined {
	const parts = text.split('.');
	if (parts.length !== 4) return undefined;
	const bytes: number[] = [];
	for (const part of parts) {
		if (!/^\d{1,3}$/.test(part)) return undefined;
		const value = Number(part);
		if (value > 255) return undefined;
		bytes.push(value);
	}
	return bytes;
}

function parseIPv6(input: string): number[] | undefined {
	let text = input;
	// An embedded IPv4 tail (e.g. ::ffff:127.0.0.1) becomes two groups.
	const lastColon = text.lastIndexOf(':');
	if (lastColon !== -1 && text.slice(lastColon + 1).includes('.')) {
		const v4 = parseIPv4(text.slice(lastColon + 1));
		if (!v4) return undefined;
		text = `${text.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
	}
	const halves = text.split('::');
	if (halves.length > 2) return undefined;
	const readGroups = (part: string): number[] | undefined => {
		if (part === '') return [];
		const groups: number[] = [];
		for (const group of part.split(':')) {
			if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
			groups.push(parseInt(group, 16));
		}
		return groups;
	};
	const head = readGroups(halves[0]);
	const tail = halves.length === 2 ? readGroups(halves[1]) : [];
	if (!head || !tail) return undefined;
	let groups: number[];
	if (halves.length === 2) {
		const missing = 8 - head.length - tail.length;
		if (missing < 1) return undefined;
		groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
	} else {
		groups = head;
	}
	if (groups.length !== 8) return undefined;
	const bytes: number[] = [];
	for (const group of groups) bytes.push(group >> 8, group & 0xff);
	return bytes;
}

function isMappedIPv4(bytes: number[]): boolean {
	return bytes.length === 16 && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
}

/** Bytes of an IP address; IPv4-mapped IPv6 (::ffff:a.b.c.d) is read as the IPv4 address. */
export function parseIp(input: string): number[] | undefined {
	let text = input.trim();
	if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
	const zone = text.indexOf('%');
	if (zone !== -1) text = text.slice(0, zone);
	if (text === '') return undefined;
	const bytes = text.includes(':') ? parseIPv6(text) : parseIPv4(text);
	if (bytes && isMappedIPv4(bytes)) return bytes.slice(12);
	return bytes;
}

/** One entry: an address (a range of one) or address/prefix. */
export function parseRange(input: string): AddressRange | undefined {
	const text = input.trim();
	const slash = text.indexOf('/');
	const addressText = slash === -1 ? text : text.slice(0, slash);
	let bytes = parseIp(addressText);
	if (!bytes) return undefined;
	const wasIPv6Text = addressText.includes(':');
	let prefix = bytes.length * 8;
	if (slash !== -1) {
		const prefixText = text.slice(slash + 1);
		if (!/^\d{1,3}$/.test(prefixText)) return undefined;
		prefix = Number(prefixText);
		// ::ffff:a.b.c.d/120 is the IPv4 range a.b.c.d/24.
		if (wasIPv6Text && bytes.length === 4) {
			if (prefix < 96) return undefined;
			prefix -= 96;
		}
		if (prefix > bytes.length * 8) return undefined;
	}
	bytes = maskBytes(bytes, prefix);
	return { bytes, prefix, text };
}

function maskBytes(bytes: number[], prefix: number): number[] {
	return bytes.map((byte, index) => {
		const bits = Math.max(0, Math.min(8, prefix - index * 8));
		const mask = bits === 0 ? 0 : (0xff << (8 - bits)) & 0xff;
		return byte & mask;
	});
}

/** Entries separated by commas, semicolons, spaces or new lines. */
export function parseAddressList(input: string | readonly string[] | undefined): AddressList {
	const entries = (typeof input === 'string' ? input.split(/[\s,;]+/) : [...(input ?? [])])
		.map((entry) => entry.trim())
		.filter((entry) => entry !== '');
	const ranges: AddressRange[] = [];
	const invalid: string[] = [];
	for (const entry of entries) {
		const range = parseRange(entry);
		if (range) ranges.push(range);
		else invalid.push(entry);
	}
	return { ranges, invalid };
}

/**
 * Whether `ip` is inside one of the ranges of `list`. An empty list allows everything; a list
 * with entries but no valid one allows nothing (fail closed); an unreadable `ip` is refused.
 */
export function isAddressAllowed(ip: string | undefined, list: string | readonly string[] | AddressList | undefined): boolean {
	const parsed = isAddressList(list) ? list : parseAddressList(list);
	if (parsed.ranges.length === 0 && parsed.invalid.length === 0) return true;
	const bytes = ip === undefined ? undefined : parseIp(ip);
	if (!bytes) return false;
	return parsed.ranges.some(
		(range) => range.bytes.length === bytes.length && maskBytes(bytes, range.prefix).every((b, i) => b === range.bytes[i]),
	);
}

function isAddressList(value: unknown): value is AddressList {
	return typeof value === 'object' && value !== null && !Array.isArray(value) && 'ranges' in value;
}

// ---------------------------------------------------------------------------------------------
// Secret
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Body
// ---------------------------------------------------------------------------------------------

export type ParsedBody = { ok: true; payload: IDataObject; event: string } | { ok: false; reason: string };

function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const NOT_JSON = Symbol('not JSON');

function parseJsonText(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return NOT_JSON;
	}
}

function isBytes(value: unknown): value is Uint8Array {
	return value instanceof Uint8Array;
}

/**
 * The deepest nesting a body may have. The service's events are a few levels deep; a body far
 * deeper would overflow the stack of every recursive step after this one (canonical JSON,
 * n8n's copies of the item), so it is refused with 400 before any of them.
 */
export const MAX_NESTING = 100;

/** Whether `value` nests objects/arrays deeper than `limit` levels (measured without recursion). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
	const pending: Array<[unknown, number]> = [[value, 0]];
	while (pending.length > 0) {
		const [current, depth] = pending.pop() as [unknown, number];
		if (typeof current !== 'object' || current === null) continue;
		if (depth + 1 > limit) return true;
		for (const child of Object.values(current)) {
			if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
		}
	}
	return false;
}

/**
 * Reads an event from what n8n parsed (`body`) or, when n8n left it unparsed (a content type
 * other than JSON), from the raw bytes. The event must be a JSON object with a text `event`.
 * `parsedAsJson`: n8n already parsed the body as JSON (a string `body` is then a JSON string value).
 */
export function parseEventBody(body: unknown, rawBody?: unknown, parsedAsJson = false): ParsedBody {
	let value: unknown = body;
	if (typeof value === 'string' && !parsedAsJson) value = parseJsonText(value);
	else if (isBytes(value)) value = parseJsonText(Buffer.from(value).toString('utf8'));
	else if ((value === undefined || value === null || (isPlainObject(value) && Object.keys(value).length === 0)) && isBytes(rawBody) && rawBody.length > 0) {
		value = parseJsonText(Buffer.from(rawBody).toString('utf8'));
	}
	if (value === NOT_JSON) return { ok: false, reason: 'the body is not JSON' };
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

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

export interface NormalizedCallbackData {
	callbackData: IDataObject;
	/** The value as received when it was not already an object (a JSON string, a non-empty array ...). */
	raw?: unknown;
}

/**
 * `callbackData` as an object whatever the service sent: an object stays as is; `[]` (the
 * service's empty value), null or nothing become `{}`; a JSON text of an object is parsed (the
 * text is kept as `raw`); anything else becomes `{}` with the original kept as `raw`.
 */
export function normalizeCallbackData(value: unknown): NormalizedCallbackData {
	if (isPlainObject(value)) return { callbackData: value };
	if (value === undefined || value === null) return { callbackData: {} };
	if (Array.isArray(value) && value.length === 0) return { callbackData: {} };
	if (typeof value === 'string') {
		const trimmed = value.trim();
		if (trimmed === '') return { callbackData: {}, raw: value };
		const parsed = parseJsonText(trimmed);
		if (isPlainObject(parsed)) return { callbackData: parsed, raw: value };
		return { callbackData: {}, raw: value };
	}
	return { callbackData: {}, raw: value };
}

/**
 * One output item's JSON: the payload as received plus `event`, `receivedAt`, `deliveryId` and
 * `callbackData` as an object.
 */
export function buildOutput(payload: IDataObject, event: string, receivedAt: string, deliveryId: string): IDataObject {
	const { callbackData, raw } = normalizeCallbackData(payload.callbackData);
	const output: IDataObject = { ...payload, event, receivedAt, deliveryId, callbackData };
	if (raw !== undefined) output.callbackDataRaw = raw as IDataObject;
	return output;
}
