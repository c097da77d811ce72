import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { CAME_BACK_FIELD, handOverDelivery } from './handOver';
import { buildOutput } from './output';
import { whereInLog } from './parameterReader';
import { verifyDelivery } from './verify';

/**
 * The trigger's webhook(): what one delivery of the service leads to. It is verified first
 * (verify.ts); an event of a call that a waiting execution waits for is handed over (handOver/),
 * and what came of the hand-over decides the answer to the service and whether the event also
 * starts the trigger's workflow.
 */

/** Verifies a delivery and answers it: refused, ignored, handed over, or the workflow started with the event as one item. */
export async function answerDelivery(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const verdict = await verifyDelivery(context);
	if (verdict.kind === 'refused') {
		context.logger.warn(`${whereInLog(context)} refused an event with ${verdict.status}: ${verdict.error}`);
		context.getResponseObject().status(verdict.status).json({ received: false, error: verdict.error });
		return { noWebhookResponse: true };
	}
	const { deliveryId } = verdict;
	if (verdict.kind === 'ignored') {
		return { webhookResponse: { received: true, deliveryId, ignored: verdict.reason, ...(verdict.cameBack ? { [CAME_BACK_FIELD]: true } : {}) } };
	}
	let notHandedOver: string | undefined;
	if (verdict.kind === 'waitingCall') {
		// Create and Run and Wait for Result: the event continues the execution waiting for it.
		const decision = await handOverDelivery(context, { ...verdict, callbackData: verdict.callback.callbackData });
		if (decision.kind === 'answer') return decision.response;
		notHandedOver = decision.notHandedOver;
	}
	const output = buildOutput(verdict, new Date().toISOString());
	if (notHandedOver !== undefined) output.notHandedOver = notHandedOver;
	return {
		workflowData: [context.helpers.returnJsonArray([output])],
		// The why (n8n's own addresses and settings) stays in n8n: the log and this workflow's item.
		webhookResponse: { received: true, deliveryId, ...(notHandedOver === undefined ? {} : { handedOver: false }) },
	};
}
