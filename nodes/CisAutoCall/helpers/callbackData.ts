import type { IDataObject } from 'n8n-workflow';

import {
	describeValue,
	InputError,
	optionalString,
	requireNestingWithin,
	setUserKey,
	toObject,
} from '../../shared/validation';

/**
 * A candidate's Callback Data from its Additional Fields: the JSON object (Callback Data (JSON)) and
 * the name/value pairs of version 3 (Callback Data), merged, the pairs winning. A value keeps what
 * its expression gives (a text, a number, an object). Undefined when there is none.
 */
export function readCallbackData(extra: IDataObject): IDataObject | undefined {
	const fromJson = toObject('callbackData', extra.callbackData) ?? {};
	const fromPairs = callbackDataPairs(extra.callbackDataPairs);
	const callbackData: IDataObject = { ...fromJson };
	for (const [name, value] of Object.entries(fromPairs))
		setUserKey(callbackData, 'callbackData', name, value);
	if (Object.keys(callbackData).length === 0) return undefined;
	requireNestingWithin('callbackData', callbackData);
	return callbackData;
}

function callbackDataPairs(value: unknown): IDataObject {
	const pairs = ((value as IDataObject | undefined)?.field ?? []) as IDataObject[];
	const result: IDataObject = {};
	pairs.forEach((pair, index) => {
		const field = `callbackData[${index}].name`;
		const name = optionalString(pair.name, field);
		if (name !== undefined) setUserKey(result, field, name, pair.value);
		else if (pair.value !== undefined && pair.value !== null && pair.value !== '') {
			throw new InputError(
				field,
				pair.name,
				`is empty while the value is ${describeValue(pair.value)}; enter the field's name, e.g. lead`,
			);
		}
	});
	return result;
}
