import type { IDataObject } from 'n8n-workflow';

/**
 * Parameters whose expression only copies fields of the item, such as `={{ $json.phone }}` or
 * `={{ { name: $json.name } }}`: n8n's expression engine (an isolate in n8n 2.x) costs 0.4-0.8 ms
 * per expression and item, more than the request itself on a fast service, for what is a field
 * lookup. Such a parameter is read here straight from the item; anything else (other
 * syntax, a value that is not plain JSON, a missing field) is left to n8n. helpers/perRunParameters.ts
 * decides when the result may be used (it checks it against n8n's own result first).
 */

/** The result of `ItemPathValue` when this item must be left to n8n's expression engine. */
export const ASK_N8N = Symbol('askN8n');

/** The value of a parameter for one item's JSON, or ASK_N8N. */
export type ItemPathValue = (json: IDataObject | undefined) => unknown;

type Step = string | number;

type Node =
	| { kind: 'path'; steps: Step[] }
	| { kind: 'array'; elements: Node[] }
	| { kind: 'object'; entries: Array<[string, Node]> }
	| { kind: 'constant'; value: unknown };

/** Names that reach an object's prototype: never read here. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const IDENTIFIER = /^[A-Za-z_$][\w$]*/;

class Parser {
	private at = 0;

	constructor(private readonly text: string) {}

	parseAll(): Node | undefined {
		const node = this.expression();
		this.space();
		return node && this.at === this.text.length ? node : undefined;
	}

	private space(): void {
		while (this.at < this.text.length && /\s/.test(this.text[this.at])) this.at++;
	}

	private take(token: string): boolean {
		this.space();
		if (!this.text.startsWith(token, this.at)) return false;
		this.at += token.length;
		return true;
	}

	private identifier(): string | undefined {
		this.space();
		const match = IDENTIFIER.exec(this.text.slice(this.at));
		if (!match) return undefined;
		this.at += match[0].length;
		return match[0];
	}

	/** A quoted name without escapes: 'a b' or "a b". */
	private quoted(): string | undefined {
		this.space();
		const quote = this.text[this.at];
		if (quote !== '"' && quote !== "'") return undefined;
		const end = this.text.indexOf(quote, this.at + 1);
		if (end === -1) return undefined;
		const name = this.text.slice(this.at + 1, end);
		if (name.includes('\\') || name.includes('\n')) return undefined;
		this.at = end + 1;
		return name;
	}

	private expression(): Node | undefined {
		if (this.take('[')) return this.array();
		if (this.take('{')) return this.object();
		return this.path();
	}

	private path(): Node | undefined {
		if (this.identifier() !== '$json') return undefined;
		const steps: Step[] = [];
		for (;;) {
			const before = this.at;
			this.space();
			if (this.text[this.at] === '.') {
				this.at++;
				// `$json. name` is valid JavaScript, but nobody writes it: keep the grammar strict.
				if (/\s/.test(this.text[this.at] ?? '')) return undefined;
				const name = this.identifier();
				if (name === undefined) return undefined;
				steps.push(name);
			} else if (this.text[this.at] === '[') {
				this.at++;
				this.space();
				const index = /^\d{1,9}/.exec(this.text.slice(this.at));
				let step: Step | undefined;
				if (index) {
					this.at += index[0].length;
					step = Number(index[0]);
				} else step = this.quoted();
				if (step === undefined || !this.take(']')) return undefined;
				steps.push(step);
			} else {
				this.at = before;
				break;
			}
		}
		if (steps.some((step) => typeof step === 'string' && UNSAFE_KEYS.has(step))) return undefined;
		return { kind: 'path', steps };
	}

	private array(): Node | undefined {
		const elements: Node[] = [];
		if (this.take(']')) return { kind: 'array', elements };
		for (;;) {
			const element = this.expression();
			if (!element) return undefined;
			elements.push(element);
			if (this.take(']')) return { kind: 'array', elements };
			if (!this.take(',')) return undefined;
		}
	}

	private object(): Node | undefined {
		const entries: Array<[string, Node]> = [];
		if (this.take('}')) return { kind: 'object', entries };
		for (;;) {
			const key = this.identifier() ?? this.quoted();
			if (key === undefined || UNSAFE_KEYS.has(key) || entries.some(([seen]) => seen === key))
				return undefined;
			if (!this.take(':')) return undefined;
			const value = this.expression();
			if (!value) return undefined;
			entries.push([key, value]);
			if (this.take('}')) return { kind: 'object', entries };
			if (!this.take(',')) return undefined;
		}
	}
}

/** `={{ … }}` holding one expression of the grammar above, and nothing around it. */
function parseExpression(raw: string): Node | undefined {
	const match = /^=\{\{([\s\S]*)\}\}$/.exec(raw);
	if (!match) return undefined;
	const inner = match[1];
	// A second `{{` or `}}` would make n8n split the text into several parts.
	if (inner.includes('{{') || inner.includes('}}')) return undefined;
	return new Parser(inner).parseAll();
}

function parseValue(raw: unknown): Node | undefined {
	if (typeof raw === 'string')
		return raw.startsWith('=') ? parseExpression(raw) : { kind: 'constant', value: raw };
	if (raw === null || typeof raw === 'number' || typeof raw === 'boolean')
		return { kind: 'constant', value: raw };
	if (Array.isArray(raw)) {
		const elements = raw.map(parseValue);
		return elements.every((element) => element !== undefined)
			? { kind: 'array', elements: elements as Node[] }
			: undefined;
	}
	if (isPlain(raw)) {
		const entries: Array<[string, Node]> = [];
		for (const [key, value] of Object.entries(raw)) {
			const node = parseValue(value);
			if (!node || UNSAFE_KEYS.has(key)) return undefined;
			entries.push([key, node]);
		}
		return { kind: 'object', entries };
	}
	return undefined;
}

function isPlain(value: unknown): value is Record<string, unknown> {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
	const prototype = Object.getPrototypeOf(value);
	return prototype === Object.prototype || prototype === null;
}

const MISSING = Symbol('missing');

/**
 * One step into a plain object (by key) or an array (by index): own properties only, never the
 * prototype's (an item's own field named "constructor" is data, and the caller judges its name).
 */
function stepInto(current: unknown, step: Step): unknown {
	const holder = typeof step === 'number' ? Array.isArray(current) : isPlain(current);
	if (!holder || !Object.prototype.hasOwnProperty.call(current, step)) return MISSING;
	return (current as Record<string | number, unknown>)[step];
}

/**
 * A field of an item by the name a user typed: the item's key as it is ("full name", or "crm.id"
 * when the item has that very key), else a dotted path ("crm.id", "phones.0"). The one way the
 * nodes read an item's field by name; undefined when it is not there.
 */
export function fieldAt(json: IDataObject, name: string): unknown {
	const own = stepInto(json, name);
	if (own !== MISSING) return own;
	let current: unknown = json;
	for (const part of name.split('.')) {
		current = stepInto(
			current,
			Array.isArray(current) && /^\d{1,9}$/.test(part) ? Number(part) : part,
		);
		if (current === MISSING) return undefined;
	}
	return current;
}

/** A copy of a plain JSON value (what n8n's engine hands back), or ASK_N8N for anything else. */
function copyJson(value: unknown): unknown {
	if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
	if (typeof value === 'number') return Number.isFinite(value) ? value : ASK_N8N;
	if (Array.isArray(value)) {
		const copy: unknown[] = [];
		for (let index = 0; index < value.length; index++) {
			if (!(index in value)) return ASK_N8N;
			const element = copyJson(value[index]);
			if (element === ASK_N8N) return ASK_N8N;
			copy.push(element);
		}
		return copy;
	}
	if (isPlain(value)) {
		const copy: IDataObject = {};
		for (const key of Object.keys(value)) {
			if (UNSAFE_KEYS.has(key)) return ASK_N8N;
			const entry = copyJson(value[key]);
			if (entry === ASK_N8N) return ASK_N8N;
			copy[key] = entry as IDataObject[string];
		}
		return copy;
	}
	return ASK_N8N;
}

function evaluate(node: Node, json: IDataObject): unknown {
	switch (node.kind) {
		case 'constant':
			return node.value;
		case 'path': {
			let current: unknown = json;
			for (const step of node.steps) {
				current = stepInto(current, step);
				if (current === MISSING) return ASK_N8N;
			}
			return copyJson(current);
		}
		case 'array': {
			const values: unknown[] = [];
			for (const element of node.elements) {
				const value = evaluate(element, json);
				if (value === ASK_N8N) return ASK_N8N;
				values.push(value);
			}
			return values;
		}
		case 'object': {
			const result: IDataObject = {};
			for (const [key, entry] of node.entries) {
				const value = evaluate(entry, json);
				if (value === ASK_N8N) return ASK_N8N;
				result[key] = value as IDataObject[string];
			}
			return result;
		}
	}
}

/**
 * For a parameter's saved value: a reader of its value from an item's JSON when every expression
 * in it only copies the item's fields; undefined when n8n must evaluate it.
 */
export function itemPathValue(raw: unknown): ItemPathValue | undefined {
	const node = parseValue(raw);
	if (!node) return undefined;
	return (json) => (isPlain(json) ? evaluate(node, json as IDataObject) : ASK_N8N);
}

/** Whether two plain JSON values are the same. */
export function sameJson(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (Array.isArray(a))
		return (
			Array.isArray(b) &&
			a.length === b.length &&
			a.every((element, index) => sameJson(element, b[index]))
		);
	if (isPlain(a) && isPlain(b)) {
		const keys = Object.keys(a);
		return (
			keys.length === Object.keys(b).length &&
			keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameJson(a[key], b[key]))
		);
	}
	return false;
}
