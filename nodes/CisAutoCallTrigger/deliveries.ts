import { fingerprintOf } from '../shared/fingerprint';

/**
 * Repeated deliveries. The service re-sends an event until it gets a 200, for 24 hours
 * (platform-facts.md). A repeat is the same delivery: the same body, compared as canonical JSON
 * (key order and spacing do not matter). Two events that differ in any field, such as a status
 * that goes PROCESS → PAUSED → PROCESS or a recall moved to another time, are two deliveries.
 */

/** How long a delivery is remembered: the service's re-send window. */
export const REPEAT_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Deliveries remembered per n8n process, all triggers together (each entry is ~200 bytes, so
 * at most ~20 MB). Past the cap the oldest are forgotten early: a re-send of one of those
 * starts the workflow again, which the `deliveryId` lets a downstream node recognise.
 */
export const MAX_REMEMBERED_DELIVERIES = 100_000;

/**
 * The id of a delivery: a hash of its canonical body. A re-sent delivery has the same id in
 * any n8n process, so a node that keeps its memory in the database (Remove Duplicates) can
 * drop repeats that reached another webhook process or arrived after a restart.
 */
export function deliveryIdOf(body: unknown): string {
	return fingerprintOf(body).slice(0, 32);
}

/**
 * Keys seen in the last `windowMs`, at most `capacity` of them. Entries are kept in the order
 * they were first seen, which is also the order in which they expire, so forgetting is cheap.
 */
export class DeliveryMemory {
	private readonly firstSeen = new Map<string, number>();

	constructor(
		private readonly windowMs = REPEAT_WINDOW_MS,
		private readonly capacity = MAX_REMEMBERED_DELIVERIES,
		private readonly now: () => number = Date.now,
	) {}

	get size(): number {
		return this.firstSeen.size;
	}

	/** Remembers `key`; true when it was already seen within the window (a repeat). */
	seenBefore(key: string): boolean {
		const now = this.now();
		this.forgetExpired(now);
		if (this.firstSeen.has(key)) return true;
		this.firstSeen.set(key, now);
		while (this.firstSeen.size > this.capacity) {
			this.firstSeen.delete(this.firstSeen.keys().next().value as string);
		}
		return false;
	}

	private forgetExpired(now: number): void {
		for (const [key, at] of this.firstSeen) {
			if (now - at < this.windowMs) return;
			this.firstSeen.delete(key);
		}
	}
}
