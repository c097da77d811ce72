/**
 * Adapt Concurrency: how many requests the node keeps in flight follows what the service takes.
 * The rules on their own (AdaptiveConcurrency, no clock), then the node through n8n-core's engine
 * against a small service on 127.0.0.1 that counts what it holds at once and refuses with 429
 * beyond its capacity.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	AdaptiveConcurrency,
	LATENCY_TOLERANCE,
} from '../../nodes/shared/transport/adaptiveConcurrency';
import { readRunSettings } from '../../nodes/CisAutoCall/actions/sending';
import {
	createAndRunFromItems,
	jsonOf,
	runAction,
	sendJson,
	startTinyServer,
	type TinyServer,
} from '../actions/fixtures';

jest.setTimeout(60_000);

/** Starts `count` requests, each waiting for its place; resolves their done functions in start order. */
async function startMany(gate: AdaptiveConcurrency, count: number) {
	const started: Array<Awaited<ReturnType<AdaptiveConcurrency['acquire']>>> = [];
	const pending = Array.from({ length: count }, async () => started.push(await gate.acquire()));
	await new Promise((resolve) => setImmediate(resolve));
	return { started, pending };
}

describe('AdaptiveConcurrency: the rules', () => {
	test('starts at the start value and lets no more than the limit in', async () => {
		const gate = new AdaptiveConcurrency(5, 50);
		const { started } = await startMany(gate, 12);
		expect(gate.limit).toBe(5);
		expect(started).toHaveLength(5);
	});

	test('while answers keep their speed it rises by one per answer, up to the maximum', async () => {
		const gate = new AdaptiveConcurrency(5, 8);
		const { started } = await startMany(gate, 30);
		started[0]({ kind: 'answer', latencyMs: 100 });
		await new Promise((resolve) => setImmediate(resolve));
		expect(gate.limit).toBe(6);
		expect(started).toHaveLength(6 + 1); // 6 in flight now, plus the one that finished
		for (let i = 1; i < 6; i++) started[i]({ kind: 'answer', latencyMs: 100 * LATENCY_TOLERANCE });
		await new Promise((resolve) => setImmediate(resolve));
		expect(gate.limit).toBe(8);
	});

	test('answers slower than the tolerance stop the rise', async () => {
		const gate = new AdaptiveConcurrency(5, 50);
		const { started } = await startMany(gate, 30);
		started[0]({ kind: 'answer', latencyMs: 100 });
		for (let i = 1; i < 5; i++)
			started[i]({ kind: 'answer', latencyMs: 100 * LATENCY_TOLERANCE + 1 });
		expect(gate.limit).toBe(6);
	});

	test('an overload halves it once per round trip; then it rises by one per round trip', async () => {
		const gate = new AdaptiveConcurrency(8, 50);
		const { started } = await startMany(gate, 40);
		// four of the eight in flight come back 429: only the first halves
		for (let i = 0; i < 4; i++) started[i]({ kind: 'overload' });
		expect(gate.limit).toBe(4);
		await new Promise((resolve) => setImmediate(resolve));
		// requests sent before the cut answer normally: one step of one needs `limit` answers
		for (let i = 4; i < 8; i++) started[i]({ kind: 'answer', latencyMs: 100 });
		expect(gate.limit).toBe(5);
		await new Promise((resolve) => setImmediate(resolve));
		// an overload of a request sent after the cut halves again
		started[started.length - 1]({ kind: 'overload' });
		expect(gate.limit).toBe(2);
	});

	test('never below one, never above the maximum, and a request not sent teaches nothing', async () => {
		const gate = new AdaptiveConcurrency(1, 1);
		const { started } = await startMany(gate, 3);
		started[0]({ kind: 'overload' });
		expect(gate.limit).toBe(1);
		await new Promise((resolve) => setImmediate(resolve));
		started[1]({ kind: 'answer', latencyMs: 5 });
		expect(gate.limit).toBe(1);
		await new Promise((resolve) => setImmediate(resolve));
		started[2]({ kind: 'notSent' });
		expect(gate.limit).toBe(1);
	});

	test('a 429 with Retry-After holds back every new request until then', async () => {
		const gate = new AdaptiveConcurrency(2, 50);
		const first = await gate.acquire();
		const second = await gate.acquire();
		first({ kind: 'overload', waitMs: 1000 });
		second({ kind: 'answer', latencyMs: 5 });
		const startedAt = Date.now();
		const third = await gate.acquire();
		expect(Date.now() - startedAt).toBeGreaterThanOrEqual(900);
		third({ kind: 'answer', latencyMs: 5 });
		// a 5xx or a 429 without Retry-After halves, but does not hold back
		const fourth = await gate.acquire();
		fourth({ kind: 'overload' });
		// the next request starts before any timer could run: nothing holds it back
		const nextTurn = new Promise<'held back'>((resolve) =>
			setImmediate(() => resolve('held back')),
		);
		const fifth = await Promise.race([gate.acquire(), nextTurn]);
		expect(fifth).toEqual(expect.any(Function));
		if (typeof fifth === 'function') fifth({ kind: 'answer', latencyMs: 5 });
	});

	test('the option is on unless set off (one request per item; batch requests: off), and is read from the options', () => {
		expect(readRunSettings({}).adaptiveConcurrency).toBe(true);
		expect(readRunSettings({}, { batch: true }).adaptiveConcurrency).toBe(false);
		expect(readRunSettings({ adaptiveConcurrency: false }).adaptiveConcurrency).toBe(false);
		expect(readRunSettings({ adaptiveConcurrency: true, concurrency: 40 })).toMatchObject({
			adaptiveConcurrency: true,
			concurrency: 40,
		});
	});
});

/**
 * A service that holds each request `holdMs`, answers 4.4 with a candidate id, and refuses with
 * 429 (Retry-After: 1) a request that arrives while `capacity` are held.
 */
async function startService({ holdMs = 15, capacity = Infinity } = {}) {
	const stats = {
		inFlight: 0,
		peak: 0,
		/** The most held at once before the second answer went out. */
		peakBeforeSecondAnswer: 0,
		answered: 0,
		refused: 0,
		created: new Map<string, number>(),
		arrivals: [] as number[],
	};
	let next = 0;
	const server: TinyServer = await startTinyServer((request, response) => {
		stats.arrivals.push(Date.now());
		if (stats.inFlight >= capacity) {
			stats.refused++;
			response.setHeader('retry-after', '1');
			sendJson(response, 429, { error: 'Too Many Requests' });
			return;
		}
		stats.inFlight++;
		stats.peak = Math.max(stats.peak, stats.inFlight);
		if (stats.answered < 2)
			stats.peakBeforeSecondAnswer = Math.max(stats.peakBeforeSecondAnswer, stats.inFlight);
		setTimeout(() => {
			stats.inFlight--;
			stats.answered++;
			const phone = String((JSON.parse(request.body) as IDataObject).phone);
			stats.created.set(phone, (stats.created.get(phone) ?? 0) + 1);
			sendJson(response, 200, { id: { identity: `cand-${++next}` } });
		}, holdMs);
	});
	return { server, stats };
}

const phones = (count: number) =>
	Array.from({ length: count }, (_, index) => ({ phone: `7999${String(index).padStart(7, '0')}` }));

describe('Adapt Concurrency in a run', () => {
	const services: TinyServer[] = [];
	afterEach(async () => {
		while (services.length > 0) await services.pop()?.close();
	});

	test('a service that takes everything: it starts at 5 and rises to the Concurrency set, never above', async () => {
		const { server, stats } = await startService({ holdMs: 60 });
		services.push(server);
		const result = await runAction(
			server.asSimulator(),
			createAndRunFromItems({ concurrency: 20, adaptiveConcurrency: true }),
			phones(150),
		);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result).every((item) => typeof item.autoCallCandidateId === 'string')).toBe(true);
		// the first request goes alone; its answer lifts the limit from 5 to 6
		expect(stats.peakBeforeSecondAnswer).toBeLessThanOrEqual(6);
		// the service sees a request leave a moment before the node does, so its count can stay just below 20
		expect(stats.peak).toBeGreaterThan(10);
		expect(stats.peak).toBeLessThanOrEqual(20);
		expect([...stats.created.values()].every((count) => count === 1)).toBe(true);
		expect(stats.created.size).toBe(150);
	});

	test('a service that takes 6 at once: it falls back after 429s, with at most half the 429s of a fixed concurrency, and no row twice', async () => {
		const adaptive = await startService({ holdMs: 20, capacity: 6 });
		services.push(adaptive.server);
		const adaptiveRun = await runAction(
			adaptive.server.asSimulator(),
			createAndRunFromItems({ concurrency: 30, adaptiveConcurrency: true }),
			phones(120),
			{
				continueOnFail: true,
			},
		);
		const fixed = await startService({ holdMs: 20, capacity: 6 });
		services.push(fixed.server);
		const fixedRun = await runAction(
			fixed.server.asSimulator(),
			createAndRunFromItems({ concurrency: 30, adaptiveConcurrency: false }),
			phones(120),
			{
				continueOnFail: true,
			},
		);

		for (const [run, stats] of [
			[adaptiveRun, adaptive.stats],
			[fixedRun, fixed.stats],
		] as const) {
			expect(run.items).toHaveLength(120);
			// a 429 creates nothing: a row is created at most once, whatever was repeated
			expect([...stats.created.values()].every((count) => count === 1)).toBe(true);
		}
		// every row of the adaptive run got through (its few 429s were repeated after Retry-After)
		expect(adaptive.stats.created.size).toBe(120);
		expect(adaptive.stats.refused).toBeGreaterThan(0);
		// with the hold on Retry-After: 11 vs 29 seen on a loaded machine; at most half as many
		expect(adaptive.stats.refused * 2).toBeLessThan(fixed.stats.refused);
	});

	test('Max Requests per Second still applies: never more requests in a second than set', async () => {
		const { server, stats } = await startService({ holdMs: 5 });
		services.push(server);
		const result = await runAction(
			server.asSimulator(),
			createAndRunFromItems({
				concurrency: 50,
				adaptiveConcurrency: true,
				maxRequestsPerSecond: 20,
			}),
			phones(45),
		);
		expect(result.error).toBeUndefined();
		const times = [...stats.arrivals].sort((a, b) => a - b);
		let most = 0;
		for (let i = 0, j = 0; i < times.length; i++) {
			while (times[i] - times[j] >= 1000) j++;
			most = Math.max(most, i - j + 1);
		}
		expect(stats.created.size).toBe(45);
		expect(most).toBeLessThanOrEqual(20);
	});
});
