import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { WAIT_MARKER_FIELD, withoutWaitMarker } from '../../shared/waitForResult';
import { answerSendAgain, CAME_BACK_FIELD, handOverDelivery } from '../handOver';
import { whereInLog } from '../triggerParameters';
import { type Delivery, verifyDelivery } from './verify';

/**
 * The trigger's webhook(), per request, and the only way into this folder besides the secret's
 * own (secret/index.ts): what one delivery of the service leads to. It is verified first
 * (verify.ts, which reads the settings once); an event of a call that a waiting execution waits for
 * is handed over (handOver/), and what came of the hand-over decides the answer to the service and
 * whether the event also starts the trigger's workflow, as its output item (`buildOutput()`).
 */

export { MAX_REMEMBERED_DELIVERIES } from './deliveries';
export { DEFAULT_EVENTS, readEvents, readOptions } from './verify';

/** Verifies a delivery and answers it: refused, ignored, handed over, or the workflow started with the event as one item. */
export async function answerDelivery(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const verdict = await verifyDelivery(context);
	if (verdict.kind === 'refused') {
		context.logger.warn(
			`${whereInLog(context)} refused an event with ${verdict.status}: ${verdict.error}${verdict.why ? ` (${verdict.why})` : ''}`,
		);
		context
			.getResponseObject()
			.status(verdict.status)
			.json({ received: false, error: verdict.error });
		return { noWebhookResponse: true };
	}
	const { deliveryId } = verdict;
	if (verdict.kind === 'sendAgain') {
		context.logger.debug(
			`${whereInLog(context)} answered 503 (the service sends the event again): its first delivery is being handed over now`,
		);
		return answerSendAgain(
			context,
			deliveryId,
			'This event is being handed to its waiting workflow now; send it again',
		);
	}
	if (verdict.kind === 'ignored') {
		return {
			webhookResponse: {
				received: true,
				deliveryId,
				ignored: verdict.reason,
				...(verdict.cameBack ? { [CAME_BACK_FIELD]: true } : {}),
			},
		};
	}
	let notHandedOver: string | undefined;
	if (verdict.kind === 'waitingCall') {
		// Create and Run and Wait for Result: the event continues the execution waiting for it.
		const decision = await handOverDelivery(context, {
			...verdict,
			callbackData: verdict.callback.callbackData,
		});
		if (decision.kind === 'answer') return decision.response;
		notHandedOver = decision.notHandedOver;
	}
	const output = buildOutput(verdict, new Date().toISOString());
	if (notHandedOver !== undefined) output.notHandedOver = notHandedOver;
	return {
		workflowData: [context.helpers.returnJsonArray([output])],
		// The why (n8n's own addresses and settings) stays in n8n: the log and this workflow's item.
		webhookResponse: {
			received: true,
			deliveryId,
			...(notHandedOver === undefined ? {} : { handedOver: false }),
		},
	};
}

/**
 * One output item's JSON: the payload as received plus `event`, `receivedAt`, `deliveryId` and
 * `callbackData` as an object. What "Create and Run and Wait for Result" added to Callback Data
 * (with the wait's key) is left out: the user sees their own Callback Data only.
 */
export function buildOutput(
	{ payload, event, deliveryId, callback }: Delivery,
	receivedAt: string,
): IDataObject {
	const { callbackData, raw } = callback;
	const marked = WAIT_MARKER_FIELD in callbackData;
	const output: IDataObject = {
		...payload,
		event,
		receivedAt,
		deliveryId,
		callbackData: withoutWaitMarker(callbackData) as IDataObject,
	};
	if (raw !== undefined && !marked) output.callbackDataRaw = raw as IDataObject;
	return output;
}
