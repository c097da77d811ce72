import { sleep } from 'n8n-workflow';

/**
 * At most `perSecond` requests in any second, as the service counts them; shared by one node run.
 * Starts are spaced evenly, and each request holds one of `perSecond` turns until a second after
 * its answer: however late a request reaches the service (connection set-up, authentication,
 * network), the request that takes its turn next reaches it at least a second later. Even spacing
 * alone lets a little jitter put `perSecond + 1` requests into one second at the service.
 */
export class RateLimiter {
	private nextStart = 0;

	private turn = 0;

	private readonly turns: Array<Promise<void>>;

	private readonly holdMs: number;

	constructor(private readonly perSecond: number) {
		const count = perSecond > 0 ? Math.max(1, Math.floor(perSecond)) : 0;
		this.turns = Array.from({ length: count }, () => Promise.resolve());
		// A fractional rate such as 2.5/s: 2 turns, each held 800 ms.
		this.holdMs = count > 0 ? (count * 1000) / perSecond : 0;
	}

	/** Waits until a request may start; call the returned function once its answer (or failure) is in. */
	async take(): Promise<() => void> {
		if (this.turns.length === 0) return () => {};
		const index = this.turn;
		this.turn = (index + 1) % this.turns.length;
		const previous = this.turns[index];
		let release!: () => void;
		this.turns[index] = new Promise<void>((resolve) => {
			release = () => void sleep(this.holdMs).then(resolve);
		});
		await previous;
		const now = Date.now();
		const start = Math.max(now, this.nextStart);
		this.nextStart = start + 1000 / this.perSecond;
		if (start > now) await sleep(start - now);
		return release;
	}
}
