import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { type HandOver, handOver } from './handOver';
import { buildOutput } from './output';
import { parametersOf } from './parameterReader';
import { readEvents, readOptions } from './settings';
import { verifyDelivery } from './verify';

/**
 * The trigger's webhook(): what one delivery of the service leads to. It is verified first
 * (verify.ts); an event of a call that a waiting execution waits for is handed over (handOver.ts),
 * and what came of the hand-over decides the answer to the service and whether the event also
 * starts the trigger's workflow (handOverDecision).
 */

/** After a hand-over: answer the service now, or start the workflow with the event (`notHandedOver` says why, when it was not). */
export type HandOverDecision = { kind: 'answer'; response: IWebhookResponseData } | { kind: 'startWorkflow'; notHandedOver?: string };

/** The words of n8n's log about one trigger node. */
function whereOf(context: IWebhookFunctions): string {
	return `CIS Auto-Call Trigger "${context.getNode().name}" (workflow ${context.getWorkflow().id ?? ''})`;
}

/**
 * What an event handed to its waiting execution leads to. "Later": answered 503, so that the
 * service sends it again (its delivery is forgotten, so that the re-send is not a repeat).
 * "Not handed over" (n8n's SSRF protection blocks the hand-over, or n8n says the execution no longer
 * waits): a re-send cannot change it, so the service is answered 200 and the event starts this
 * workflow, so that the result is not lost. Otherwise the event starts this workflow only
 * when Output Waiting Calls is on and its event is selected.
 */
export function handOverDecision(context: IWebhookFunctions, handed: HandOver, event: string, deliveryId: string, forget: () => void): HandOverDecision {
	const where = whereOf(context);
	let notHandedOver: string | undefined;
	if (handed.kind === 'later') {
		forget();
		context.logger.info(`${where} answered 503 (the service sends the event again): ${handed.reason}`);
		context.getResponseObject().status(503).json({ received: false, error: 'The waiting workflow could not take the event yet; send it again' });
		return { kind: 'answer', response: { noWebhookResponse: true } };
	}
	if (handed.kind === 'notHandedOver') {
		notHandedOver = handed.words;
		context.logger.error(`${where}: ${handed.log}`);
	}
	const read = parametersOf(context);
	if (notHandedOver === undefined && (readOptions(read).outputWaitingCalls !== true || !readEvents(read).includes(event))) {
		return { kind: 'answer', response: { webhookResponse: { received: true, deliveryId, handedOver: true } } };
	}
	return { kind: 'startWorkflow', notHandedOver };
}

/** Verifies a delivery and answers it: refused, ignored, handed over, or the workflow started with the event as one item. */
export async function answerDelivery(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const verdict = await verifyDelivery(context);
	if (verdict.kind === 'refused') {
		context.logger.warn(`${whereOf(context)} refused an event with ${verdict.status}: ${verdict.error}`);
		context.getResponseObject().status(verdict.status).json({ received: false, error: verdict.error });
		return { noWebhookResponse: true };
	}
	const { deliveryId } = verdict;
	if (verdict.kind === 'ignored') return { webhookResponse: { received: true, deliveryId, ignored: verdict.reason } };
	let notHandedOver: string | undefined;
	if (verdict.kind === 'waitingCall') {
		// Create and Run and Wait for Result: the event continues the execution waiting for it.
		const handed = await handOver(context, verdict.event, verdict.payload, verdict.passedOn);
		const decision = handOverDecision(context, handed, verdict.event, deliveryId, verdict.forget);
		if (decision.kind === 'answer') return decision.response;
		notHandedOver = decision.notHandedOver;
	}
	const output = buildOutput(verdict.payload, verdict.event, new Date().toISOString(), deliveryId);
	if (notHandedOver !== undefined) output.notHandedOver = notHandedOver;
	return {
		workflowData: [context.helpers.returnJsonArray([output])],
		// The why (n8n's own addresses and settings) stays in n8n: the log and this workflow's item.
		webhookResponse: { received: true, deliveryId, ...(notHandedOver === undefined ? {} : { handedOver: false }) },
	};
}
