import type { IGetNodeParameterOptions, INode } from 'n8n-workflow';

import { isPlainObject } from './validation';

/**
 * The two ways the nodes read their parameters, one type each for both nodes: by name (a hook,
 * a webhook, or one item already chosen), and by name for a given item (the action node's run);
 * and `readSavedParameter()`, a read by name that leaves n8n's expression engine out when the
 * saved value holds no expression.
 */

/** Reads one parameter by name, like `getNodeParameter(name, fallback)`. */
export type ReadParameter = (name: string, fallback?: unknown) => unknown;

/** Reads a node parameter for one item, like `getNodeParameter(name, itemIndex, fallback, options)`. */
export type ReadItemParameter = (
	name: string,
	itemIndex: number,
	fallback?: unknown,
	options?: IGetNodeParameterOptions,
) => unknown;

/**
 * Whether a saved value holds something only n8n's expression engine reads: an expression (text
 * starting with '=') or a resource locator, at any depth. n8n decides the same way whether a
 * Webhook node's parameters are static.
 */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (isPlainObject(value)) return '__rl' in value || Object.values(value).some(holdsExpression);
	return false;
}

/** A copy of a saved value, so that no reader changes the node's own parameters. */
function copyOf(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(copyOf);
	if (isPlainObject(value))
		return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, copyOf(entry)]));
	return value;
}

function savedValue(node: INode, name: string): unknown {
	let value: unknown = node.parameters;
	for (const key of name.split('.')) {
		if (!isPlainObject(value)) return undefined;
		value = value[key];
	}
	return value;
}

/** What `readSavedParameter()` needs of a hook, webhook or execution context. */
export interface SavedParameterContext {
	getNode(): INode;
	getNodeParameter(name: string, fallback?: unknown): unknown;
}

/**
 * One parameter as `getNodeParameter(name, fallback)` reads it. A saved value without an
 * expression (n8n has already filled in the defaults of the parameters not saved) is read as saved;
 * only one with an expression goes through n8n's expression engine, which also words what a bad
 * expression did wrong.
 */
export function readSavedParameter(
	context: SavedParameterContext,
	name: string,
	fallback?: unknown,
): unknown {
	const saved = savedValue(context.getNode(), name);
	const value = saved === undefined ? fallback : saved;
	if (value === undefined || holdsExpression(value))
		return context.getNodeParameter(name, fallback);
	return copyOf(value);
}
