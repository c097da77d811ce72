// The keys on a node's record: what they name, the window they count in, and the part of that
// window in which they were recorded.

const HOUR_MS = 60 * 60 * 1000;

/** Each window (Repeat Protection's, the daily limits') is counted in this many parts. */
export const WINDOW_PARTS = 4;

/**
 * A key: its kind, the window's hours, the part of the window it was recorded in, and what it names
 * (a request's fingerprint, a number, a slot). Repeat Protection's keys have kept this form since
 * records were first written (`cis-request:24h:<part>:<fingerprint>`).
 */
function recordKey(kind: string, hours: number, part: number, id: string): string {
	return `${kind}:${hours}h:${part}:${id}`;
}

/** The part of the window in a key made by recordKey (0 for any other key). */
export function partOfKey(key: string): number {
	const part = Number(key.split(':')[2]);
	return Number.isFinite(part) ? part : 0;
}

/** What a key made by recordKey names (its id: a fingerprint, a number, a slot). */
export function idOfKey(key: string): string {
	return key.split(':')[3];
}

/** A window of `hours`, counted in `parts` parts: the part `now` falls in, and where a part begins. */
export class Window {
	readonly partMs: number;

	constructor(
		readonly kind: string,
		readonly hours: number,
		readonly parts: number,
	) {
		this.partMs = (hours * HOUR_MS) / parts;
	}

	partAt(now: number): number {
		return Math.floor(now / this.partMs);
	}

	startOf(part: number): number {
		return part * this.partMs;
	}

	/** The keys of `id` in the part of `now` and the `back` parts before it, current part first. */
	keys(id: string, now: number, back: number): string[] {
		const part = this.partAt(now);
		return Array.from({ length: back + 1 }, (_, earlier) =>
			recordKey(this.kind, this.hours, part - earlier, id),
		);
	}
}
