import type { IWebhookFunctions } from 'n8n-workflow';

import { isAddressAllowed, parseAddressList } from '../shared/ipAddresses';
import { parseEventBody } from './body';
import { DeliveryMemory, deliveryIdOf, subjectOf } from './deliveries';
import { CAME_BACK, waitingCallOf } from './handOver';
import { type Delivery, normalizeCallbackData } from './output';
import { deliveryHasSecret } from './secret';
import { processMemory } from '../shared/processMemory';
import { parametersOf } from './parameterReader';
import { readEvents, readOptions } from './settings';
import type { WaitMarker } from '../shared/waitForResult';

/**
 * The checks of one delivery, in order (source address, secret, body, event filter, repeats),
 * called first in webhook(): it says whether to refuse the request, answer it without starting
 * the workflow, or start it with the event.
 */

/**
 * Deliveries seen by this n8n process (all triggers), for repeat detection. In memory only:
 * static data written from webhook() would be saved whole by the webhook process and could
 * overwrite a newer registration written by the main process (queue mode).
 */
const deliveries = new DeliveryMemory(processMemory('deliveriesSeen'));

/** What webhook() does with a delivery. */
export type Verdict =
	| { kind: 'refused'; status: number; error: string }
	/** `cameBack`: an event this process passed on, brought back to it (handOver/passOn.ts reads it in the answer). */
	| { kind: 'ignored'; deliveryId: string; reason: string; cameBack?: true }
	| ({ kind: 'accepted' } & Delivery)
	/** An event of a call a waiting execution gets: its Callback Data carries the wait's marker, parsed once, here. */
	| ({ kind: 'waitingCall'; marker: WaitMarker; forget: () => void; passedOn: boolean } & Delivery);

/** What n8n leaves in the body when it did not parse one. */
function isEmptyBody(body: unknown): boolean {
	return body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);
}

/** Runs the checks of a delivery; static data is only read here, never written (see `deliveries`). */
export async function verifyDelivery(context: IWebhookFunctions): Promise<Verdict> {
	const request = context.getRequestObject();
	const read = parametersOf(context);
	const options = readOptions(read);
	const refused = (status: number, error: string): Verdict => ({ kind: 'refused', status, error });

	// 1. Source address.
	const allowList = parseAddressList(options.allowedAddresses);
	if (allowList.ranges.length > 0 || allowList.invalid.length > 0) {
		const ip = request.ip ?? request.socket?.remoteAddress;
		if (!isAddressAllowed(ip, allowList)) return refused(403, 'This address may not send events to this trigger');
	}

	// 2. Secret.
	if (!(await deliveryHasSecret(context))) return refused(401, 'Missing or wrong secret');

	// 3. Body.
	const contentType = String(request.headers?.['content-type'] ?? '').toLowerCase();
	const body = context.getBodyData();
	if (isEmptyBody(body) && request.rawBody === undefined && typeof request.readRawBody === 'function') {
		// Version 1.1: n8n did not read a body whose content type it does not parse.
		await request.readRawBody();
	}
	const parsed = parseEventBody(body, request.rawBody, contentType.startsWith('application/json'));
	if (!parsed.ok) return refused(400, `Not an event: ${parsed.reason}`);
	const deliveryId = deliveryIdOf(parsed.payload);
	const delivery: Delivery = { deliveryId, payload: parsed.payload, event: parsed.event, callback: normalizeCallbackData(parsed.payload.callbackData) };
	const scope = `${context.getWorkflow().id ?? ''}:${context.getNode().id}:${context.getMode()}`;

	// 3b. An event of a call that a waiting execution gets (handOver/): handed over whatever the
	// event filter, and never twice (repeats are always ignored).
	const waitingCall = waitingCallOf(context, delivery.callback.callbackData);
	if (waitingCall !== undefined) {
		if (waitingCall.cameBack) return { kind: 'ignored', deliveryId, reason: CAME_BACK, cameBack: true };
		const subject = `${scope}:${subjectOf(parsed.event, parsed.payload)}`;
		if (deliveries.isRepeat(subject, deliveryId)) return { kind: 'ignored', deliveryId, reason: 'repeated delivery' };
		return {
			kind: 'waitingCall',
			...delivery,
			marker: waitingCall.marker,
			forget: () => deliveries.forget(subject, deliveryId),
			passedOn: waitingCall.passedOn,
		};
	}

	// 4. Event filter: answered 200 so that the service does not re-send it.
	if (!readEvents(read).includes(parsed.event)) return { kind: 'ignored', deliveryId, reason: 'event not selected' };

	// 5. Repeated deliveries: the latest body seen for the same event and task / candidate / call,
	// again within 24 hours, in this process (deliveries.ts).
	if (options.ignoreRepeats !== false) {
		if (deliveries.isRepeat(`${scope}:${subjectOf(parsed.event, parsed.payload)}`, deliveryId)) {
			return { kind: 'ignored', deliveryId, reason: 'repeated delivery' };
		}
	}

	return { kind: 'accepted', ...delivery };
}
