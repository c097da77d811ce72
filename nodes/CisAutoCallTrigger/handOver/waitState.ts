import type { IDataObject } from 'n8n-workflow';

import { processMemory } from '../../shared/processMemory';
import { type CandidateResult, hashWaitKey, type WaitMarker, withoutWaitMarker } from '../../shared/waitForResult';
import { isPlainObject } from '../../shared/validation';

/**
 * What this process knows of each wait it handed events over to: the results so far, the last
 * unanswered calls, the Person Done held back, and whether it resumed the execution. Only a cache:
 * the service keeps every event until n8n's answer says the wait needs it no more (handOver.ts).
 */

/** What this process knows of one wait. */
export interface WaitState {
	/** Final results per input item. */
	results: Record<string, CandidateResult>;
	/** The last unanswered call per input item (for the words of "not reached"). */
	lastCalls: Record<string, IDataObject>;
	/** A Person Done held back per input item (its last call not seen here yet), and since when. */
	personsDone: Record<string, { payload: IDataObject; receivedAt: string; since: number }>;
	/** Input items whose result started the trigger's workflow instead (the execution no longer waited). */
	notHandedOver: Record<string, true>;
	resumed: boolean;
	/** The hand-overs of this wait, one after the other: at most one resume request at a time. */
	turns: Promise<unknown>;
}

const waits = processMemory<WaitState>('waitsHandedOver');

/**
 * How long a Person Done whose last call this process has not seen is answered "send again": the
 * Call Ended of that call may be on its way, or at another webhook process (queue mode), which
 * answers it 503 until the wait no longer needs it, so that the service's re-send brings it here.
 * It decides between "Answered" and "Not reached".
 */
const LAST_CALL_GRACE_MS = 10 * 60 * 1000;

/** This process's state of the wait `marker` names (a new one when it has none yet). */
export function waitStateOf(marker: WaitMarker): WaitState {
	const waitId = `${marker.execution}/${marker.node}/${hashWaitKey(marker.key).slice(0, 32)}`;
	const state = waits.get(waitId) ?? { results: {}, lastCalls: {}, personsDone: {}, notHandedOver: {}, resumed: false, turns: Promise.resolve() };
	waits.set(waitId, state);
	return state;
}

const ANSWERED = 'ANSWERED';

function text(value: unknown): string | null {
	return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
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

/** Takes what the event says of its candidate into `state`; returns whether it holds the candidate's result. */
export function learn(state: WaitState, item: string, event: string, payload: IDataObject, callbackData: IDataObject): boolean {
	if (state.results[item]) return true;
	const receivedAt = new Date().toISOString();
	if (event === 'CALL_ENDED' && text(payload.status) !== ANSWERED) {
		// A redial may follow: the wait goes on, until CANDIDATE_CHANGED says the person is done.
		state.lastCalls[item] = { ...payload, receivedAt };
		const held = state.personsDone[item];
		if (held && sawLastCall(state, item, held.payload)) {
			state.results[item] = resultOf('CANDIDATE_CHANGED', held.payload, callbackData, held.receivedAt, state.lastCalls[item]);
		}
	} else if (event === 'CANDIDATE_CHANGED' && !sawLastCall(state, item, payload)) {
		const held = (state.personsDone[item] ??= { payload, receivedAt, since: Date.now() });
		if (Date.now() - held.since >= LAST_CALL_GRACE_MS) {
			state.results[item] = resultOf(event, payload, callbackData, receivedAt, state.lastCalls[item]);
		}
	} else {
		state.results[item] = resultOf(event, payload, callbackData, receivedAt, state.lastCalls[item]);
	}
	return state.results[item] !== undefined;
}
