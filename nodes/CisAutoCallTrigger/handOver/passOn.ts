import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { THIS_PROCESS } from '../../shared/processMemory';
import { isPlainObject } from '../../shared/validation';
import { postToThisN8n } from './ownAddress';
import { SECRET_PARAMETER } from '../secret';

/**
 * Queue mode, several webhook processes: a Person Done (CANDIDATE_CHANGED) whose last call this
 * process has not seen is passed on once through n8n's public webhook address (the trigger's own
 * production URL, so the balancer in front of the webhook processes picks the process), as the
 * service would re-send it. The process that got that last call's Call Ended then holds both and
 * hands the result over at once. Without it, a balancer that alternates strictly between two
 * processes can bring the Call Ended to one and the Person Done to the other at every re-send,
 * until the grace ends (docs/queue-mode.md).
 */

/** The header that marks an event passed on, naming the process that passed it on. */
export const PASSED_ON_HEADER = 'x-cis-autocall-passed-on-by';

/** The `ignored` reason of an event passed on that came back to its own process, in words for n8n's log. */
export const CAME_BACK = 'passed on to the process that passed it on';

/** The field of the trigger's answer that says an event passed on came back to its own process. */
export const CAME_BACK_FIELD = 'cameBack';

/** Tries while the balancer brings the event back to this process. */
const MAX_TRIES = 2;

/** Whether the request is an event another process (or this one) passed on; such an event is never passed on again. */
export function passedOnBy(context: IWebhookFunctions): string | undefined {
	const value = context.getHeaderData()[PASSED_ON_HEADER];
	return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Whether an event passed on came back to the process that passed it on. */
export function cameBackHere(passer: string | undefined): boolean {
	return passer === THIS_PROCESS;
}

/**
 * Passes the event on; true when another process took it for good (its answer is the trigger's
 * 200 without `ignored`: handed over, or started its workflow). Anything else (this process
 * again, a repeat, a process starting up, no answer, n8n's SSRF protection) leaves it to the
 * service's re-sends.
 */
export async function passOn(context: IWebhookFunctions, payload: IDataObject): Promise<boolean> {
	const own = context.getNodeWebhookUrl('default');
	const secret = (context.getQueryData() as IDataObject)[SECRET_PARAMETER];
	if (!own || context.getMode() === 'manual') return false;
	const url = new URL(own);
	if (typeof secret === 'string') url.searchParams.set(SECRET_PARAMETER, secret);
	for (let tries = 0; tries < MAX_TRIES; tries++) {
		let answer: { statusCode: number; body: unknown };
		try {
			answer = await postToThisN8n(context, url.toString(), payload, {
				[PASSED_ON_HEADER]: THIS_PROCESS,
			});
		} catch {
			return false;
		}
		const body = isPlainObject(answer.body) ? answer.body : {};
		if (answer.statusCode !== 200 || body.received !== true) return false;
		if (body.ignored === undefined) return true;
		if (body[CAME_BACK_FIELD] !== true) return false;
	}
	return false;
}
