import type { IDataObject } from 'n8n-workflow';

import { processMemory } from '../../shared/processMemory';
import { newTurns, type Turns } from '../../shared/serialQueue';
import {
	type CandidateResult,
	hashWaitKey,
	type WaitMarker,
	withoutWaitMarker,
} from '../../shared/waitForResult';
import { isPlainObject } from '../../shared/validation';

/**
 * What this process knows of each wait it handed events over to: the results so far, the last
 * unanswered calls, a Person Done in its grace (waiting for its last call), and whether it resumed the
 * execution. Only a cache: the service keeps every event that holds a result until n8n's answer says
 * the wait needs it no more (handOver.ts); an unanswered Call Ended is sent back only a few times
 * (UNANSWERED_CALL_SEND_BACKS). Two words, two things: a Person Done's *grace* (LAST_CALL_GRACE_MS)
 * and a Call Ended *sent back* (answered 503, so that the service sends it again).
 */

/** What this process knows of one wait. */
export interface WaitState {
	/** Final results per input item. */
	results: Record<string, CandidateResult>;
	/** The last unanswered call per input item (for the words of "not reached"). */
	lastCalls: Record<string, IDataObject>;
	/** A Person Done in its grace per input item (its last call not seen here yet), and since when. */
	personsDone: Record<string, { payload: IDataObject; receivedAt: string; since: number }>;
	/** Per input item, the unanswered Call Ended this process sent back (answered 503, "send again"), and how many times. */
	sentBackCalls: Record<string, { callId: string | null; times: number }>;
	/** Input items whose result started the trigger's workflow instead (the execution no longer waited). */
	notHandedOver: Record<string, true>;
	resumed: boolean;
	/** The deliveries of this wait being handed over now (their ids): a re-send of one meanwhile is told to come again. */
	handingOver: Record<string, true>;
	/** The hand-overs of this wait, one after the other: at most one resume request at a time. */
	turns: Turns;
}

const waits = processMemory<WaitState>('waitsHandedOver');

/**
 * How long a Person Done whose last call this process has not seen is answered "send again": the
 * Call Ended of that call may be on its way, or at another webhook process (queue mode), which
 * sends it back a few times (UNANSWERED_CALL_SEND_BACKS), so that the service's re-send brings it
 * here. It decides between "Answered" and "Not reached"; after this, the result is "Not reached"
 * without the last call's status.
 */
const LAST_CALL_GRACE_MS = 2 * 60 * 1000;

/**
 * How many times a process sends back ("send again", 503) a waiting person's Call Ended that was not
 * answered (not a result: it only gives "Not reached" its last call's status). Then it takes it (200)
 * and keeps what it says, so that a service that sends a person's later events only after an earlier
 * one was taken is never kept waiting; a process that dies after that loses only those status words.
 */
const UNANSWERED_CALL_SEND_BACKS = 3;

function waitIdOf(marker: WaitMarker): string {
	return `${marker.execution}/${marker.node}/${hashWaitKey(marker.key).slice(0, 32)}`;
}

/** Whether this process is handing the delivery over now (a re-send of it must not be answered 200 before that ends). */
export function isBeingHandedOver(marker: WaitMarker, deliveryId: string): boolean {
	return waits.get(waitIdOf(marker))?.handingOver[deliveryId] === true;
}

/** Marks the delivery as being handed over now, until the returned function is called. */
export function markHandingOver(marker: WaitMarker, deliveryId: string): () => void {
	const { handingOver } = waitStateOf(marker);
	handingOver[deliveryId] = true;
	return () => delete handingOver[deliveryId];
}

/** This process's state of the wait `marker` names (a new one when it has none yet). */
export function waitStateOf(marker: WaitMarker): WaitState {
	const waitId = waitIdOf(marker);
	const state = waits.get(waitId) ?? {
		results: {},
		lastCalls: {},
		personsDone: {},
		sentBackCalls: {},
		notHandedOver: {},
		resumed: false,
		handingOver: {},
		turns: newTurns(),
	};
	waits.set(waitId, state);
	return state;
}

const ANSWERED = 'ANSWERED';

function text(value: unknown): string | null {
	return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
}

function resultOf(
	event: string,
	payload: IDataObject,
	callbackData: IDataObject,
	receivedAt: string,
	lastCall?: IDataObject,
): CandidateResult {
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
		endedAt:
			text(call.endedAt) ??
			(event === 'CALL_ENDED' ? receivedAt : (text(call.receivedAt) ?? receivedAt)),
		endedBy: answered ? 'CALL_ENDED' : event,
	};
}

/** Whether this process saw the person's last call (the Person Done names it; old payloads may not). */
function sawLastCall(state: WaitState, item: string, payload: IDataObject): boolean {
	const lastCallId = text(payload.lastCallId);
	return lastCallId === null || text(state.lastCalls[item]?.id) === lastCallId;
}

/** Whether the event is an unanswered Call Ended that this process may send back: never one that holds a result. */
function mayBeSentBack(
	state: WaitState,
	item: string,
	event: string,
	payload: IDataObject,
): boolean {
	return event === 'CALL_ENDED' && text(payload.status) !== ANSWERED && !state.results[item];
}

/**
 * Whether an unanswered Call Ended that the hand-over would send back ("send again") was sent back
 * often enough by this process (UNANSWERED_CALL_SEND_BACKS): it is then taken, and what it says stays
 * in `state.lastCalls`. Counts nothing (`countSendBack()` does).
 */
export function sentBackOftenEnough(
	state: WaitState,
	item: string,
	event: string,
	payload: IDataObject,
): boolean {
	if (!mayBeSentBack(state, item, event, payload)) return false;
	const sentBack = state.sentBackCalls[item];
	return (
		sentBack !== undefined &&
		sentBack.callId === text(payload.id) &&
		sentBack.times >= UNANSWERED_CALL_SEND_BACKS
	);
}

/** Counts one more send-back of an unanswered Call Ended (a later call of the person starts the count again). */
export function countSendBack(
	state: WaitState,
	item: string,
	event: string,
	payload: IDataObject,
): void {
	if (!mayBeSentBack(state, item, event, payload)) return;
	const callId = text(payload.id);
	if (state.sentBackCalls[item]?.callId !== callId)
		state.sentBackCalls[item] = { callId, times: 0 };
	state.sentBackCalls[item].times++;
}

/** Takes what the event says of its candidate into `state`; returns whether it holds the candidate's result. */
export function learn(
	state: WaitState,
	item: string,
	event: string,
	payload: IDataObject,
	callbackData: IDataObject,
): boolean {
	if (state.results[item]) return true;
	const receivedAt = new Date().toISOString();
	if (event === 'CALL_ENDED' && text(payload.status) !== ANSWERED) {
		// A redial may follow: the wait goes on, until CANDIDATE_CHANGED says the person is done.
		state.lastCalls[item] = { ...payload, receivedAt };
		const personDone = state.personsDone[item];
		if (personDone && sawLastCall(state, item, personDone.payload)) {
			state.results[item] = resultOf(
				'CANDIDATE_CHANGED',
				personDone.payload,
				callbackData,
				personDone.receivedAt,
				state.lastCalls[item],
			);
		}
	} else if (event === 'CANDIDATE_CHANGED' && !sawLastCall(state, item, payload)) {
		const inGrace = (state.personsDone[item] ??= { payload, receivedAt, since: Date.now() });
		if (Date.now() - inGrace.since >= LAST_CALL_GRACE_MS) {
			state.results[item] = resultOf(
				event,
				payload,
				callbackData,
				receivedAt,
				state.lastCalls[item],
			);
		}
	} else {
		state.results[item] = resultOf(event, payload, callbackData, receivedAt, state.lastCalls[item]);
	}
	return state.results[item] !== undefined;
}
