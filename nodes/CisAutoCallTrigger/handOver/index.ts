import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { type WaitMarker, waitMarkerOf } from '../../shared/waitForResult';
import { whereInLog } from '../triggerParameters';
import { type EventOfAWait, type HandOver, handOver } from './handOver';
import { cameBackHere, passedOnBy } from './passOn';

/**
 * The trigger's half of "… and Wait for Result", and the only way into this folder: an event of a
 * call that a waiting execution waits for is handed to that execution at this n8n's own waiting
 * address (handOver.ts), with what this process knows of the wait (waitState.ts); n8n's answer
 * (resumeAnswer.ts) decides what the service is answered and whether the event also starts the
 * trigger's workflow (`handOverDecision()`, with the settings the delivery's checks read). In queue
 * mode a Person Done may be passed on to the process that got its last call (passOn.ts). The action
 * node's half is nodes/CisAutoCall/actions/waiting/.
 */

export { warnIfHandOverBlocked } from './ownAddress';
export { CAME_BACK, CAME_BACK_FIELD, PASSED_ON_HEADER } from './passOn';
export { isBeingHandedOver, markHandingOver } from './waitState';

/** What the checks of a delivery learn of a wait from its Callback Data: the marker, parsed here once, and how the event came. */
export interface WaitingCall {
	marker: WaitMarker;
	/** Another webhook process passed it on: it is not passed on again. */
	passedOn: boolean;
	/** This very process passed it on and the balancer brought it back: it is answered at once, and the passing on tries again. */
	cameBack: boolean;
}

/**
 * Whether a delivery is an event of a call a waiting execution waits for (its Callback Data, as an
 * object, carries a valid marker). Such an event is handed over whatever the event filter (the
 * waiting execution needs both events), and never twice.
 */
export function waitingCallOf(
	context: IWebhookFunctions,
	callbackData: IDataObject,
): WaitingCall | undefined {
	const marker = waitMarkerOf(callbackData);
	if (marker === undefined) return undefined;
	const passer = passedOnBy(context);
	return { marker, passedOn: passer !== undefined, cameBack: cameBackHere(passer) };
}

/** A verified delivery of a waiting call, with the trigger's settings its checks read (delivery/verify.ts). */
export interface DeliveryOfAWait extends EventOfAWait {
	deliveryId: string;
	/** Forgets the delivery, so that the service's re-send is not taken for a repeat. */
	forget: () => void;
	/** Ends its mark "being handed over" (set by the checks when they let it through: `markHandingOver()`). */
	endHandingOver: () => void;
	settings: { events: readonly string[]; options: { outputWaitingCalls?: boolean } };
}

/** Hands a verified event of a waiting call over, and says what comes of it: an answer now, or the workflow started with the event. */
export async function handOverDelivery(
	context: IWebhookFunctions,
	delivery: DeliveryOfAWait,
): Promise<HandOverDecision> {
	try {
		const handed = await handOver(context, delivery);
		return handOverDecision(context, handed, delivery);
	} catch (error) {
		// n8n answers 500: the re-send must be handed over again, not taken for a repeat.
		delivery.forget();
		throw new NodeOperationError(context.getNode(), error as Error);
	} finally {
		delivery.endHandingOver();
	}
}

/** Answers the service 503, so that it sends the event again: what comes of it is not known yet. */
export function answerSendAgain(
	context: IWebhookFunctions,
	deliveryId: string,
	error: string,
): IWebhookResponseData {
	context.getResponseObject().status(503).json({ received: false, deliveryId, error });
	return { noWebhookResponse: true };
}

/** After a hand-over: answer the service now, or start the workflow with the event (`notHandedOver` says why, when it was not). */
export type HandOverDecision =
	| { kind: 'answer'; response: IWebhookResponseData }
	| { kind: 'startWorkflow'; notHandedOver?: string };

/**
 * What an event handed to its waiting execution leads to. "Later": answered 503, so that the
 * service sends it again (its delivery is forgotten, so that the re-send is not a repeat).
 * "Not handed over" (n8n's SSRF protection blocks the hand-over, or n8n says the execution no longer
 * waits): a re-send cannot change it, so the service is answered 200 and the event starts this
 * workflow, so that the result is not lost. Otherwise the event starts this workflow only
 * when Output Waiting Calls is on and its event is selected.
 */
function handOverDecision(
	context: IWebhookFunctions,
	handed: HandOver,
	delivery: DeliveryOfAWait,
): HandOverDecision {
	const { event, deliveryId, forget, settings } = delivery;
	const where = whereInLog(context);
	if (handed.kind === 'later') {
		forget();
		context.logger.info(
			`${where} answered 503 (the service sends the event again): ${handed.reason}`,
		);
		return {
			kind: 'answer',
			response: answerSendAgain(
				context,
				deliveryId,
				'The waiting workflow could not take the event yet; send it again',
			),
		};
	}
	if (handed.kind === 'notHandedOver') {
		context.logger.error(`${where}: ${handed.log}`);
		return { kind: 'startWorkflow', notHandedOver: handed.words };
	}
	if (settings.options.outputWaitingCalls === true && settings.events.includes(event))
		return { kind: 'startWorkflow' };
	return {
		kind: 'answer',
		response: { webhookResponse: { received: true, deliveryId, handedOver: true } },
	};
}
