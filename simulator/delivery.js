// @ts-check
'use strict';

/**
 * Webhook delivery as the platform does it (docs/service.md "Events (webhooks)"): one JSON POST per
 * event; anything but HTTP 200 is re-sent with growing intervals (1 s, 2 s, 4 s ... × timeScale)
 * up to `maxAttempts` attempts. First attempts to one URL go out in the order the events
 * happened; re-deliveries run on their own timers. Only loopback URLs are ever contacted.
 *
 * `order` says what the platform does not document (docs/service.md): `independent` (default), each
 * event re-sent on its own schedule; `perCandidate`, a candidate's event goes out to a URL only after
 * that candidate's earlier events to the same URL were taken (200) or given up, the way a service
 * that sends a person's Person Done only after their Call Ended was taken behaves. Other
 * candidates' events are not held back.
 *
 * `concurrency` first attempts to one URL may be in flight at once (default 1: one after another);
 * `hold()` keeps first attempts back until `release()` (a benchmark's phases apart).
 */

const http = require('http');
const https = require('https');

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

class WebhookDelivery {
	/**
	 * @param {{ scheduler: import('./scheduler').Scheduler, maxAttempts?: number, firstRetrySeconds?: number, timeoutMs?: number, order?: 'independent' | 'perCandidate', concurrency?: number }} options
	 */
	constructor({
		scheduler,
		maxAttempts = 8,
		firstRetrySeconds = 1,
		timeoutMs = 5000,
		order = 'independent',
		concurrency = 1,
	}) {
		if (order !== 'independent' && order !== 'perCandidate')
			throw new Error(
				`webhook order must be "independent" or "perCandidate", got ${JSON.stringify(order)}`,
			);
		this.order = order;
		this.concurrency = Math.max(1, Math.floor(Number(concurrency) || 1));
		this.held = false;
		/** perCandidate: the last event's settling per URL and candidate. @type {Map<string, Promise<void>>} */
		this.lastOfCandidate = new Map();
		this.scheduler = scheduler;
		this.maxAttempts = maxAttempts;
		this.firstRetrySeconds = firstRetrySeconds;
		this.timeoutMs = timeoutMs;
		/** @type {Array<{url: string, event: string, body: any, status: number | 'error' | 'blocked', attempt: number, at: number, error?: string}>} */
		this.log = [];
		/** @type {Map<string, {items: any[], running: boolean, inFlight: number, wake: () => void}>} */
		this.queues = new Map();
		/** @type {Set<http.ClientRequest>} */
		this.openRequests = new Set();
		this.stopped = false;
		this.generation = 0;
	}

	/**
	 * @param {{ url: string, event: string, body: any, delaySeconds?: number }} delivery
	 */
	enqueue({ url, event, body, delaySeconds = 0 }) {
		if (this.stopped) return;
		const item = {
			url,
			event,
			body,
			dueAt: Date.now() + this.scheduler.secondsToMs(delaySeconds),
			attempt: 0,
			generation: this.generation,
			endWork: this.scheduler.beginWork(),
			/** @type {Promise<void> | null} perCandidate: settles when the candidate's earlier event to this URL was taken or given up */
			after: null,
		};
		const candidate = body && body.candidateId;
		if (this.order === 'perCandidate' && candidate !== undefined && candidate !== null) {
			const subject = `${url} ${candidate}`;
			item.after = this.lastOfCandidate.get(subject) || null;
			const endWork = item.endWork;
			const settled = new Promise((resolve) => {
				item.endWork = () => {
					endWork();
					resolve(undefined);
				};
			});
			this.lastOfCandidate.set(subject, settled);
		}
		let queue = this.queues.get(url);
		if (!queue) {
			queue = { items: [], running: false, inFlight: 0, wake: () => {} };
			this.queues.set(url, queue);
		}
		queue.items.push(item);
		void this.drain(queue);
	}

	/** Sends first attempts of one URL's queue in order. */
	async drain(queue) {
		if (queue.running) return;
		queue.running = true;
		try {
			while (queue.items.length > 0 && !this.stopped && !this.held) {
				const item = queue.items.shift();
				const wait = item.dueAt - Date.now();
				if (wait > 0) await this.scheduler.sleep(wait);
				if (this.stopped || this.queues.get(item.url) !== queue) break;
				// perCandidate: the candidate's earlier event is not taken yet; this one goes out once it is, the URL's other events go on.
				if (item.after) void item.after.then(() => this.attempt(item));
				else if (this.concurrency === 1) await this.attempt(item);
				else {
					queue.inFlight += 1;
					void this.attempt(item).finally(() => {
						queue.inFlight -= 1;
						queue.wake();
					});
					while (queue.inFlight >= this.concurrency && !this.stopped)
						await new Promise((resolve) => (queue.wake = resolve));
				}
			}
		} finally {
			queue.running = false;
		}
	}

	async attempt(item) {
		if (this.stopped) return item.endWork();
		item.attempt += 1;
		const { status, error } = await this.post(item.url, item.body);
		if (item.generation !== this.generation) return; // a reset happened meanwhile
		const entry = {
			url: item.url,
			event: item.event,
			body: item.body,
			status,
			attempt: item.attempt,
			at: Date.now(),
		};
		if (error) entry.error = error;
		this.log.push(entry);
		if (
			status === 200 ||
			status === 'blocked' ||
			item.attempt >= this.maxAttempts ||
			this.stopped
		) {
			item.endWork();
			return;
		}
		const retryMs = this.scheduler.secondsToMs(this.firstRetrySeconds * 2 ** (item.attempt - 1));
		// The item's own work token keeps the simulator busy while it waits for the retry.
		this.scheduler.after(retryMs, () => void this.attempt(item), { tracked: false });
	}

	/** @returns {Promise<{status: number | 'error' | 'blocked', error?: string}>} */
	post(url, body) {
		return new Promise((resolve) => {
			let target;
			try {
				target = new URL(url);
			} catch {
				resolve({ status: 'error', error: `invalid URL ${url}` });
				return;
			}
			if (!LOOPBACK_HOSTS.has(target.hostname)) {
				resolve({ status: 'blocked', error: 'the simulator only delivers to loopback addresses' });
				return;
			}
			const data = JSON.stringify(body);
			const client = target.protocol === 'https:' ? https : http;
			const request = client.request(target, {
				method: 'POST',
				agent: false,
				timeout: this.timeoutMs,
				rejectUnauthorized: false,
				headers: {
					'content-type': 'application/json',
					'content-length': Buffer.byteLength(data),
					'user-agent': 'CIS-AutoCall-Simulator/1.0',
				},
			});
			this.openRequests.add(request);
			let settled = false;
			const finish = (result) => {
				if (settled) return;
				settled = true;
				this.openRequests.delete(request);
				resolve(result);
			};
			request.on('response', (response) => {
				response.resume();
				response.on('end', () => finish({ status: response.statusCode || 0 }));
				response.on('error', (err) => finish({ status: 'error', error: err.message }));
			});
			request.on('timeout', () =>
				request.destroy(new Error(`no answer within ${this.timeoutMs} ms`)),
			);
			request.on('error', (err) => finish({ status: 'error', error: err.message }));
			request.end(data);
		});
	}

	/** Keeps first attempts back until release(). */
	hold() {
		this.held = true;
	}

	/** Sends the first attempts kept back by hold(). */
	release() {
		this.held = false;
		for (const queue of this.queues.values()) void this.drain(queue);
	}

	/** Forgets queued deliveries (their work tokens were written off by the scheduler). */
	clear() {
		for (const queue of this.queues.values()) queue.items = [];
		this.queues = new Map();
		this.lastOfCandidate = new Map();
		this.log.length = 0;
		this.generation += 1;
	}

	stop() {
		this.stopped = true;
		for (const queue of this.queues.values()) queue.items = [];
		for (const request of this.openRequests) request.destroy();
		this.openRequests.clear();
	}
}

module.exports = { WebhookDelivery, LOOPBACK_HOSTS };
