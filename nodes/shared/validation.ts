import type { IDataObject } from 'n8n-workflow';
import { isSafeObjectProperty, setSafeObjectProperty } from 'n8n-workflow';

/** Bad user input, found before any request is sent. The router adds the item index. */
export class InputError extends Error {
	constructor(
		readonly field: string,
		readonly value: unknown,
		readonly problem: string,
	) {
		super(
			`Invalid ${field}: ${noValue(value) && problem.startsWith('is empty') ? 'the field' : describeValue(value)} ${problem}`,
		);
		this.name = 'InputError';
	}
}

/**
 * Why a refusal: `limit`, the user's own settings do not allow it (Allowed Numbers, Max Calls per
 * Run, what an AI Agent may do); `badNumber`, the number itself cannot be a person's phone (wrong
 * length, no country code, too short, an emergency number), so only the right number helps.
 */
export type RefusalCause = 'limit' | 'badNumber';

/**
 * The words of a refusal beyond its reason, each for whom it is: `builderFix`, the setting the
 * workflow's builder may change ("set Default Country in Options"), which reaches the builder only
 * (the error, or as an AI Agent's tool the execution's notice); `forModel`, what an AI Agent should
 * do instead ("Ask the user for the full number …"), which it reads after the reason; `inShort`, the
 * reason in a few words without the number, for the list of numbers left out of a CRM's list.
 */
export interface RefusalWords {
	builderFix?: string;
	forModel?: string;
	inShort?: string;
}

/**
 * A rule said no (a guardrail, or a number that cannot be dialled). Handled like bad input (the
 * pipeline adds the item; nothing is sent), worded as a refusal: "Refused: <reason>; <builderFix>".
 * As an AI Agent's tool the model reads the reason and `forModel`, the builder the reason and the fix.
 */
export class Refusal extends InputError {
	readonly inShort: string;

	constructor(
		field: string,
		value: unknown,
		readonly reason: string,
		readonly cause: RefusalCause = 'limit',
		readonly words: RefusalWords = {},
	) {
		super(field, value, reason);
		this.name = 'Refusal';
		this.inShort = words.inShort ?? reason;
		this.message = `Refused: ${reason}${words.builderFix ? `; ${words.builderFix}` : ''}`;
	}
}

/** What an AI Agent does when the number itself is wrong. */
export const ASK_FOR_WHOLE_NUMBER =
	'Ask the user for the full number with its country code, then call with it; never guess, complete or change a number yourself.';

/** No value at all: "Invalid phone: the field is empty", never "nothing is empty". */
function noValue(value: unknown): boolean {
	return value === undefined || value === null;
}

/** Nothing, or text of spaces only. */
export function isBlank(value: unknown): boolean {
	return noValue(value) || (typeof value === 'string' && value.trim() === '');
}

export function describeValue(value: unknown): string {
	if (value === undefined) return 'nothing';
	if (value === null) return 'null';
	// JSON.stringify would show NaN and Infinity as null.
	if (typeof value === 'number' || typeof value === 'bigint') return String(value);
	if (value instanceof Date)
		return Number.isNaN(value.getTime()) ? 'an invalid Date' : value.toISOString();
	if (typeof value === 'string')
		return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
	try {
		const text = JSON.stringify(value);
		return text.length > 80 ? `${text.slice(0, 77)}...` : text;
	} catch {
		return String(value);
	}
}

export function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Every write under a key the user chose (a variable's name, a callback data field, an extra body
 * field) goes through n8n's safe setter. A key it would not write (__proto__, constructor, ...) is
 * refused by name rather than left out without a word.
 */
export function setUserKey(target: IDataObject, field: string, key: string, value: unknown): void {
	if (!isSafeObjectProperty(key)) {
		throw new InputError(
			field,
			key,
			'is a name that n8n does not allow as a field name (it could change how objects behave); use another name',
		);
	}
	setSafeObjectProperty(target, key, value);
}

export function requireString(field: string, value: unknown): string {
	const text = optionalString(value, field);
	if (text === undefined) throw new InputError(field, value, 'is empty; enter a value');
	return text;
}

/**
 * An id the user gives (a task, candidate or call id) goes into a request path: it must be one
 * path segment that the URL keeps as it is. Letters, digits and `-_.~:@` only, and not dots
 * alone: `.` or `..` would be read as "this folder" or "the folder above" (`GET .../autoCall/.`
 * lists every task instead of reading one).
 */
const ID_PATTERN = /^[A-Za-z0-9._~:@-]+$/;

/**
 * The one rule of an id's type, for every id the user gives (a task, candidate, call, bot script,
 * template id ...): text, or a whole number. A true/false, an object or a list from an item names
 * no id: sent as text it would become `…/autoCall/true`, so it is refused by name instead.
 */
export function optionalIdText(field: string, value: unknown): string | undefined {
	const isWholeNumber = typeof value === 'number' && Number.isSafeInteger(value);
	if (value !== undefined && value !== null && typeof value !== 'string' && !isWholeNumber) {
		const what =
			typeof value === 'boolean'
				? 'a true/false value'
				: Array.isArray(value)
					? 'a list'
					: typeof value === 'number'
						? 'not a whole number'
						: typeof value === 'object'
							? 'an object'
							: `a ${typeof value}`;
		throw new InputError(
			field,
			value,
			`is ${what}, not an id; an id is a text (or a whole number): pick the field that holds the id`,
		);
	}
	return optionalString(value, field);
}

/** A required id that goes into a request's body: the type rule of optionalIdText, and not empty. */
export function requireIdText(field: string, value: unknown): string {
	const text = optionalIdText(field, value);
	if (text === undefined) throw new InputError(field, value, 'is empty; enter a value');
	return text;
}

/** The one check of every id that goes into a request's path: an id's type, one path segment, not dots alone. */
export function requireId(field: string, value: unknown): string {
	const text = requireIdText(field, value);
	if (!ID_PATTERN.test(text) || /^\.+$/.test(text)) {
		throw new InputError(
			field,
			value,
			'is not an id; an id has letters, digits and - _ . ~ : @ only (not dots alone), such as 0195b6f0-5f3c-7e3a-9a51-1c2d3e4f5a6b',
		);
	}
	return text;
}

/** Text, a finite number or a boolean as trimmed text; nothing or blank text → undefined; anything else is refused. */
export function optionalString(value: unknown, field = 'value'): string | undefined {
	if (value === undefined || value === null) return undefined;
	if (typeof value === 'number' && !Number.isFinite(value)) {
		throw new InputError(field, value, 'is not a finite number; enter a text');
	}
	if (typeof value === 'object' || typeof value === 'function' || typeof value === 'symbol') {
		throw new InputError(field, value, 'is not a text; enter a text or pick the field inside it');
	}
	const text = String(value).trim();
	return text === '' ? undefined : text;
}

/** One of the values an options parameter offers (an expression can give anything). */
export function requireOption<T extends string>(
	field: string,
	value: unknown,
	allowed: readonly T[],
): T {
	if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
		throw new InputError(
			field,
			value,
			`is not one of ${allowed.map((option) => JSON.stringify(option)).join(', ')}`,
		);
	}
	return value as T;
}

/** The largest integer the service's `int` fields can hold on a 32-bit server; bigger values are refused. */
const MAX_INT = 2147483647;

export function requireInteger(
	field: string,
	value: unknown,
	{ min, max = MAX_INT }: { min?: number; max?: number } = {},
): number {
	if (isBlank(value)) {
		throw new InputError(field, value, 'is empty; enter a whole number');
	}
	// Decimal notation only: Number() would also read "0x10", "1e3" and "0b11".
	const number =
		typeof value === 'string' && /^\s*[+-]?\d+(?:\.\d+)?\s*$/.test(value) ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isInteger(number)) {
		throw new InputError(field, value, 'is not a whole number');
	}
	if (min !== undefined && number < min) {
		throw new InputError(field, value, `is below ${min}`);
	}
	if (max !== undefined && number > max) {
		throw new InputError(field, value, `is above ${max}`);
	}
	return number;
}

/** What parseJson gives for a text that is not JSON. */
export const INVALID_JSON = Symbol('invalid JSON');

export function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return INVALID_JSON;
	}
}

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
 * The deepest nesting a value the user gives (Callback Data, variables, extra fields) may have.
 * Far deeper data passes a shallow check and then overflows the stack when the request is built,
 * after the item was counted as sent; it is refused by name before any request instead.
 */
export const MAX_INPUT_NESTING = 32;

/** Refuses `value` when it nests deeper than MAX_INPUT_NESTING levels. */
export function requireNestingWithin(field: string, value: unknown): void {
	if (nestsDeeperThan(value, MAX_INPUT_NESTING)) {
		throw new InputError(
			field,
			value,
			`is nested deeper than ${MAX_INPUT_NESTING} levels; flatten it`,
		);
	}
}

/** Accepts an object, or a JSON text of an object (as n8n's JSON fields give it), at most MAX_INPUT_NESTING deep. */
export function toObject(field: string, value: unknown): IDataObject | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const parsed = typeof value === 'string' ? parseJson(value) : value;
	if (parsed === INVALID_JSON) {
		throw new InputError(
			field,
			value,
			'is not valid JSON; enter a JSON object such as {"crmId": "42"}',
		);
	}
	if (!isPlainObject(parsed)) {
		throw new InputError(
			field,
			value,
			'is not an object; enter a JSON object such as {"crmId": "42"}',
		);
	}
	requireNestingWithin(field, parsed);
	return parsed;
}

/** Variables are name → text; numbers and booleans are turned into text, anything else is refused. */
export function toVariables(field: string, value: unknown): Record<string, string> | undefined {
	const object = toObject(field, value);
	if (!object) return undefined;
	const variables: Record<string, string> = {};
	for (const [name, raw] of Object.entries(object)) {
		if (raw === null || raw === undefined) continue;
		if (typeof raw === 'object' || (typeof raw === 'number' && !Number.isFinite(raw))) {
			throw new InputError(`${field}.${name}`, raw, 'is not a text value');
		}
		setUserKey(variables, field, name, String(raw));
	}
	return variables;
}

export function requireHttpUrl(field: string, value: unknown): string {
	const text = typeof value === 'string' ? value.trim() : '';
	let url: URL | undefined;
	try {
		url = new URL(text);
	} catch {
		url = undefined;
	}
	if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
		throw new InputError(field, value, 'is not an http(s) URL');
	}
	return text;
}

/**
 * An id as the spec wraps it, `{identity: "..."}`. `wrappedOnly`: only that form with a non-blank
 * text counts (what the spec promises in its answers); otherwise a bare string or number is taken
 * too, and a number as identity.
 */
export function identityOf(value: unknown, wrappedOnly = false): string | undefined {
	if (isPlainObject(value)) {
		const { identity } = value;
		if (typeof identity === 'string')
			return wrappedOnly && identity.trim() === '' ? undefined : identity;
		return typeof identity === 'number' && !wrappedOnly ? String(identity) : undefined;
	}
	if (wrappedOnly) return undefined;
	if (typeof value === 'string' && value !== '') return value;
	if (typeof value === 'number') return String(value);
	return undefined;
}

/**
 * `{{ … $… }}`: what n8n evaluates in a value that starts with `=` (an expression), and only there.
 * Only braces that read n8n's data (`$json`, `$('Node')`, `$now` …) count: text such as "Hi {{name}}"
 * may be a template of the bot's own, and was always sent as it is.
 */
const EXPRESSION_BRACES = /\{\{[^{}]*\$[^{}]*\}\}/;

/** Where a Fixed value holding `{{ … }}` sits in a parameter's raw value, and that value. */
function fixedTextWithBraces(
	path: string,
	raw: unknown,
	depth = 0,
): { field: string; value: string } | undefined {
	if (typeof raw === 'string')
		return !raw.startsWith('=') && EXPRESSION_BRACES.test(raw)
			? { field: path, value: raw }
			: undefined;
	if (typeof raw !== 'object' || raw === null || depth > MAX_INPUT_NESTING) return undefined;
	if (Array.isArray(raw)) {
		for (const [index, entry] of raw.entries()) {
			const found = fixedTextWithBraces(`${path}[${index}]`, entry, depth + 1);
			if (found) return found;
		}
		return undefined;
	}
	// A resource locator ({__rl, mode, value}) is named by its parameter alone.
	if ((raw as IDataObject).__rl === true)
		return fixedTextWithBraces(path, (raw as IDataObject).value, depth + 1);
	for (const [key, entry] of Object.entries(raw)) {
		const found = fixedTextWithBraces(`${path}.${key}`, entry, depth + 1);
		if (found) return found;
	}
	return undefined;
}

/**
 * The one rule for an expression typed into a Fixed field: n8n evaluates `{{ … }}` only when the
 * field is switched to Expression (its raw value then starts with `=`); in a Fixed field it would be
 * sent as it is, such as the phone number "{{ $json.phone }}". `raw` is the parameter as saved
 * (`getNode().parameters[name]`), collections included. `wantsFieldName`: the parameter wants the
 * NAME of an item's field, so the way out is the name as plain text, not an expression.
 */
export function refuseExpressionTypedAsText(
	name: string,
	raw: unknown,
	wantsFieldName = false,
): void {
	const found = fixedTextWithBraces(name, raw);
	if (!found) return;
	if (wantsFieldName) {
		const copied = /^\s*\{\{\s*\$json\.([A-Za-z0-9_$.]+)\s*\}\}\s*$/.exec(found.value)?.[1];
		throw new InputError(
			found.field,
			found.value,
			`is an expression typed as text; this field wants the name of a field of the item: enter ${copied ?? 'it'} as plain text, without {{ }}`,
		);
	}
	throw new InputError(
		found.field,
		found.value,
		'is an expression typed as text, and n8n does not fill it in: switch the field from Fixed to Expression (hover over the field to see the switch)',
	);
}
