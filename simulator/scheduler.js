// @ts-check
'use strict';

/**
 * Timers of the simulator in one place.
 *
 * - Every simulated duration goes through `secondsToMs`, which applies the time scale.
 * - "Tracked" work (a call being played, a webhook waiting to be delivered) keeps the
 *   simulator busy: `idle()` resolves only when no tracked work is left.
 * - `stop()` clears every timer, so closing the simulator leaves no handle behind.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

class Scheduler {
	/** @param {{ timeScale: number }} options */
	constructor({ timeScale }) {
		this.timeScale = timeScale;
		/** @type {Set<NodeJS.Timeout>} */
		this.timers = new Set();
		this.pendingWork = 0;
		this.generation = 0;
		/** @type {Array<() => void>} */
		this.idleWaiters = [];
		this.stopped = false;
	}

	/** Simulated seconds → real milliseconds. */
	secondsToMs(seconds) {
		return Math.max(0, Number(seconds) || 0) * 1000 * this.timeScale;
	}

	/**
	 * Marks the start of tracked work. Call the returned function exactly once when it ends.
	 * @returns {() => void}
	 */
	beginWork() {
		this.pendingWork += 1;
		const generation = this.generation;
		let ended = false;
		return () => {
			if (ended) return;
			ended = true;
			// Work begun before a reset was already written off by cancelAll().
			if (generation !== this.generation) return;
			this.pendingWork -= 1;
			this.notifyIfIdle();
		};
	}

	/**
	 * Runs `callback` after `ms` real milliseconds.
	 * @param {number} ms
	 * @param {() => void} callback
	 * @param {{ tracked?: boolean }} [options] tracked (default true): counts as pending work until it ran
	 * @returns {{ cancel: () => void }}
	 */
	after(ms, callback, { tracked = true } = {}) {
		if (this.stopped) return { cancel() {} };
		const endWork = tracked ? this.beginWork() : () => {};
		const dueAt = Date.now() + Math.max(0, ms);
		/** @type {NodeJS.Timeout} */
		let timer;
		const arm = () => {
			// setTimeout cannot wait longer than 2^31-1 ms: long waits are chained.
			timer = setTimeout(fire, Math.min(Math.max(0, dueAt - Date.now()), MAX_TIMER_MS));
			if (!tracked) timer.unref();
			this.timers.add(timer);
		};
		const fire = () => {
			this.timers.delete(timer);
			if (Date.now() < dueAt) {
				arm();
				return;
			}
			try {
				callback();
			} finally {
				endWork();
			}
		};
		arm();
		return {
			cancel: () => {
				if (this.timers.delete(timer)) {
					clearTimeout(timer);
					endWork();
				}
			},
		};
	}

	/** A promise that resolves after `ms` real milliseconds (untracked; rejected never). */
	sleep(ms) {
		return new Promise((resolve) => {
			if (this.stopped || ms <= 0) return resolve(undefined);
			this.after(ms, () => resolve(undefined), { tracked: false });
		});
	}

	/** Resolves when no tracked work is pending. */
	idle() {
		return new Promise((resolve) => {
			this.idleWaiters.push(() => resolve(undefined));
			this.notifyIfIdle();
		});
	}

	notifyIfIdle() {
		if (this.pendingWork > 0 || this.idleWaiters.length === 0) return;
		// Let work that is being chained in the same tick register itself first.
		setImmediate(() => {
			if (this.pendingWork > 0 && !this.stopped) return;
			const waiters = this.idleWaiters.splice(0);
			for (const resolve of waiters) resolve();
		});
	}

	/** Cancels every timer (tracked or not). Used by reset and close. */
	cancelAll() {
		for (const timer of this.timers) clearTimeout(timer);
		this.timers.clear();
		this.pendingWork = 0;
		this.generation += 1;
		this.notifyIfIdle();
	}

	stop() {
		this.stopped = true;
		this.cancelAll();
		const waiters = this.idleWaiters.splice(0);
		for (const resolve of waiters) resolve();
	}
}

module.exports = { Scheduler };
