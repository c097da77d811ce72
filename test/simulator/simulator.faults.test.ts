// Fault injection, random faults, rate limits, latency.
import { createSimulator } from '../../simulator';
import { startQuickSimulator, useSimulator } from '../lib/simulator';
import { CIS, createClient } from './testkit';

const sim = useSimulator(startQuickSimulator, {
	settle: true,
	emptyAfter: true,
	closeAfterAll: () => client.close(),
});
const client = createClient(() => sim.url);
const call = client.call;

const SINGLE = `${CIS}/telephony/autoCallCandidate/single`;
const singleBody = (phone: string) => ({ phone: [phone], botSettingsId: 'bot-1' });

describe('injectFault', () => {
	it('answers the given status once, then behaves normally (nothing created)', async () => {
		sim.injectFault({ method: 'POST', path: SINGLE, status: 503 });
		const faulted = await call('POST', SINGLE, { body: singleBody('7001') });
		expect(faulted.status).toBe(503);
		expect(faulted.body).toEqual({ error: 'Service Unavailable', details: null });
		expect(sim.createdByPhone()).toEqual({});
		const normal = await call('POST', SINGLE, { body: singleBody('7001') });
		expect(normal.status).toBe(200);
		expect(sim.requests.map((r) => r.status)).toEqual([503, 200]);
		expect(sim.requests[0].fault).toBe('injected');
	});

	it('uses the given body and headers, and matches paths by RegExp and method', async () => {
		sim.injectFault({
			path: /\/autoCall$/,
			method: 'GET',
			status: 402,
			body: { error: 'Payment required' },
			headers: { 'x-why': 'balance' },
		});
		const post = await call('POST', `${CIS}/telephony/autoCall`, { body: {} });
		expect(post.status).toBe(400); // method does not match
		const get = await call('GET', `${CIS}/telephony/autoCall`);
		expect(get.status).toBe(402);
		expect(get.body).toEqual({ error: 'Payment required' });
		expect(get.headers['x-why']).toBe('balance');
	});

	it('a 429 fault carries Retry-After: 1 unless told otherwise', async () => {
		sim.injectFault({ status: 429 });
		const answer = await call('GET', `${CIS}/telephony/autoCall`);
		expect(answer.status).toBe(429);
		expect(answer.headers['retry-after']).toBe('1');
	});

	it('times: n hits n requests; Infinity hits all', async () => {
		sim.injectFault({ path: `${CIS}/telephony/autoCall`, status: 500, times: 2 });
		const statuses = [];
		for (let i = 0; i < 3; i += 1)
			statuses.push((await call('GET', `${CIS}/telephony/autoCall`)).status);
		expect(statuses).toEqual([500, 500, 200]);
		sim.injectFault({ status: 502, times: Infinity });
		for (let i = 0; i < 5; i += 1)
			expect((await call('GET', `${CIS}/telephony/autoCall`)).status).toBe(502);
	});

	it('drop destroys the socket without an answer and changes nothing', async () => {
		sim.injectFault({ path: SINGLE, drop: true });
		await expect(call('POST', SINGLE, { body: singleBody('7002') })).rejects.toThrow();
		expect(sim.createdByPhone()).toEqual({});
		expect(sim.requests[0].status).toBe(0);
		expect((await call('POST', SINGLE, { body: singleBody('7002') })).status).toBe(200);
	});

	it('delayMs delays the answer', async () => {
		sim.injectFault({ path: `${CIS}/telephony/autoCall`, delayMs: 150 });
		const started = Date.now();
		const answer = await call('GET', `${CIS}/telephony/autoCall`);
		expect(answer.status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(140);
	});

	it('afterHandling: the candidate is created but the client sees 503 (outcome unknown)', async () => {
		sim.injectFault({ path: SINGLE, status: 503, afterHandling: true });
		const answer = await call('POST', SINGLE, { body: singleBody('7003') });
		expect(answer.status).toBe(503);
		expect(sim.createdByPhone()).toEqual({ '7003': 1 });
		await call('POST', SINGLE, { body: singleBody('7003') }); // a naive retry duplicates
		expect(sim.counts()).toMatchObject({ duplicates: 1, total: 2 });
	});

	it('bodyIncludes: only requests whose body contains the text are hit', async () => {
		sim.injectFault({
			path: SINGLE,
			status: 503,
			afterHandling: true,
			bodyIncludes: '7005',
			times: Infinity,
		});
		const statuses = [];
		for (const phone of ['7004', '7005', '7006', '7005'])
			statuses.push((await call('POST', SINGLE, { body: singleBody(phone) })).status);
		expect(statuses).toEqual([200, 503, 200, 503]);
	});

	it('afterHandling with drop: the task is created but the socket is destroyed', async () => {
		sim.injectFault({
			path: `${CIS}/telephony/autoCall`,
			method: 'POST',
			drop: true,
			afterHandling: true,
		});
		const body = {
			name: 'x',
			defaultExec: 'robot',
			defaultExecData: 'b',
			secondExec: 'end',
			cidType: 'default',
			startType: 'manual',
			cps: 1,
			additionalOptions: { fullListMethod: 'reject', fullListTime: 1, recordCall: false },
			redialStrategyOptions: {
				redialStrategyEn: false,
				busy: { redial: false },
				noAnswer: { redial: false },
				answerMash: { redial: false },
				congestion: { redial: false },
				answerNoList: { redial: false },
			},
		};
		await expect(call('POST', `${CIS}/telephony/autoCall`, { body })).rejects.toThrow();
		expect(sim.state.tasks.size).toBe(1);
	});
});

describe('setFaultRate', () => {
	async function statuses(n: number) {
		const result: Array<number | string> = [];
		for (let i = 0; i < n; i += 1) {
			try {
				result.push((await call('GET', `${CIS}/telephony/autoCall`)).status);
			} catch {
				result.push('dropped');
			}
		}
		return result;
	}

	it('injects random faults at about the rate, deterministically for a seed', async () => {
		sim.setFaultRate({ rate: 0.3, kinds: ['429', '503', 'drop'], seed: 7 });
		const first = await statuses(60);
		sim.setFaultRate({ rate: 0.3, kinds: ['429', '503', 'drop'], seed: 7 });
		const second = await statuses(60);
		expect(second).toEqual(first);
		const faults = first.filter((s) => s !== 200).length;
		expect(faults).toBeGreaterThan(5);
		expect(faults).toBeLessThan(35);
		expect(new Set(first)).toEqual(new Set([200, 429, 503, 'dropped']));
		sim.setFaultRate(null);
		expect(await statuses(10)).toEqual(Array(10).fill(200));
	});

	it('slow faults delay by slowMs; unknown kinds are refused', async () => {
		sim.setFaultRate({ rate: 1, kinds: ['slow'], slowMs: 100 });
		const started = Date.now();
		expect((await call('GET', `${CIS}/telephony/autoCall`)).status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(90);
		expect(() => sim.setFaultRate({ rate: 1, kinds: ['teapot' as any] })).toThrow(
			/unknown fault kind/,
		);
	});

	it('after503 creates then answers 503', async () => {
		sim.setFaultRate({ rate: 1, kinds: ['after503'] });
		expect((await call('POST', SINGLE, { body: singleBody('7004') })).status).toBe(503);
		expect(sim.createdByPhone()).toEqual({ '7004': 1 });
	});
});

describe('setRateLimit', () => {
	it('answers 429 with Retry-After: 1 beyond perSecond in a sliding second', async () => {
		sim.setRateLimit({ perSecond: 5 });
		const answers = [];
		for (let i = 0; i < 7; i += 1) answers.push(await call('GET', `${CIS}/telephony/autoCall`));
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
		expect(answers[5].headers['retry-after']).toBe('1');
		expect(answers[5].body).toEqual({ error: 'Too Many Requests' });
		await new Promise((r) => setTimeout(r, 1050));
		expect((await call('GET', `${CIS}/telephony/autoCall`)).status).toBe(200);
		sim.setRateLimit(null);
		for (let i = 0; i < 10; i += 1)
			expect((await call('GET', `${CIS}/telephony/autoCall`)).status).toBe(200);
	});

	it('answers 429 beyond inFlight concurrent requests', async () => {
		sim.setLatency(400);
		sim.setRateLimit({ inFlight: 2 });
		const answers = await Promise.all(
			Array.from({ length: 5 }, () => call('GET', `${CIS}/telephony/autoCall`)),
		);
		const codes = answers.map((a) => a.status).sort();
		expect(codes).toEqual([200, 200, 429, 429, 429]);
	});
});

describe('latency', () => {
	it('setLatency adds latency to each API request; reset restores the configured latency', async () => {
		sim.setLatency(400);
		const started = Date.now();
		await call('GET', `${CIS}/telephony/autoCall`);
		expect(Date.now() - started).toBeGreaterThanOrEqual(390);
		expect(sim.requests.map((request) => request.delayedMs)).toEqual([400]);
		sim.reset();
		await call('GET', `${CIS}/telephony/autoCall`);
		expect(sim.requests.map((request) => request.delayedMs)).toEqual([0]);
	});

	it('the latencyMs option applies from the start', async () => {
		const slow = await createSimulator({ latencyMs: 80 });
		const slowClient = createClient(() => slow.url);
		try {
			const started = Date.now();
			await slowClient.call('GET', `${CIS}/telephony/autoCall`);
			expect(Date.now() - started).toBeGreaterThanOrEqual(70);
		} finally {
			await slowClient.close();
			await slow.close();
		}
	});
});
