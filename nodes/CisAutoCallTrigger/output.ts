import type { IDataObject } from 'n8n-workflow';

import { isPlainObject, parseJson } from '../shared/validation';
import { WAIT_MARKER_FIELD, withoutWaitMarker } from '../shared/waitForResult';

/** The output item of an event: the payload as received, with callbackData always an object. */

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
		const parsed = parseJson(trimmed);
		if (isPlainObject(parsed)) return { callbackData: parsed, raw: value };
		return { callbackData: {}, raw: value };
	}
	return { callbackData: {}, raw: value };
}

/** A delivery that passed the trigger's checks: its payload as received, its event, and its Callback Data normalised once. */
export interface Delivery {
	deliveryId: string;
	payload: IDataObject;
	event: string;
	callback: NormalizedCallbackData;
}

/**
 * One output item's JSON: the payload as received plus `event`, `receivedAt`, `deliveryId` and
 * `callbackData` as an object. What "Create and Run and Wait for Result" added to Callback Data
 * (with the wait's key) is left out: the user sees their own Callback Data only.
 */
export function buildOutput({ payload, event, deliveryId, callback }: Delivery, receivedAt: string): IDataObject {
	const { callbackData, raw } = callback;
	const marked = WAIT_MARKER_FIELD in callbackData;
	const output: IDataObject = { ...payload, event, receivedAt, deliveryId, callbackData: withoutWaitMarker(callbackData) as IDataObject };
	if (raw !== undefined && !marked) output.callbackDataRaw = raw as IDataObject;
	return output;
}
