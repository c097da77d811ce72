import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { isAddressAllowed, parseAddressList } from '../../shared/ipAddresses';
import type { ReadParameter } from '../../shared/parameterReaders';
import { processMemory } from '../../shared/processMemory';
import { isPlainObject, parseJson } from '../../shared/validation';
import type { WaitMarker } from '../../shared/waitForResult';
import { CAME_BACK, isBeingHandedOver, markHandingOver, waitingCallOf } from '../handOver';
import { isEmptyBody, parseEventBody } from './body';
import { DeliveryMemory, deliveryIdOf, subjectOf } from './deliveries';
import { checkDeliverySecret } from '../secret';
import { savedParametersOf } from '../triggerParameters';

/**
 * The checks of one delivery, in order (source address, secret, body, event filter, repeats),
 * called first in webhook(): it says whether to refuse the request, answer it without starting
 * the workflow, or start it with the event. The settings they need are read here, once per
 * delivery, and travel in the verdict.
 */

/** The events selected when the node is added, and read when a workflow has none saved. */
export const DEFAULT_EVENTS = ['CALL_ENDED', 'CANDIDATE_CHANGED'];

/** The "Options" collection of the trigger. */
export interface TriggerOptions {
	allowedAddresses?: string;
	ignoreRepeats?: boolean;
	/** Read by registration/publicUrl.ts from the saved parameters only (never through an expression). */
	allowLocalUrl?: boolean;
	/** Whether events of calls a waiting execution gets (Create and Run and Wait for Result) also start this workflow. */
	outputWaitingCalls?: boolean;
}

/** The selected events; older workflows may hold them as a comma-separated text. */
export function readEvents(read: ReadParameter): string[] {
	const value = read('events', DEFAULT_EVENTS);
	const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
	return list.map((event) => String(event).trim()).filter((event) => event !== '');
}

/** The "Options" collection, empty when not set. */
export function readOptions(read: ReadParameter): TriggerOptions {
	return (read('options', {}) ?? {}) as TriggerOptions;
}

/** The settings a delivery is checked against, read once per delivery (Events and Options sit at the top level in every version). */
interface DeliverySettings {
	events: string[];
	options: TriggerOptions;
}

/** Callback Data as an object, and what the service sent when it was not one. */
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
 * Deliveries seen by this n8n process (all triggers), for repeat detection. In memory only:
 * static data written from webhook() would be saved whole by the webhook process and could
 * overwrite a newer registration written by the main process (queue mode).
 */
const deliveries = new DeliveryMemory(processMemory('deliveriesSeen'));

/** What webhook() does with a delivery. */
export type Verdict =
	/** `why`: for n8n's log only (never the sender's answer). */
	| { kind: 'refused'; status: number; error: string; why?: string }
	/** `cameBack`: an event this process passed on, brought back to it (handOver/passOn.ts reads it in the answer). */
	| { kind: 'ignored'; deliveryId: string; reason: string; cameBack?: true }
	/** A re-send of an event this process is handing over right now: answered 503, so that the service sends it again. */
	| { kind: 'sendAgain'; deliveryId: string }
	| ({ kind: 'accepted' } & Delivery)
	/** An event of a call a waiting execution gets: its Callback Data carries the wait's marker, parsed once, here. */
	| ({
			kind: 'waitingCall';
			marker: WaitMarker;
			forget: () => void;
			endHandingOver: () => void;
			passedOn: boolean;
			settings: DeliverySettings;
	  } & Delivery);

/** Runs the checks of a delivery; static data is only read here, never written (see `deliveries`). */
export async function verifyDelivery(context: IWebhookFunctions): Promise<Verdict> {
	const request = context.getRequestObject();
	const read = savedParametersOf(context);
	const settings: DeliverySettings = { events: readEvents(read), options: readOptions(read) };
	const refused = (status: number, error: string, why?: string): Verdict => ({
		kind: 'refused',
		status,
		error,
		...(why === undefined ? {} : { why }),
	});

	// 1. Source address.
	const allowList = parseAddressList(settings.options.allowedAddresses);
	if (allowList.ranges.length > 0 || allowList.invalid.length > 0) {
		const ip = request.ip ?? request.socket?.remoteAddress;
		if (!isAddressAllowed(ip, allowList))
			return refused(403, 'This address may not send events to this trigger');
	}

	// 2. Secret.
	const secret = await checkDeliverySecret(context);
	if (typeof secret === 'object')
		return refused(
			503,
			'n8n could not read the webhook secret now; send the event again',
			secret.unreadable,
		);
	if (secret === 'wrong') return refused(401, 'Missing or wrong secret');

	// 3. Body.
	const contentType = String(request.headers?.['content-type'] ?? '').toLowerCase();
	const body = context.getBodyData();
	if (
		isEmptyBody(body) &&
		request.rawBody === undefined &&
		typeof request.readRawBody === 'function'
	) {
		// Version 1.1: n8n did not read a body whose content type it does not parse.
		await request.readRawBody();
	}
	const parsed = parseEventBody(body, request.rawBody, contentType.startsWith('application/json'));
	if (!parsed.ok) return refused(400, `Not an event: ${parsed.reason}`);
	const deliveryId = deliveryIdOf(parsed.payload);
	const delivery: Delivery = {
		deliveryId,
		payload: parsed.payload,
		event: parsed.event,
		callback: normalizeCallbackData(parsed.payload.callbackData),
	};
	// What the delivery is about, per workflow, trigger node and mode, for repeat detection.
	const subject = `${context.getWorkflow().id ?? ''}:${context.getNode().id}:${context.getMode()}:${subjectOf(parsed.event, parsed.payload)}`;

	// 3b. An event of a call that a waiting execution gets (handOver/): handed over whatever the
	// event filter, and never twice (repeats are always ignored).
	const waitingCall = waitingCallOf(context, delivery.callback.callbackData);
	if (waitingCall !== undefined) {
		if (waitingCall.cameBack)
			return { kind: 'ignored', deliveryId, reason: CAME_BACK, cameBack: true };
		// Until its hand-over ends, what comes of the event is not known: a 200 now could lose it.
		if (isBeingHandedOver(waitingCall.marker, deliveryId)) return { kind: 'sendAgain', deliveryId };
		if (deliveries.isRepeat(subject, deliveryId))
			return { kind: 'ignored', deliveryId, reason: 'repeated delivery' };
		return {
			kind: 'waitingCall',
			...delivery,
			marker: waitingCall.marker,
			forget: () => deliveries.forget(subject, deliveryId),
			// Marked in the same step as the repeat check, so that no re-send finds it seen but not marked.
			endHandingOver: markHandingOver(waitingCall.marker, deliveryId),
			passedOn: waitingCall.passedOn,
			settings,
		};
	}

	// 4. Event filter: answered 200 so that the service does not re-send it.
	if (!settings.events.includes(parsed.event))
		return { kind: 'ignored', deliveryId, reason: 'event not selected' };

	// 5. Repeated deliveries: the latest body seen for the same event and task / candidate / call,
	// again within 24 hours, in this process (deliveries.ts).
	if (settings.options.ignoreRepeats !== false) {
		if (deliveries.isRepeat(subject, deliveryId)) {
			return { kind: 'ignored', deliveryId, reason: 'repeated delivery' };
		}
	}

	return { kind: 'accepted', ...delivery };
}
