import type { IExecuteFunctions, IGetNodeParameterOptions } from 'n8n-workflow';

/** Reads a node parameter for one item, like `getNodeParameter`. */
export type ReadItemParameter = (
	name: string,
	itemIndex: number,
	fallback?: unknown,
	options?: IGetNodeParameterOptions,
) => unknown;

/**
 * `getNodeParameter`, except that a parameter holding no expression is resolved once per run:
 * it cannot differ between items, and resolving it again for each of thousands of items costs
 * as much as the requests. Callers must not change what they get.
 */
export function perRunParameters(context: IExecuteFunctions): ReadItemParameter {
	const raw = context.getNode().parameters;
	const resolved = new Map<string, unknown>();
	return (name, itemIndex, fallback, options) => {
		const key = options?.extractValue ? `${name}:value` : name;
		if (resolved.has(key)) return resolved.get(key);
		const value = context.getNodeParameter(name, itemIndex, fallback, options);
		if (!containsExpression(raw[name])) resolved.set(key, value);
		return value;
	};
}

function containsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(containsExpression);
	if (typeof value === 'object' && value !== null) return Object.values(value).some(containsExpression);
	return false;
}
