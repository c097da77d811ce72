import type { IDataObject } from 'n8n-workflow';

import { processMemory } from '../../shared/processMemory';
import { newTurns, type Turns } from '../../shared/serialQueue';
import { type CandidateResult, hashWaitKey, type WaitMarker, withoutWaitMarker } from '../../shared/waitForResult';
import { isPlainObject } from '../../shared/validation';

/**
 * What this process knows of each wait it handed events over to: the results so far, the last
 * unanswered calls, the Person Done held back, and whether it resumed the execution. Only a cache:
 * the service keeps every event that holds a result until n8n's answer says the wait needs it no more
 * (handOver.ts); an unanswered Call Ended only a few times (UNANSWERED_CALL_HOLDS).
 */

/** What this process knows of one wait. */
export interface WaitState {
	/** Final results per input item. */
	results: Record<string, CandidateResult>;
	/** The last unanswered call per input item (for the words of "not reached"). */
	lastCalls: Record<string, IDataObject>;
	/** A Person Done held back per input item (its last call not seen here yet), and since when. */
	personsDone: Record<string, { payload: IDataObject; receivedAt: string; since: number }>;
	/** Per input item, the unanswered Call Ended this process answered "send again", and how many times. */
	heldCalls: Record<string, { callId: string | null; times: number }>;
	/** Input items whose result started the trigger's workflow instead (the execution no longer waited). */
	notHandedOver: Record<string, true>;
	resumed: boolean;
	/** The hand-overs of this wait, one after the other: at most one resume request at a time. */
	turns: Turns;
}

const waits = processMemory<WaitState>('waitsHandedOver');

/**
 * How long a Person Done whose last call this process has not seen is answered "send again": the
 * Call Ended of that call may be on its way, or at another webhook process (queue mode), which
 * holds it for a few re-sends (UNANSWERED_CALL_HOLDS), so that the service's re-send brings it
 * here. It decides between "Answered" and "Not reached"; after this, the result is "Not reached"
 * without the last call's status.
 */
const LAST_CALL_GRACE_MS = 2 * 60 * 1000;

/**
 * How many times a process answers "send again" to a waiting person's Call Ended that was not
 * answered (not a result: it only gives "Not reached" its last call's status). Then it takes it (200)
 * and keeps what it says, so that a service that sends a person's later events only after an earlier
 * one was taken is never held back; a process that dies after that loses only those status words.
 */
const UNANSWERED_CALL_HOLDS = 3;

/** This process's state of the wait `marker` names (a new one when it has none yet). */
export function waitStateOf(marker: WaitMarker): WaitState {
	const waitId = `${marker.execution}/${marker.node}/${hashWaitKey(marker.key).slice(0, 32)}`;
	const state = waits.get(waitId) ?? { results: {}, lastCalls: {}, personsDone: {}, heldCalls: {}, notHandedOver: {}, resumed: false, turns: newTurns() };
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

/**
 * Whether an unanswered Call Ended that the hand-over would answer "send again" was held often enough
 * in this process (UNANSWERED_CALL_HOLDS) and is taken now; counts this hold otherwise. What it says
 * stays in `state.lastCalls`. Never an event that holds a result.
 */
export function heldOftenEnough(state: WaitState, item: string, event: string, payload: IDataObject): boolean {
	if (event !== 'CALL_ENDED' || text(payload.status) === ANSWERED || state.results[item]) return false;
	const callId = text(payload.id);
	const held = state.heldCalls[item]?.callId === callId ? state.heldCalls[item] : (state.heldCalls[item] = { callId, times: 0 });
	if (held.times >= UNANSWERED_CALL_HOLDS) return true;
	held.times++;
	return false;
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
