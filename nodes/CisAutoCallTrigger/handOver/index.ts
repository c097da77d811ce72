import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { type WaitMarker, waitMarkerOf } from '../../shared/waitForResult';
import { type HandOverDecision, handOverDecision } from './decision';
import { type EventOfAWait, handOver } from './handOver';
import { cameBackHere, passedOnBy } from './passOn';

/**
 * The trigger's half of "… and Wait for Result", and the only way into this folder: an event of a
 * call that a waiting execution waits for is handed to that execution at this n8n's own waiting
 * address (handOver.ts), with what this process knows of the wait (waitState.ts); n8n's answer
 * (resumeAnswer.ts) decides what the service is answered and whether the event also starts the
 * trigger's workflow (decision.ts). In queue mode a Person Done may be passed on to the process
 * that got its last call (passOn.ts). The action node's half is nodes/CisAutoCall/actions/waiting/.
 */

export { warnIfHandOverBlocked } from './ownAddress';
export { CAME_BACK, CAME_BACK_FIELD, PASSED_ON_HEADER } from './passOn';
export type { HandOverDecision } from './decision';

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
export function waitingCallOf(context: IWebhookFunctions, callbackData: IDataObject): WaitingCall | undefined {
	const marker = waitMarkerOf(callbackData);
	if (marker === undefined) return undefined;
	const passer = passedOnBy(context);
	return { marker, passedOn: passer !== undefined, cameBack: cameBackHere(passer) };
}

/** Hands a verified event of a waiting call over, and says what comes of it: an answer now, or the workflow started with the event. */
export async function handOverDelivery(
	context: IWebhookFunctions,
	delivery: EventOfAWait & { deliveryId: string; forget: () => void },
): Promise<HandOverDecision> {
	const handed = await handOver(context, delivery);
	return handOverDecision(context, handed, delivery.event, delivery.deliveryId, delivery.forget);
}
