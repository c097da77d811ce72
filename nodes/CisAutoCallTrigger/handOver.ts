import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { processMemory } from '../shared/processMemory';
import { type SsrfBlock, ssrfBlockOf } from '../shared/ssrfBlock';
import {
	type CandidateResult,
	hashWaitKey,
	RESUME_BODY_FIELD,
	type WaitMarker,
	waitMarkerOf,
	withoutWaitMarker,
} from '../shared/waitForResult';
import { isPlainObject } from '../shared/validation';
import { normalizeCallbackData } from './output';

/**
 * The bridge of the "… and Wait for Result" operations, after an event passed the trigger's checks
 * (address, secret, body): the event of a candidate a waiting execution waits for is handed to
 * that execution at THIS n8n's own waiting-webhook address (built from the trigger's own URL; the
 * event only names the execution, its token and the waiting node, each checked for its shape), with
 * the wait's key. A candidate's wait ends at its first answered call or when the service says the
 * person is done (CANDIDATE_CHANGED); a call that was not answered is remembered for the words of
 * "not reached". The events of one wait take turns in this process, and once it resumed the
 * execution it sends nothing more; the waiting node resumes only with a result for every candidate,
 * and n8n 2.x lets only one resume through across processes.
 */

/** What this process knows of one wait. */
interface WaitState {
	/** Final results per input item. */
	results: Record<string, CandidateResult>;
	/** The last unanswered call per input item (for the words of "not reached"). */
	lastCalls: Record<string, IDataObject>;
	/** When this process first held back a Person Done whose last call it had not seen, per input item. */
	heldBackSince: Record<string, number>;
	resumed: boolean;
	/** The hand-overs of this wait, one after the other: at most one resume request at a time. */
	turns: Promise<unknown>;
}

const waits = processMemory<WaitState>('waitsHandedOver');

/**
 * How long a Person Done whose last call this process has not seen is answered "send again": the
 * Call Ended of that call may be on its way, or have reached another webhook process (queue mode),
 * and it decides between "Answered" and "Not reached".
 */
const LAST_CALL_GRACE_MS = 10 * 60 * 1000;

/** What webhook() does after a hand-over. */
export type HandOver =
	/** Done (resumed, recorded, or nothing to resume): answer 200. */
	| { kind: 'done'; resumed: boolean }
	/** Could not be handed over now (n8n busy, execution still being saved): answer so that the service sends it again; `reason` goes to n8n's log. */
	| { kind: 'later'; reason: string }
	/**
	 * n8n's SSRF protection blocks this n8n's own waiting address: no re-send can fix that, so the
	 * service is answered 200 (it stops sending) and the event starts the trigger's workflow, where
	 * the result stays reachable; the waiting execution ends at its time limit.
	 */
	| { kind: 'blocked'; block: SsrfBlock; url: string; execution: string };

const ANSWERED = 'ANSWERED';

function text(value: unknown): string | null {
	return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
}

/**
 * This n8n's waiting-webhook address for the marker: the trigger's own origin (never one from the
 * event) with the waiting path the execution reported (its `$execution.resumeUrl`). A marker
 * without a path: n8n's default, the trigger's own production URL `<base>/<endpoint>/<webhookId>/webhook`
 * gives `<base>/<endpoint>-waiting/`.
 */
export function resumeUrlOf(context: IWebhookFunctions, marker: WaitMarker): string | undefined {
	const own = context.getNodeWebhookUrl('default');
	const webhookId = context.getNode().webhookId;
	if (!own || !webhookId) return undefined;
	let waitingBase: string;
	if (marker.path) {
		waitingBase = `${new URL(own).origin}${marker.path}`;
	} else {
		const suffix = `/${webhookId}/webhook`;
		if (!own.endsWith(suffix)) return undefined;
		const endpointUrl = own.slice(0, -suffix.length);
		const cut = endpointUrl.lastIndexOf('/');
		waitingBase = `${endpointUrl.slice(0, cut)}/${endpointUrl.slice(cut + 1)}-waiting`;
	}
	const url = new URL(`${waitingBase}/${encodeURIComponent(marker.execution)}/${encodeURIComponent(marker.node)}`);
	if (url.origin !== new URL(own).origin) return undefined;
	if (marker.token) url.searchParams.set('signature', marker.token);
	return url.toString();
}

function resultOf(event: string, payload: IDataObject, callbackData: IDataObject, receivedAt: string, lastCall?: IDataObject): CandidateResult {
	const call = event === 'CALL_ENDED' ? payload : (lastCall ?? {});
	// CANDIDATE_CHANGED after an answered call whose own event could not be handed over yet (the
	// execution was not waiting then): the answered call is the result.
	const answered = text(call.status) === ANSWERED;
	return {
		outcome: answered ? 'answered' : 'notReached',
		callStatus: text(call.status),
		callId: text(event === 'CALL_ENDED' ? payload.id : (call.id ?? payload.lastCallId)),
		taskId: text(payload.taskId ?? payload.autoCallId ?? call.taskId),
		result: isPlainObject(call.result) ? call.result : null,
		variables: isPlainObject(call.variables) ? call.variables : null,
		callbackData: withoutWaitMarker(callbackData) as IDataObject,
		endedAt: text(call.endedAt) ?? (event === 'CALL_ENDED' ? receivedAt : text(call.receivedAt) ?? receivedAt),
		endedBy: answered ? 'CALL_ENDED' : event,
	};
}

/** Whether this process saw the person's last call (the Person Done names it; old payloads may not). */
function sawLastCall(state: WaitState, item: string, payload: IDataObject): boolean {
	const lastCallId = text(payload.lastCallId);
	return lastCallId === null || text(state.lastCalls[item]?.id) === lastCallId;
}

/**
 * Hands a verified event with a wait marker to its waiting execution. An answer of "later" (503)
 * makes the service send the event again (it does so for 24 hours): that is how a result reaches
 * the execution when this process cannot hand over a complete set yet, because the execution is
 * not saved as waiting yet, another candidate's result reached another webhook process, or the
 * person's last call is not known here yet.
 */
export async function handOver(context: IWebhookFunctions, event: string, payload: IDataObject): Promise<HandOver> {
	const { callbackData } = normalizeCallbackData(payload.callbackData);
	const marker = waitMarkerOf(callbackData);
	if (!marker || (event !== 'CALL_ENDED' && event !== 'CANDIDATE_CHANGED')) return { kind: 'done', resumed: false };
	const waitId = `${marker.execution}/${marker.node}/${hashWaitKey(marker.key).slice(0, 32)}`;
	const state = waits.get(waitId) ?? { results: {}, lastCalls: {}, heldBackSince: {}, resumed: false, turns: Promise.resolve() };
	waits.set(waitId, state);
	// Events of one wait that arrive together (an answered Call Ended and its Person Done, re-sends)
	// take turns: the first resumes, the others then find it resumed.
	const turn = state.turns.then(async () => await handOverInTurn(context, event, payload, callbackData, marker, state));
	state.turns = turn.catch(() => undefined);
	return await turn;
}

async function handOverInTurn(
	context: IWebhookFunctions,
	event: string,
	payload: IDataObject,
	callbackData: IDataObject,
	marker: WaitMarker,
	state: WaitState,
): Promise<HandOver> {
	const receivedAt = new Date().toISOString();
	const item = String(marker.item);
	if (state.resumed) return { kind: 'done', resumed: false };

	if (!state.results[item]) {
		if (event === 'CALL_ENDED' && text(payload.status) !== ANSWERED) {
			// A redial may follow: the wait goes on; CANDIDATE_CHANGED says when the person is done.
			state.lastCalls[item] = { ...payload, receivedAt };
			return { kind: 'done', resumed: false };
		}
		if (event === 'CANDIDATE_CHANGED' && !sawLastCall(state, item, payload)) {
			state.heldBackSince[item] ??= Date.now();
			if (Date.now() - state.heldBackSince[item] < LAST_CALL_GRACE_MS) {
				return { kind: 'later', reason: 'the person is done, but the Call Ended of their last call has not arrived here yet' };
			}
		}
		state.results[item] = resultOf(event, payload, callbackData, receivedAt, state.lastCalls[item]);
	}
	const results = { ...state.results };
	const url = resumeUrlOf(context, marker);
	if (!url) return { kind: 'done', resumed: false };

	let status = 0;
	let answer: unknown;
	let failure = '';
	try {
		const response = (await context.helpers.httpRequest({
			method: 'POST',
			url,
			body: { [RESUME_BODY_FIELD]: { key: marker.key, results } },
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: 30_000,
		})) as { statusCode: number; body: unknown };
		status = response.statusCode;
		answer = response.body;
	} catch (error) {
		const block = ssrfBlockOf(error, url);
		if (block) return { kind: 'blocked', block, url: new URL(url).origin, execution: marker.execution };
		status = 0;
		failure = (error instanceof Error ? error.message : String(error)).replace(/signature=[^&\s]+/g, 'signature=***');
	}
	const resumed = status === 200 && (!isPlainObject(answer) || answer.resumed !== false);
	if (resumed) {
		state.resumed = true;
		return { kind: 'done', resumed: true };
	}
	// n8n answers 409 both while the execution still runs (the call ended before the execution was
	// saved as waiting: try again) and once it finished.
	const stillRunning = status === 409 && /running/i.test(isPlainObject(answer) ? String(answer.message ?? '') : String(answer ?? ''));
	// 401: not this wait's key; 404 / 409: the execution is gone or finished (e.g. its time limit
	// passed). Nothing to try again.
	if (!stillRunning && (status === 401 || status === 404 || status === 409)) return { kind: 'done', resumed: false };
	// 202: the execution waits for other candidates, whose results this process may never see (they
	// may reach another webhook process): the result stays here, and its re-send tries again with
	// whatever this process holds by then. Otherwise n8n was busy, the execution was not saved as
	// waiting yet, or it is being resumed right now. The result is kept: the re-send, or another
	// candidate's event, hands it over.
	const reason =
		status === 0
			? `n8n's own waiting address did not answer (${failure || 'no answer'})`
			: status === 202
				? 'the execution waits for the results of other people, not known here yet'
				: `n8n's own waiting address answered ${status}`;
	return { kind: 'later', reason: `${reason} (execution ${marker.execution})` };
}
