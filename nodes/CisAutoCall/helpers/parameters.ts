import type { IDataObject, IExecuteFunctions, IGetNodeParameterOptions } from 'n8n-workflow';

import { ASK_N8N, itemPathValue, type ItemPathValue, sameJson } from './itemPaths';

/** Reads a node parameter for one item, like `getNodeParameter`. */
export type ReadItemParameter = (
	name: string,
	itemIndex: number,
	fallback?: unknown,
	options?: IGetNodeParameterOptions,
) => unknown;

/**
 * How a parameter with an expression is read: by n8n for every item, or (itemPaths.ts) from the
 * item's fields, either still to be checked against n8n on the next item or checked already.
 */
type ItemReading = { by: 'n8n' } | { by: 'fields'; value: ItemPathValue; checked: boolean };

/**
 * `getNodeParameter`, except that a parameter holding no expression is resolved once per run:
 * it cannot differ between items, and resolving it again for each of thousands of items costs
 * as much as the requests. A parameter whose expressions only copy fields of the item
 * (`{{ $json.phone }}`, `{{ { name: $json.name } }}`) is read from each item's fields, after
 * n8n's own result for the first such item was found the same; every item still gets its own
 * value, and whatever itemPaths.ts cannot read is left to n8n. Callers must not change what they get.
 */
export function perRunParameters(context: IExecuteFunctions): ReadItemParameter {
	const raw = context.getNode().parameters;
	const resolved = new Map<string, unknown>();
	const readings = new Map<string, ItemReading>();
	let inputJson: Array<IDataObject | undefined> | undefined;
	const readingOf = (name: string): ItemReading => {
		let reading = readings.get(name);
		if (!reading) {
			const value = name.includes('.') ? undefined : itemPathValue(raw[name]);
			reading = value ? { by: 'fields', value, checked: false } : { by: 'n8n' };
			readings.set(name, reading);
		}
		return reading;
	};
	return (name, itemIndex, fallback, options) => {
		const key = options?.extractValue ? `${name}:value` : name;
		if (resolved.has(key)) return resolved.get(key);
		if (!containsExpression(raw[name])) {
			const value = context.getNodeParameter(name, itemIndex, fallback, options);
			resolved.set(key, value);
			return value;
		}
		const reading = options ? ({ by: 'n8n' } as const) : readingOf(name);
		if (reading.by === 'fields') {
			inputJson ??= context.getInputData().map((item) => item?.json);
			const fromFields = reading.value(inputJson[itemIndex]);
			if (fromFields !== ASK_N8N) {
				if (reading.checked) return fromFields;
				const value = context.getNodeParameter(name, itemIndex, fallback, options);
				if (sameJson(value, fromFields)) reading.checked = true;
				else readings.set(name, { by: 'n8n' });
				return value;
			}
		}
		return context.getNodeParameter(name, itemIndex, fallback, options);
	};
}

function containsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(containsExpression);
	if (typeof value === 'object' && value !== null) return Object.values(value).some(containsExpression);
	return false;
}
