import type { ExpiringMap } from './expiringMap';

/** One line of work: each piece starts once the piece before it settled, whether it succeeded or failed. */
export interface Turns {
	last: Promise<unknown>;
}

export function newTurns(): Turns {
	return { last: Promise.resolve() };
}

const ignore = () => undefined;

/** Runs `work` after the work already in line; its result (or error) is the caller's alone. */
export async function takeTurn<T>(turns: Turns, work: () => Promise<T>): Promise<T> {
	const result = turns.last.then(work, work);
	turns.last = result.then(ignore, ignore);
	return await result;
}

/**
 * Work per key, one piece at a time in the order it came; keys do not wait for one another. The
 * lines are kept in a memory of processMemory.ts (its cap and expiry); a line may carry more than
 * its turns (optional fields), for work that joins the next piece instead of queueing its own.
 */
export class SerialQueue<Line extends Turns = Turns> {
	constructor(private readonly lines: ExpiringMap<Line>) {}

	/** The line of `key` (a new one when it has none). */
	lineOf(key: string): Line {
		const line = this.lines.get(key) ?? (newTurns() as Line);
		this.lines.set(key, line);
		return line;
	}

	async run<T>(key: string, work: () => Promise<T>): Promise<T> {
		return await takeTurn(this.lineOf(key), work);
	}
}

/** The state of a Slots: the pieces of work running, and those waiting for a slot in the order they came. */
export interface SlotsState {
	running: number;
	waiting: Array<() => void>;
}

/**
 * At most `size` pieces of work at once, the others waiting in the order they came; at most
 * `maxWaiting` wait, beyond that `run()` says so at once instead of waiting. The state is kept in a
 * memory of processMemory.ts (one entry).
 */
export class Slots {
	constructor(
		private readonly memory: ExpiringMap<SlotsState>,
		private readonly size: number,
		private readonly maxWaiting: number,
	) {}

	private get state(): SlotsState {
		const state = this.memory.get('slots') ?? { running: 0, waiting: [] };
		this.memory.set('slots', state);
		return state;
	}

	/** Runs `work` in a slot; `{ full: true }` without running it when `maxWaiting` wait already. */
	async run<T>(work: () => Promise<T>): Promise<{ full: false; result: T } | { full: true }> {
		const state = this.state;
		if (state.running < this.size) state.running++;
		else if (state.waiting.length >= this.maxWaiting) return { full: true };
		// The slot is handed on by the piece that frees it, so `running` stays counted for this one.
		else await new Promise<void>((resolve) => state.waiting.push(resolve));
		try {
			return { full: false, result: await work() };
		} finally {
			const next = state.waiting.shift();
			if (next) next();
			else state.running--;
		}
	}
}
