/**
 * Requests in flight, adapted to the service while a run goes on. n8n opens a new connection
 * for every request of a node (its request helper builds new HTTP agents each time, and a node
 * cannot hand it one), so against a remote service every request also waits for its handshakes.
 * More requests in flight hide that wait; this finds how many the service takes:
 * - it starts at `start` and, while answers keep their speed (no slower than `LATENCY_TOLERANCE`
 *   times the fastest answer so far) and no 429 or error arrives, it rises by one per answer
 *   (doubling per round trip) up to `max`;
 * - a 429, a Retry-After, a 5xx or a network failure halves it (once per round trip: answers to
 *   requests sent before the cut do not cut again); after that it rises by one per round trip;
 * - slower answers stop the rise;
 * - a 429 with a Retry-After stops new requests until that time (at most `MAX_WAIT_MS`): a service
 *   that limits requests per second would refuse the next ones anyway, even one at a time.
 * It only decides when a request may start. How often requests start (Max Requests per Second)
 * and which requests are repeated are decided elsewhere and stay as they are.
 */

import { sleep } from 'n8n-workflow';

import { classify } from './classify';
import { MAX_WAIT_MS } from './retryPolicy';
import type { Failure } from './types';

/** Answers up to this many times slower than the fastest one so far still count as "holding". */
export const LATENCY_TOLERANCE = 2;

export type AttemptOutcome =
	/** An answer that is not a sign of overload, with the time it took. */
	| { kind: 'answer'; latencyMs: number }
	/**
	 * 429, Retry-After, 5xx, a timeout or a network failure: the service is overloaded or failing.
	 * `waitMs`: how long the service asked to wait (Retry-After of a 429).
	 */
	| { kind: 'overload'; waitMs?: number }
	/** Not sent after all (the run stopped, the login failed): tells nothing. */
	| { kind: 'notSent' };

export class AdaptiveConcurrency {
	private current: number;

	private inFlight = 0;

	private readonly waiting: Array<() => void> = [];

	/** The fastest answer so far. */
	private fastestMs = Infinity;

	/** Until the first overload, the limit doubles per round trip; after it, it grows by one. */
	private probing = true;

	/** Answers counted towards the next step of one after an overload. */
	private answersSinceStep = 0;

	/** Requests are numbered as they start; overloads of requests started before the last cut are ignored. */
	private started = 0;

	private cutAt = -1;

	/** No request starts before this time (Date.now()): the service asked to wait. */
	private resumeAt = 0;

	constructor(
		start: number,
		private readonly max: number,
	) {
		this.current = Math.max(1, Math.min(start, max));
	}

	/** Requests allowed in flight now. */
	get limit(): number {
		return this.current;
	}

	/** Waits until a request may start; call the returned function with its outcome once it is in. */
	async acquire(): Promise<(outcome: AttemptOutcome) => void> {
		if (this.inFlight < this.current && this.waiting.length === 0) this.inFlight++;
		// else: a finishing request hands its place over (wake() counts it in flight)
		else await new Promise<void>((resolve) => this.waiting.push(resolve));
		// holding its place: the others wait too
		for (let waitMs = this.resumeAt - Date.now(); waitMs > 0; waitMs = this.resumeAt - Date.now())
			await sleep(waitMs);
		const number = this.started++;
		let done = false;
		return (outcome) => {
			if (done) return;
			done = true;
			this.inFlight--;
			this.learn(outcome, number);
			this.wake();
		};
	}

	private learn(outcome: AttemptOutcome, number: number): void {
		if (outcome.kind === 'notSent') return;
		if (outcome.kind === 'overload') {
			if (outcome.waitMs && outcome.waitMs > 0)
				this.resumeAt = Math.max(this.resumeAt, Date.now() + Math.min(outcome.waitMs, MAX_WAIT_MS));
			if (number <= this.cutAt) return;
			this.current = Math.max(1, Math.floor(this.current / 2));
			this.cutAt = this.started - 1;
			this.probing = false;
			this.answersSinceStep = 0;
			return;
		}
		this.fastestMs = Math.min(this.fastestMs, outcome.latencyMs);
		if (outcome.latencyMs > this.fastestMs * LATENCY_TOLERANCE || this.current >= this.max) return;
		if (this.probing) {
			this.current++;
		} else if (++this.answersSinceStep >= this.current) {
			this.answersSinceStep = 0;
			this.current++;
		}
	}

	private wake(): void {
		while (this.waiting.length > 0 && this.inFlight < this.current) {
			this.inFlight++;
			(this.waiting.shift() as () => void)();
		}
	}
}

/** What one attempt tells about the service's load: its failure (undefined for a 2xx) as the failure rules see it. */
export function attemptOutcomeOf(failure: Failure | undefined, latencyMs: number): AttemptOutcome {
	if (!failure) return { kind: 'answer', latencyMs };
	const rule = classify({ repeatability: 'safe' }, failure);
	if (rule.overload) return { kind: 'overload', waitMs: rule.waitMs };
	// Nothing was sent: the credential refused or the login failed.
	if (rule.nothingSent) return { kind: 'notSent' };
	return { kind: 'answer', latencyMs };
}
