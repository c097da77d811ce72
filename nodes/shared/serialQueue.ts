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
