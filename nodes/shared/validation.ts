import type { IDataObject } from 'n8n-workflow';

/** Bad user input, found before any request is sent. The router adds the item index. */
export class InputError extends Error {
	constructor(
		readonly field: string,
		readonly value: unknown,
		readonly problem: string,
	) {
		super(`Invalid ${field}: ${describeValue(value)} ${problem}`);
		this.name = 'InputError';
	}
}

export function describeValue(value: unknown): string {
	if (value === undefined) return 'nothing';
	if (value === null) return 'null';
	if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
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

export function requireString(field: string, value: unknown): string {
	if (typeof value === 'number') return String(value);
	if (typeof value !== 'string' || value.trim() === '') {
		throw new InputError(field, value, 'is empty; enter a value');
	}
	return value.trim();
}

export function optionalString(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	const text = String(value).trim();
	return text === '' ? undefined : text;
}

export function requireInteger(
	field: string,
	value: unknown,
	{ min, max }: { min?: number; max?: number } = {},
): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
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

const INVALID_JSON = Symbol('invalid JSON');

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return INVALID_JSON;
	}
}

/** Accepts an object, or a JSON text of an object (as n8n's JSON fields give it). */
export function toObject(field: string, value: unknown): IDataObject | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const parsed = typeof value === 'string' ? parseJson(value) : value;
	if (parsed === INVALID_JSON) {
		throw new InputError(field, value, 'is not valid JSON; enter a JSON object such as {"crmId": "42"}');
	}
	if (!isPlainObject(parsed)) {
		throw new InputError(field, value, 'is not an object; enter a JSON object such as {"crmId": "42"}');
	}
	return parsed;
}

/**
 * Phones come as an array, or as one text with numbers separated by commas, semicolons or new lines
 * (a number may contain spaces, brackets and dashes: "+7 (999) 123-45-67").
 * Spaces, brackets, dots and dashes are removed; a leading + is kept. The service normalises or checks the rest.
 */
export function toPhones(field: string, value: unknown): string[] {
	const list = Array.isArray(value)
		? value
		: typeof value === 'string'
			? value
					.split(/[,;\n]+/)
					.map((part) => part.trim())
					.filter((part) => part !== '')
			: typeof value === 'number'
				? [String(value)]
				: undefined;
	if (!list || list.length === 0) {
		throw new InputError(field, value, 'holds no phone number');
	}
	return list.map((phone) => {
		if (typeof phone === 'number' && Number.isInteger(phone) && phone > 0) return String(phone);
		if (typeof phone !== 'string' || !/^\+?[0-9()\-. ]*[0-9][0-9()\-. ]*$/.test(phone.trim())) {
			throw new InputError(field, value, `has ${describeValue(phone)}, which is not a phone number`);
		}
		return phone.replace(/[\s().\-]/g, '');
	});
}

/** Variables are name → text; numbers and booleans are turned into text, anything else is refused. */
export function toVariables(field: string, value: unknown): Record<string, string> | undefined {
	const object = toObject(field, value);
	if (!object) return undefined;
	const variables: Record<string, string> = {};
	for (const [name, raw] of Object.entries(object)) {
		if (raw === null || raw === undefined) continue;
		if (typeof raw === 'object') {
			throw new InputError(`${field}.${name}`, raw, 'is not a text value');
		}
		variables[name] = String(raw);
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

/** The spec wraps ids as {identity}; tolerate a bare string too. */
export function identityOf(value: unknown): string | undefined {
	if (typeof value === 'string' && value !== '') return value;
	if (typeof value === 'number') return String(value);
	if (isPlainObject(value) && (typeof value.identity === 'string' || typeof value.identity === 'number')) {
		return String(value.identity);
	}
	return undefined;
}
