import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { parametersOf, whereInLog } from '../parameterReader';
import { readEvents, readOptions } from '../settings';
import type { HandOver } from './handOver';

/** After a hand-over: answer the service now, or start the workflow with the event (`notHandedOver` says why, when it was not). */
export type HandOverDecision = { kind: 'answer'; response: IWebhookResponseData } | { kind: 'startWorkflow'; notHandedOver?: string };

/**
 * What an event handed to its waiting execution leads to. "Later": answered 503, so that the
 * service sends it again (its delivery is forgotten, so that the re-send is not a repeat).
 * "Not handed over" (n8n's SSRF protection blocks the hand-over, or n8n says the execution no longer
 * waits): a re-send cannot change it, so the service is answered 200 and the event starts this
 * workflow, so that the result is not lost. Otherwise the event starts this workflow only
 * when Output Waiting Calls is on and its event is selected.
 */
export function handOverDecision(context: IWebhookFunctions, handed: HandOver, event: string, deliveryId: string, forget: () => void): HandOverDecision {
	const where = whereInLog(context);
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
