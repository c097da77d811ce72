import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { processMemory } from '../../shared/processMemory';
import { Slots, takeTurn } from '../../shared/serialQueue';
import { ssrfBlockOf } from '../../shared/ssrfBlock';
import { RESUME_BODY_FIELD, type WaitMarker } from '../../shared/waitForResult';
import { blockedHandOverWords, postToThisN8n, resumeUrlOf } from './ownAddress';
import { passOn } from './passOn';
import { type Gone, type ResumeAnswer, resumeAnswerOf } from './resumeAnswer';
import {
	countSendBack,
	learn,
	sentBackOftenEnough,
	type WaitState,
	waitStateOf,
} from './waitState';

/**
 * The bridge of the "… and Wait for Result" operations, after an event passed the trigger's checks
 * (address, secret, body): the event of a candidate a waiting execution waits for is handed to
 * that execution at THIS n8n's own waiting-webhook address (built from the trigger's own URL; the
 * event only names the execution, its token and the waiting node, each checked for its shape), with
 * the wait's key. A candidate's wait ends at its first answered call or when the service says the
 * person is done (CANDIDATE_CHANGED); a call that was not answered is remembered for the words of
 * "not reached". The events of one wait take turns in this process, and once it resumed the
 * execution it sends nothing more; the waiting node resumes only with a result for every candidate,
 * and n8n 2.x lets only one resume through across processes. This process's memory is only a cache:
 * an event that holds a result is answered 200 only when n8n's answer says the wait needs it no more,
 * so until then the service keeps it and re-sends it, to this process or, when this one died, to
 * another (docs/queue-mode.md). An unanswered Call Ended (only the words of "not reached") is sent
 * back so a few times at most, so that a service that keeps a person's later events meanwhile is not
 * kept waiting; a death after that costs those words. Neither n8n's database nor the waiting execution can
 * hold it: a webhook process writes a workflow's static data whole, as read when its request began,
 * and n8n saves a waiting execution only when it resumes.
 */

/** A verified event whose Callback Data carries a wait's marker, parsed once when the delivery was checked. */
export interface EventOfAWait {
	event: string;
	payload: IDataObject;
	/** Callback Data as an object, with the marker. */
	callbackData: IDataObject;
	marker: WaitMarker;
	/** Another webhook process passed it on (passOn.ts): it is not passed on again. */
	passedOn: boolean;
}

/** What webhook() does after a hand-over. */
export type HandOver =
	/** Done (resumed, or n8n says the wait needs nothing more): answer 200. */
	| { kind: 'done'; resumed: boolean }
	/** Not taken by n8n now: answer so that the service sends it again; `reason` goes to n8n's log. */
	| { kind: 'later'; reason: string; lastCallMissing?: true }
	/**
	 * The result can never reach its waiting execution: n8n's SSRF protection blocks this n8n's own
	 * waiting address, or n8n says the execution no longer waits (it does not exist, it ended with an
	 * error, or it went on at its time limit). The service is answered 200 (it stops sending) and the
	 * event starts the trigger's workflow, marked with these words, so that the result is not lost.
	 */
	| { kind: 'notHandedOver'; words: string; log: string };

/**
 * How many hand-overs this process sends to n8n's own waiting address at once, and how many may wait
 * for a free slot. Each hand-over makes a webhook process read the waiting execution from n8n's
 * database: without a bound, a burst of deliveries took every database connection, n8n answered
 * "Database is not ready" to everything and the service's re-sends piled up (docs/queue-mode.md).
 */
const AT_ONCE = 4;
const MAX_WAITING = 1000;

const handOverSlots = new Slots(processMemory('handOverSlots'), AT_ONCE, MAX_WAITING);

/** Answered 200 with nothing handed over: the wait needs nothing more of this event. */
const NOTHING_MORE: HandOver = { kind: 'done', resumed: false };

/** Whether the wait's time limit (Wait at Most) has passed: n8n then went on without the results still missing. */
function pastTimeLimit(marker: WaitMarker): boolean {
	return marker.until !== undefined && Date.now() >= marker.until * 1000;
}

/** The result of `item` can no longer reach its waiting execution: it starts this workflow instead, once. */
function notHandedOver(
	state: WaitState,
	item: string,
	how: Gone['how'],
	execution: string,
): HandOver {
	state.notHandedOver[item] = true;
	const why =
		how === 'doesNotExist'
			? 'no longer exists in n8n'
			: how === 'failed'
				? 'ended with an error (for example, n8n restarted while it waited)'
				: 'went on without it when its Wait at Most passed';
	const words = `The waiting execution ${execution} ${why}, so this call's result starts this workflow instead.`;
	return { kind: 'notHandedOver', words, log: words };
}

/**
 * Hands a verified event with a wait marker to its waiting execution. The service is answered 200
 * only once n8n's own answer says the wait has what it needs: it resumed, or it no longer waits for
 * this event. Until then the answer is "later" (503) and the service sends the event again (for 24
 * hours): that is how a result reaches the execution when n8n cannot take it now (a webhook process
 * starting up, a route not there yet, n8n busy, the execution not saved as waiting yet), when
 * another candidate's result reached another webhook process, or when the person's last call is not
 * known here yet. A call that was not answered is sent back this way too, while the execution waits
 * for that person, a few times at most in this process (waitState.ts): it gives "Not reached" its words,
 * and a re-send brings it to another process when the one that first got it dies meanwhile.
 */
export async function handOver(context: IWebhookFunctions, call: EventOfAWait): Promise<HandOver> {
	const { event, payload, callbackData, marker, passedOn } = call;
	if (event !== 'CALL_ENDED' && event !== 'CANDIDATE_CHANGED') return NOTHING_MORE;
	const state = waitStateOf(marker);
	// Events of one wait that arrive together (an answered Call Ended and its Person Done, re-sends)
	// take turns: the first resumes, the others then find it resumed.
	const handed = await takeTurn(state.turns, async () => {
		const inTurn = await handOverInTurn(context, event, payload, callbackData, marker, state);
		if (inTurn.kind !== 'later') return inTurn;
		const item = String(marker.item);
		// An unanswered Call Ended this process sent back a few times already: taken now, what it says kept (waitState.ts).
		if (sentBackOftenEnough(state, item, event, payload)) return NOTHING_MORE;
		countSendBack(state, item, event, payload);
		return inTurn;
	});
	// A Person Done whose last call another process got: passed on once, so that it reaches that
	// process now. Outside this wait's turn: that process may be passing one of its own on to this one.
	if (
		handed.kind === 'later' &&
		handed.lastCallMissing &&
		!passedOn &&
		(await passOn(context, payload))
	)
		return NOTHING_MORE;
	return handed;
}

async function handOverInTurn(
	context: IWebhookFunctions,
	event: string,
	payload: IDataObject,
	callbackData: IDataObject,
	marker: WaitMarker,
	state: WaitState,
): Promise<HandOver> {
	const item = String(marker.item);
	if (state.resumed || state.notHandedOver[item]) return NOTHING_MORE;
	const holdsResult = learn(state, item, event, payload, callbackData);
	// A Person Done held here in its grace: its last call's Call Ended went to another process, or is still on its way.
	const lastCallMissing =
		!holdsResult && event === 'CANDIDATE_CHANGED' && state.personsDone[item] !== undefined;
	const url = resumeUrlOf(context, marker);
	if (!url) return NOTHING_MORE;

	let answer: ResumeAnswer;
	try {
		const sent = await handOverSlots.run(
			async () =>
				await postToThisN8n(context, url, {
					[RESUME_BODY_FIELD]: { key: marker.key, results: { ...state.results } },
				}),
		);
		if (sent.full)
			return {
				kind: 'later',
				reason: `${MAX_WAITING} hand-overs already wait for n8n in this process (execution ${marker.execution})`,
			};
		answer = resumeAnswerOf(sent.result.statusCode, sent.result.body, marker.execution);
	} catch (error) {
		const block = ssrfBlockOf(error, url);
		if (block) {
			const words = blockedHandOverWords(block, new URL(url).origin);
			return {
				kind: 'notHandedOver',
				words,
				log: `${words} The waiting execution ${marker.execution} ends at its time limit; the event starts this trigger's workflow instead.`,
			};
		}
		const failure = (error instanceof Error ? error.message : String(error)).replace(
			/signature=[^&\s]+/g,
			'signature=***',
		);
		answer = {
			kind: 'later',
			reason: `n8n's own waiting address did not answer (${failure || 'no answer'})`,
		};
	}
	switch (answer.kind) {
		case 'resumed':
			state.resumed = true;
			return { kind: 'done', resumed: true };
		case 'notThisWait':
			// Another wait of the same node waits now (an AI Agent's next call of the tool): this one was
			// handed over by another event or process, or went on at its time limit without this result.
			if (holdsResult && pastTimeLimit(marker))
				return notHandedOver(state, item, 'finished', marker.execution);
			return NOTHING_MORE;
		case 'gone': {
			// "Finished" before the time limit: another event or process handed this wait over.
			const lost =
				answer.how === 'doesNotExist' || answer.how === 'failed' || pastTimeLimit(marker);
			if (!lost) return NOTHING_MORE;
			if (holdsResult) return notHandedOver(state, item, answer.how, marker.execution);
			// A Person Done whose last call is not known here: its result is decided once it is (or after the grace).
			if (lastCallMissing)
				return {
					kind: 'later',
					reason: `the person is done, but the Call Ended of their last call has not arrived here yet (execution ${marker.execution})`,
					lastCallMissing: true,
				};
			return NOTHING_MORE;
		}
		case 'waiting':
			return {
				kind: 'later',
				reason: `${holdsResult ? 'the execution waits for the results of other people, not known here yet' : "the execution still waits for this person's result"} (execution ${marker.execution})`,
				...(lastCallMissing ? { lastCallMissing } : {}),
			};
		default:
			return {
				kind: 'later',
				reason: `${answer.reason} (execution ${marker.execution})`,
				// Most often the process that got the answered call resumed the execution: passed on, it answers at
				// once. Not saved as waiting yet: that process answers 503 too, and the service sends it again.
				...(answer.running && lastCallMissing ? { lastCallMissing } : {}),
			};
	}
}
