import type { IDataObject } from 'n8n-workflow';

import { fingerprintOf } from '../../shared/fingerprint';
import type { ExpiringMap } from '../../shared/expiringMap';
import { PROCESS_MEMORIES } from '../../shared/processMemory';

/**
 * Repeated deliveries. The service re-sends an event until it gets a 200, for 24 hours
 * (docs/limits.md), so a re-send is always the LATEST body the service has for that subject:
 * a repeat is a body equal (as canonical JSON: key order and spacing do not matter) to the latest
 * one seen for the same event and task / candidate / call. An older state coming back, such as a
 * status going PROCESS → PAUSED → PROCESS, is news and starts the workflow.
 */

/**
 * How long a delivery is remembered (the service's re-send window) and how many subjects, all
 * triggers of the process together: shared/processMemory.ts.
 */
export const { expiresMs: REPEAT_WINDOW_MS, capacity: MAX_REMEMBERED_DELIVERIES } =
	PROCESS_MEMORIES.deliveriesSeen;

/**
 * The id of a delivery: a hash of its canonical body. A re-sent delivery has the same id in
 * any n8n process, so a node that keeps its memory in the database (Remove Duplicates) can
 * drop repeats that reached another webhook process or arrived after a restart.
 */
export function deliveryIdOf(body: unknown): string {
	return fingerprintOf(body).slice(0, 32);
}

/** The first of `names` that the body carries as a text or number, as text ('' when none). */
function idIn(body: IDataObject, names: readonly string[]): string {
	for (const name of names) {
		const value = body[name];
		if (typeof value === 'string' || typeof value === 'number') return String(value);
	}
	return '';
}

/**
 * The body fields that name what a delivery is about, in the subject's order: the task
 * (`autoCallId` in some integrations), the candidate, and the call (`lastCallId` is the call of
 * CANDIDATE_CHANGED). An event whose ids are named otherwise adds its names here (CONTRIBUTING.md).
 */
export const SUBJECT_IDS: readonly (readonly string[])[] = [
	['taskId', 'autoCallId'],
	['candidateId'],
	['id', 'callId', 'lastCallId'],
];

/**
 * What a delivery is about: its event and the ids of SUBJECT_IDS the body carries. Two deliveries
 * about different calls never share a subject, so an older call's re-send is never mistaken for
 * news about another one.
 */
export function subjectOf(event: string, body: IDataObject): string {
	const ids = SUBJECT_IDS.map((names) => idIn(body, names));
	return JSON.stringify([event, ...ids]);
}

/**
 * The latest body (its fingerprint) per subject, for `windowMs`, at most `capacity` subjects.
 * Entries are kept in the order their latest body was first seen, which is also the order in
 * which they expire, so forgetting is cheap.
 */
export class DeliveryMemory {
	/** `latest`: the process's `deliveriesSeen` (the window and capacity are its declaration's). */
	constructor(private readonly latest: ExpiringMap<string>) {}

	get size(): number {
		return this.latest.size;
	}

	/**
	 * True when `fingerprint` is the latest body seen for `subject` within the window (a repeat);
	 * otherwise remembers it as the latest. A repeat does not extend the window: the service
	 * re-sends for 24 hours from its first attempt.
	 */
	isRepeat(subject: string, fingerprint: string): boolean {
		if (this.latest.get(subject) === fingerprint) return true;
		this.latest.set(subject, fingerprint);
		return false;
	}

	/** Forgets a subject's latest body: its re-send is then news again (a hand-over that must be tried again). */
	forget(subject: string, fingerprint: string): void {
		if (this.latest.get(subject) === fingerprint) this.latest.delete(subject);
	}
}
