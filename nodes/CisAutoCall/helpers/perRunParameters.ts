import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ReadItemParameter } from '../../shared/parameterReaders';

import { ASK_N8N, itemPathValue, type ItemPathValue, sameJson } from './itemPaths';
import { FIELD_NAME_PARAMETERS } from './candidateReader';
import { InputError, refuseExpressionTypedAsText } from '../../shared/validation';

export type { ReadItemParameter } from '../../shared/parameterReaders';

/**
 * How a parameter with an expression is read: by n8n for every item, or (itemPaths.ts) from the
 * item's fields, checked against n8n on the first item read so and again on samples (see checksItem).
 */
type ItemReading = { by: 'n8n' } | { by: 'fields'; value: ItemPathValue; checkedOnce: boolean };

/** Besides the first item read from fields, n8n's own result is compared on every this many items. */
const CHECK_EVERY = 100;

/** Whether an item read from fields is compared with n8n's own result: the first, every 100th and the last. */
function checksItem(
	reading: { checkedOnce: boolean },
	itemIndex: number,
	itemCount: number,
): boolean {
	return !reading.checkedOnce || itemIndex % CHECK_EVERY === 0 || itemIndex === itemCount - 1;
}

/** A value cached for the whole run, frozen so that no caller can change what the next item gets. */
function frozen<T>(value: T): T {
	if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
		Object.freeze(value);
		for (const entry of Object.values(value)) frozen(entry);
	}
	return value;
}

/**
 * `getNodeParameter`, except that a parameter holding no expression is resolved once per run:
 * it cannot differ between items, and resolving it again for each of thousands of items costs
 * as much as the requests; it is frozen. A parameter whose expressions only copy fields of the
 * item (`{{ $json.phone }}`, `{{ { name: $json.name } }}`) is read from each item's fields, while
 * n8n's own result is the same on the first such item, every 100th and the last (from a
 * difference on, n8n reads every item); every item still gets its own value, and whatever
 * itemPaths.ts cannot read is left to n8n. A Fixed value holding `{{ … }}` is refused by name
 * (refuseExpressionTypedAsText), for every item that reads it.
 */
export function perRunParameters(context: IExecuteFunctions): ReadItemParameter {
	const raw = context.getNode().parameters;
	const typedAsText = new Map<string, InputError | undefined>();
	const refuseTypedAsText = (name: string) => {
		const top = name.split('.')[0];
		if (!typedAsText.has(top)) {
			try {
				refuseExpressionTypedAsText(top, raw[top], top in FIELD_NAME_PARAMETERS);
				typedAsText.set(top, undefined);
			} catch (error) {
				typedAsText.set(top, error as InputError);
			}
		}
		const refusal = typedAsText.get(top);
		if (refusal) throw refusal;
	};
	const resolved = new Map<string, unknown>();
	const readings = new Map<string, ItemReading>();
	let inputJson: Array<IDataObject | undefined> | undefined;
	const readingOf = (name: string): ItemReading => {
		let reading = readings.get(name);
		if (!reading) {
			const value = name.includes('.') ? undefined : itemPathValue(raw[name]);
			reading = value ? { by: 'fields', value, checkedOnce: false } : { by: 'n8n' };
			readings.set(name, reading);
		}
		return reading;
	};
	return (name, itemIndex, fallback, options) => {
		refuseTypedAsText(name);
		const key = options?.extractValue ? `${name}:value` : name;
		if (resolved.has(key)) return resolved.get(key);
		if (!containsExpression(savedAt(raw, name))) {
			const value = frozen(context.getNodeParameter(name, itemIndex, fallback, options));
			resolved.set(key, value);
			return value;
		}
		const reading = options ? ({ by: 'n8n' } as const) : readingOf(name);
		if (reading.by === 'fields') {
			inputJson ??= context.getInputData().map((item) => item?.json);
			const fromFields = reading.value(inputJson[itemIndex]);
			if (fromFields !== ASK_N8N) {
				if (!checksItem(reading, itemIndex, inputJson.length)) return fromFields;
				const value = context.getNodeParameter(name, itemIndex, fallback, options);
				if (sameJson(value, fromFields)) reading.checkedOnce = true;
				else readings.set(name, { by: 'n8n' });
				return value;
			}
		}
		return context.getNodeParameter(name, itemIndex, fallback, options);
	};
}

/** The saved value at a parameter's path (`options.defaultCountry`: inside the Options collection). */
function savedAt(raw: IDataObject, name: string): unknown {
	return name
		.split('.')
		.reduce<unknown>(
			(value, key) =>
				typeof value === 'object' && value !== null ? (value as IDataObject)[key] : undefined,
			raw,
		);
}

function containsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(containsExpression);
	if (typeof value === 'object' && value !== null)
		return Object.values(value).some(containsExpression);
	return false;
}
