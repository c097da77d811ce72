/**
 * Issue "CRM-scale volume": concurrency, batching, rate limit, retries with backoff, timeouts,
 * nothing lost, input by field name. Every test runs the node through n8n-core's engine with
 * real HTTP to the simulator.
 */
import { createServer } from 'node:net';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { FaultSpec, LoggedRequest, Simulator } from '../../simulator';
import { apiRequests, byId, createAndRunByExpression, createBatch, createTaskInState, jsonOf, numberedPhones, runAction, useActionSimulator } from '../actions/fixtures';

jest.setTimeout(60_000);

const SINGLE = '/cis/api/v1/telephony/autoCallCandidate/single';
const TEMPLATE_BATCH = '/cis/api/v1/telephony/autoCallCandidate/single/batch';
const ADD_BATCH = '/cis/api/v1/telephony/autoCallCandidate/batch';

const sim = useActionSimulator();

const { phoneOf, phoneItems } = numberedPhones('7999');

const createAndRun = (options: INodeParameters = {}, extra: INodeParameters = {}) => createAndRunByExpression({ options, ...extra });

/** Create Batch with the template each item names (its field template), a call task per batch. */
const batchPerItemTemplate = (options: INodeParameters): INodeParameters => ({
	resource: 'candidate',
	operation: 'createBatch',
	phone: '={{ $json.phone }}',
	taskSettings: { autoCallTemplateId: '={{ $json.template }}' },
	callTasks: 'taskPerBatch',
	options,
});

/** Six items; the third names a template the service does not have. */
const itemsMissingTemplateAt2 = () => phoneItems(6).map((item, index) => ({ ...item, template: index === 2 ? 'missing-template' : '' }));

const depersonalizeCall = (options: INodeParameters = {}): INodeParameters => ({
	resource: 'call',
	operation: 'depersonalize',
	callId: '={{ $json.callId }}',
	options,
});

/** The candidate the simulator created for a phone (exactly one expected). */
function candidateIdFor(phone: string): string {
	const found = [...sim.state.candidates.values()].filter((candidate) => candidate.phone.includes(phone));
	expect(found).toHaveLength(1);
	return found[0].id;
}

/**
 * A lower bound of the requests the simulator held at once: each request is held at least
 * `holdMs` (the latency) from its arrival.
 */
function minOverlap(requests: LoggedRequest[], holdMs: number): number {
	let max = 0;
	for (const request of requests) {
		const holding = requests.filter((other) => other.at <= request.at && request.at < other.at + holdMs).length;
		max = Math.max(max, holding);
	}
	return max;
}

/** Most arrivals within any window of `windowMs`. */
function maxInWindow(requests: LoggedRequest[], windowMs: number): number {
	const times = requests.map((request) => request.at).sort((a, b) => a - b);
	let max = 0;
	for (let start = 0; start < times.length; start++) {
		let end = start;
		while (end < times.length && times[end] < times[start] + windowMs) end++;
		max = Math.max(max, end - start);
	}
	return max;
}

async function closedPortUrl(): Promise<string> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	const { port } = server.address() as { port: number };
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return `http://127.0.0.1:${port}`;
}

/** A TCP server on 127.0.0.1 that reads a request and answers bytes that are not HTTP. */
async function startGarbageServer(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
	let count = 0;
	const sockets = new Set<import('node:net').Socket>();
	const server = createServer((socket) => {
		sockets.add(socket);
		socket.once('data', () => {
			count++;
			socket.end('THIS IS NOT HTTP\r\n\r\n');
		});
		socket.on('error', () => {});
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	const { port } = server.address() as { port: number };
	return {
		url: `http://127.0.0.1:${port}`,
		requests: () => count,
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

function expectInOrder(result: Awaited<ReturnType<typeof runAction>>, count: number) {
	expect(result.items).toHaveLength(count);
	result.items.forEach((item, index) => expect(item.pairedItem).toEqual({ item: index }));
}

// ---------------------------------------------------------------------------------------------

describe('concurrency (per-item operations)', () => {
	test('requests in flight never exceed the concurrency: the simulator\'s in-flight limit of 3 refuses nothing, the bound is reached, order and pairedItem follow the input', async () => {
		sim.setLatency(60);
		sim.setRateLimit({ inFlight: 3 });
		const result = await runAction(sim, createAndRun({ concurrency: 3, maxRetries: 0 }), phoneItems(20));
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests).toHaveLength(20);
		expect(requests.filter((request) => request.status !== 200)).toEqual([]);
		expect(minOverlap(requests, 50)).toBe(3);
		expectInOrder(result, 20);
		jsonOf(result).forEach((json, index) => {
			expect(json.phone).toEqual([phoneOf(index)]);
			expect(json.autoCallCandidateId).toBe(candidateIdFor(phoneOf(index)));
		});
	});

	test('without Adapt Concurrency and with no Concurrency set, 5 at once (the defaults: test/rules/defaultRunSettings.test.ts)', async () => {
		sim.setLatency(60);
		sim.setRateLimit({ inFlight: 5 });
		const result = await runAction(sim, createAndRun({ adaptiveConcurrency: false, maxRetries: 0 }), phoneItems(20));
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests.filter((request) => request.status !== 200)).toEqual([]);
		expect(minOverlap(requests, 50)).toBe(5);
	});

	test('the bound is real: concurrency 5 against an in-flight limit of 3 gets 429s (each one an error item in place)', async () => {
		sim.setLatency(60);
		sim.setRateLimit({ inFlight: 3 });
		const result = await runAction(sim, createAndRun({ concurrency: 5, maxRetries: 0 }), phoneItems(20), {
			continueOnFail: true,
		});
		expect(result.error).toBeUndefined();
		const refused = apiRequests(sim).filter((request) => request.status === 429);
		expect(refused.length).toBeGreaterThan(0);
		expectInOrder(result, 20);
		const errors = jsonOf(result).filter((json) => json.error !== undefined);
		expect(errors).toHaveLength(refused.length);
		for (const json of errors) expect(json).toMatchObject({ httpCode: '429', error: expect.stringMatching(/429/) });
	});

	test('a safe operation (call → depersonalize) uses the same bound', async () => {
		const calls = Array.from({ length: 12 }, () => sim.addCall());
		sim.setLatency(60);
		sim.setRateLimit({ inFlight: 4 });
		const result = await runAction(
			sim,
			depersonalizeCall({ concurrency: 4, maxRetries: 0 }),
			calls.map((call) => ({ callId: call.id })),
		);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).filter((request) => request.status !== 200)).toEqual([]);
		expect(minOverlap(apiRequests(sim), 50)).toBe(4);
		expect(jsonOf(result).map((json) => json.callId)).toEqual(calls.map((call) => call.id));
		expect(calls.every((call) => sim.state.calls.get(call.id)?.depersonalized)).toBe(true);
	});
});

describe('Create Batch From Template: batch size and bounded concurrency', () => {
	test('25 items, batch size 10: requests of 10, 10 and 5 candidates (the first creates the task, the others join it); each output carries the simulator\'s candidate for its phone', async () => {
		const result = await runAction(sim, createBatch({ batchSize: 10 }), phoneItems(25));
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests.map((request) => request.path)).toEqual([TEMPLATE_BATCH, ADD_BATCH, ADD_BATCH]);
		expect(sim.state.tasks.size).toBe(1);
		const sent = requests.map((request) => request.body.batch.map((entry: IDataObject) => (entry.phone as string[])[0]));
		expect(sent.map((batch) => batch.length).sort()).toEqual([10, 10, 5]);
		expect(sent.flat().sort()).toEqual(phoneItems(25).map((item) => item.phone));
		expectInOrder(result, 25);
		jsonOf(result).forEach((json, index) => {
			expect(json.phone).toEqual([phoneOf(index)]);
			const candidate = sim.state.candidates.get(json.autoCallCandidateId as string);
			expect(candidate?.phone).toEqual([phoneOf(index)]);
			expect(json.autoCallId).toBe(candidate?.taskId);
		});
		expect(sim.counts()).toMatchObject({ total: 25, duplicates: 0 });
	});

	test('chunks are sent with the bounded concurrency: 4 at once against an in-flight limit of 4, never more', async () => {
		sim.setLatency(60);
		sim.setRateLimit({ inFlight: 4 });
		const result = await runAction(sim, createBatch({ batchSize: 5, concurrency: 4, maxRetries: 0 }), phoneItems(60));
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests).toHaveLength(12);
		expect(requests.filter((request) => request.status !== 200)).toEqual([]);
		expect(minOverlap(requests, 50)).toBe(4);
		jsonOf(result).forEach((json, index) => expect(json.autoCallCandidateId).toBe(candidateIdFor(phoneOf(index))));
	});

	test('concurrency above the limit gets 429s: the bound is the option, not luck', async () => {
		sim.setLatency(60);
		sim.setRateLimit({ inFlight: 2 });
		const result = await runAction(sim, createBatch({ batchSize: 5, concurrency: 4, maxRetries: 0 }), phoneItems(40), {
			continueOnFail: true,
		});
		expect(apiRequests(sim).filter((request) => request.status === 429).length).toBeGreaterThan(0);
		expectInOrder(result, 40);
	});
});

describe('Max Requests per Second', () => {
	test('30 items at 10/s take about 3 s, and the simulator\'s limit of 10 per second refuses none', async () => {
		sim.setRateLimit({ perSecond: 10 });
		const started = Date.now();
		const result = await runAction(sim, createAndRun({ maxRequestsPerSecond: 10, concurrency: 10, maxRetries: 0 }), phoneItems(30));
		const elapsed = Date.now() - started;
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests.filter((request) => request.status !== 200)).toEqual([]);
		expect(elapsed).toBeGreaterThanOrEqual(2800);
		expect(maxInWindow(requests, 1000)).toBeLessThanOrEqual(10);
		expectInOrder(result, 30);
	});

	test('the limit is shared by all requests of the run, retries included', async () => {
		// The first attempt for each of 5 calls is answered 503 and retried (a safe operation).
		const calls = Array.from({ length: 10 }, () => sim.addCall());
		for (const call of calls.slice(0, 5)) sim.injectFault({ path: `/cis/api/v1/calls/${call.id}/depersonalization`, status: 503 });
		const started = Date.now();
		const result = await runAction(
			sim,
			depersonalizeCall({ maxRequestsPerSecond: 5, concurrency: 5, maxRetries: 2 }),
			calls.map((call) => ({ callId: call.id })),
		);
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests).toHaveLength(15);
		expect(maxInWindow(requests, 1000)).toBeLessThanOrEqual(5);
		// 15 request starts at 5 per second: 14 intervals of 200 ms.
		expect(Date.now() - started).toBeGreaterThanOrEqual(2700);
	});
});

describe('retries', () => {
	test('429 is retried after Retry-After given in seconds', async () => {
		const [call] = [sim.addCall()];
		sim.injectFault({ path: `/cis/api/v1/calls/${call.id}/depersonalization`, status: 429, headers: { 'retry-after': '1' } });
		const result = await runAction(sim, depersonalizeCall({ maxRetries: 1 }), [{ callId: call.id }]);
		expect(result.error).toBeUndefined();
		const [first, second] = apiRequests(sim);
		expect([first.status, second.status]).toEqual([429, 200]);
		expect(second.at - first.at).toBeGreaterThanOrEqual(990);
		expect(second.at - first.at).toBeLessThan(2500);
	});

	test('429 is retried after Retry-After given as an HTTP date', async () => {
		const call = sim.addCall();
		const retryAt = Math.ceil(Date.now() / 1000) * 1000 + 2000;
		sim.injectFault({
			path: `/cis/api/v1/calls/${call.id}/depersonalization`,
			status: 429,
			headers: { 'retry-after': new Date(retryAt).toUTCString() },
		});
		const result = await runAction(sim, depersonalizeCall({ maxRetries: 1 }), [{ callId: call.id }]);
		expect(result.error).toBeUndefined();
		const [first, second] = apiRequests(sim);
		expect([first.status, second.status]).toEqual([429, 200]);
		// Longer than any first backoff (at most 500 ms): the date was honoured.
		expect(second.at).toBeGreaterThanOrEqual(retryAt - 15);
		expect(second.at - first.at).toBeGreaterThan(1000);
	});

	test('429 is retried for a creating operation too (nothing was created), without duplicates', async () => {
		sim.injectFault({ path: SINGLE, status: 429, headers: { 'retry-after': '0' }, times: 2 });
		const result = await runAction(sim, createAndRun({ maxRetries: 2 }), [{ phone: phoneOf(1) }]);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.status)).toEqual([429, 429, 200]);
		expect(jsonOf(result)[0].autoCallCandidateId).toBe(candidateIdFor(phoneOf(1)));
	});

	test.each([
		['negative', () => '-5'],
		['zero', () => '0'],
		['a date in the past', () => new Date(Date.now() - 60_000).toUTCString()],
	])('a Retry-After that is %s gets the normal backoff, not an immediate repeat', async (_name, retryAfter) => {
		const call = sim.addCall();
		sim.injectFault({ path: `/cis/api/v1/calls/${call.id}/depersonalization`, status: 429, headers: { 'retry-after': retryAfter() } });
		const result = await runAction(sim, depersonalizeCall({ maxRetries: 1 }), [{ callId: call.id }]);
		expect(result.error).toBeUndefined();
		const [first, second] = apiRequests(sim);
		expect([first.status, second.status]).toEqual([429, 200]);
		// The first backoff is 250..500 ms.
		expect(second.at - first.at).toBeGreaterThanOrEqual(240);
	});

	test('a Retry-After longer than the longest wait (60 s): the item fails at once, saying how long the service asked to wait', async () => {
		const call = sim.addCall();
		sim.injectFault({ path: `/cis/api/v1/calls/${call.id}/depersonalization`, status: 429, headers: { 'retry-after': '120' } });
		const started = Date.now();
		const result = await runAction(sim, depersonalizeCall({ maxRetries: 3 }), [{ callId: call.id }], { continueOnFail: true });
		expect(Date.now() - started).toBeLessThan(5000);
		expect(apiRequests(sim)).toHaveLength(1);
		const [json] = jsonOf(result);
		expect(json.error).toMatch(/answered 429 .* asked to wait 120 s before the next request, longer than the 60 s this node waits/);
		expect(json.description).toMatch(/Nothing was carried out/);
	}, 15_000);

	test('429 beyond Max Retries: the item fails after maxRetries + 1 attempts and says so', async () => {
		const call = sim.addCall();
		sim.injectFault({ path: `/cis/api/v1/calls/${call.id}/depersonalization`, status: 429, headers: { 'retry-after': '0' }, times: 10 });
		const result = await runAction(sim, depersonalizeCall({ maxRetries: 2 }), [{ callId: call.id }]);
		expect(apiRequests(sim)).toHaveLength(3);
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/429.*after 3 attempts/);
		expect(error.description).toMatch(/too many requests/i);
	});

	test('connection refused is retried; the failure names the cause and maxRetries + 1 attempts', async () => {
		const url = await closedPortUrl();
		const started = Date.now();
		const result = await runAction(
			{ ...sim, url } as Simulator,
			createAndRun({ maxRetries: 2 }),
			[{ phone: phoneOf(1) }],
		);
		const elapsed = Date.now() - started;
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/refused/i);
		expect(error.message).toMatch(/ECONNREFUSED/);
		expect(error.message).toMatch(/after 3 attempts/);
		expect(error.message).not.toMatch(/outcome unknown/i);
		expect(error.description).toMatch(/Base URL/);
		// Two backoffs with jitter: 250..500 ms, then 500..1000 ms.
		expect(elapsed).toBeGreaterThanOrEqual(740);
	});

	test.each([
		['502', { status: 502 }],
		['503', { status: 503 }],
		['504', { status: 504 }],
		['a dropped connection', { drop: true }],
	])('%s is retried for a safe operation (call → depersonalize)', async (_name, fault) => {
		const call = sim.addCall();
		sim.injectFault({ path: `/cis/api/v1/calls/${call.id}/depersonalization`, times: 2, ...fault });
		const result = await runAction(sim, depersonalizeCall({ maxRetries: 2 }), [{ callId: call.id }]);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim)).toHaveLength(3);
		expect(jsonOf(result)).toEqual([{ success: true, callId: call.id, recordingKept: false }]);
		expect(sim.state.calls.get(call.id)?.depersonalized).toBe(true);
	});

	test('503 is retried for Call → Delete Recording and Candidate → Depersonalize', async () => {
		const call = sim.addCall();
		sim.injectFault({ path: `/cis/api/v1/calls/${call.id}/record`, status: 503 });
		const deleted = await runAction(sim, { resource: 'call', operation: 'deleteRecording', callId: call.id });
		expect(deleted.error).toBeUndefined();
		expect(sim.state.calls.get(call.id)?.record).toBeNull();

		const created = await runAction(sim, createAndRun(), [{ phone: phoneOf(5) }]);
		const candidateId = jsonOf(created)[0].autoCallCandidateId as string;
		sim.injectFault({ path: /\/autoCallCandidate\/[^/]+\/depersonalization$/, drop: true });
		const result = await runAction(sim, {
			resource: 'candidate',
			operation: 'depersonalize',
			autoCallCandidateId: candidateId,
		});
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.status)).toEqual([503, 200, 200, 0, 200]);
		expect(sim.state.candidates.get(candidateId)?.depersonalized).toBe(true);
	});

	const creating: Array<[string, INodeParameters, IDataObject[], string]> = [
		['Candidate → Create and Run', createAndRun({ maxRetries: 3, timeout: 1 }), [{ phone: phoneOf(1) }], SINGLE],
		['Candidate → Create Batch From Template', createBatch({ maxRetries: 3, timeout: 1 }), [{ phone: phoneOf(1) }], TEMPLATE_BATCH],
		[
			'Call Task → Create',
			{ resource: 'callTask', operation: 'create', name: 'Leads', defaultExecData: 'bot-1', options: { maxRetries: 3, timeout: 1 } },
			[{}],
			'/cis/api/v1/telephony/autoCall',
		],
	];
	const uncertainFaults: Array<[string, FaultSpec, RegExp]> = [
		['502', { status: 502 }, /the service answered 502/],
		['503 after handling', { status: 503, afterHandling: true }, /the service answered 503/],
		['504', { status: 504 }, /the service answered 504/],
		['a dropped connection after handling', { drop: true, afterHandling: true }, /connection was dropped/],
		['a timeout (the answer comes after 1 s)', { delayMs: 1300, afterHandling: true }, /timed out/],
	];
	describe.each(creating)('%s is not repeated after an unknown outcome', (_name, parameters, items, path) => {
		test.each(uncertainFaults)('%s: one request, the item says the outcome is unknown and why', async (_fault, fault, why) => {
			sim.injectFault({ path, ...fault });
			const result = await runAction(sim, parameters, items, { continueOnFail: true });
			expect(apiRequests(sim)).toHaveLength(1);
			const [json] = jsonOf(result);
			expect(json.error).toMatch(/^Outcome unknown for POST /);
			expect(json.error).toMatch(why);
			expect(json.error).toMatch(/may have been created; check the task before running again/);
			expect(json.description).toMatch(/not repeated, because repeating a creating request can call a person twice/);
			expect(result.items[0].pairedItem).toEqual({ item: 0 });
		});
	});

	test('a timeout of a creating request: one request, outcome unknown, "timed out"', async () => {
		sim.injectFault({ path: SINGLE, delayMs: 1500 });
		const result = await runAction(sim, createAndRun({ timeout: 1, maxRetries: 3 }), [{ phone: phoneOf(1) }]);
		expect(apiRequests(sim)).toHaveLength(1);
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/Outcome unknown/);
		expect(error.message).toMatch(/timed out/);
	});

	test.each([
		['Candidate → Create and Run', createAndRun({ maxRetries: 3, retryUncertainCreates: true }), [{ phone: phoneOf(1) }], SINGLE],
		['Candidate → Create Batch From Template', createBatch({ maxRetries: 3, retryUncertainCreates: true }), phoneItems(3), TEMPLATE_BATCH],
	])('%s saved with the removed option "Retry Creating Requests" on: runs, and still sends once after a 503', async (_name, parameters, items, path) => {
		sim.injectFault({ path, status: 503, afterHandling: true });
		const result = await runAction(sim, parameters, items, { continueOnFail: true });
		expect(apiRequests(sim)).toHaveLength(1);
		expect(sim.counts().duplicates).toBe(0);
		expect(jsonOf(result)[0].error).toMatch(/^Outcome unknown for POST .*may have been created; check the task before running again/);
	});

	test.each([
		['500', { status: 500, afterHandling: true } as FaultSpec, /the service answered 500/],
		['500 before handling', { status: 500 } as FaultSpec, /the service answered 500/],
	])('%s on a creating request: one request, outcome unknown', async (_name, fault, why) => {
		sim.injectFault({ path: SINGLE, ...fault });
		const result = await runAction(sim, createAndRun({ maxRetries: 3 }), [{ phone: phoneOf(1) }], { continueOnFail: true });
		expect(apiRequests(sim)).toHaveLength(1);
		const [json] = jsonOf(result);
		expect(json.error).toMatch(/^Outcome unknown for POST /);
		expect(json.error).toMatch(why);
		expect(json.error).toMatch(/may have been created; check the task before running again/);
	});

	test('an unrecognised network error (a server that answers garbage) on a creating request: one request, outcome unknown', async () => {
		const garbage = await startGarbageServer();
		try {
			const result = await runAction(
				{ ...sim, url: garbage.url } as Simulator,
				createAndRun({ maxRetries: 3 }),
				[{ phone: phoneOf(1) }],
				{ continueOnFail: true },
			);
			expect(garbage.requests()).toBe(1);
			expect(jsonOf(result)[0].error).toMatch(/^Outcome unknown for POST .*may have been created; check the task before running again/);
		} finally {
			await garbage.close();
		}
	});

	describe('a creation carrying Client External ID (Candidate → Add to Task)', () => {
		let taskId: string;
		beforeEach(() => {
			taskId = createTaskInState(sim, { name: 'Existing task' }).id;
		});
		const addToTask = (clientExternalId: string, options: INodeParameters = {}): INodeParameters => ({
			resource: 'candidate',
			operation: 'addToTask',
			autoCallId: byId(taskId),
			phone: '={{ $json.phone }}',
			candidateFields: { clientExternalId },
			options,
		});

		test('is repeated after a 503 that came after the candidate was added: the platform adds it once', async () => {
			sim.injectFault({ path: '/cis/api/v1/telephony/autoCallCandidate', status: 503, afterHandling: true });
			const result = await runAction(sim, addToTask('crm-1', { maxRetries: 2 }), [{ phone: phoneOf(1) }]);
			expect(result.error).toBeUndefined();
			expect(apiRequests(sim).map((request) => request.status)).toEqual([503, 200]);
			expect(sim.counts()).toMatchObject({ total: 1, duplicates: 0 });
			expect(jsonOf(result)[0].autoCallCandidateId).toBe(candidateIdFor(phoneOf(1)));
		});

		test('is repeated after a timeout', async () => {
			sim.injectFault({ path: '/cis/api/v1/telephony/autoCallCandidate', delayMs: 1300, afterHandling: true });
			const result = await runAction(sim, addToTask('crm-2', { maxRetries: 2, timeout: 1 }), [{ phone: phoneOf(2) }]);
			expect(result.error).toBeUndefined();
			expect(apiRequests(sim)).toHaveLength(2);
			expect(sim.counts()).toMatchObject({ total: 1, duplicates: 0 });
		});

		test('without Client External ID it is not repeated', async () => {
			sim.injectFault({ path: '/cis/api/v1/telephony/autoCallCandidate', status: 503, afterHandling: true });
			const result = await runAction(sim, addToTask('', { maxRetries: 2 }), [{ phone: phoneOf(3) }]);
			expect(apiRequests(sim)).toHaveLength(1);
			expect((result.error as Error).message).toMatch(/Outcome unknown/);
		});
	});
});

describe('options are checked before anything is sent', () => {
	test.each([
		['Max Requests per Second', { maxRequestsPerSecond: '={{ 1/0 }}' }, /Invalid Max Requests per Second: .* is not a number from 0 \(no limit\) to 1000 \[item 0\]/],
		['Max Requests per Second', { maxRequestsPerSecond: 1e9 }, /Invalid Max Requests per Second: 1000000000 is not a number from 0 \(no limit\) to 1000 \[item 0\]/],
		['Max Requests per Second', { maxRequestsPerSecond: -1 }, /Invalid Max Requests per Second: -1 is not/],
		['Timeout (Seconds)', { timeout: 'abc' }, /Invalid Timeout \(Seconds\): "abc" is not a number of seconds from 1 to 3600 \[item 0\]/],
		['Timeout (Seconds)', { timeout: 0 }, /Invalid Timeout \(Seconds\): 0 is not a number of seconds/],
		['Max Retries', { maxRetries: 2.5 }, /Invalid Max Retries: 2.5 is not a whole number \[item 0\]/],
	])('%s %j: a named error, 0 requests', async (field, options, message) => {
		const result = await runAction(sim, depersonalizeCall(options as INodeParameters), [{ callId: 'c-1' }]);
		expect(result.error?.message).toMatch(message);
		expect((result.error as NodeApiError).description).toContain(`Field "${field}"`);
		expect(apiRequests(sim)).toHaveLength(0);
	});

	test('a fractional rate (2.5 per second) is accepted', async () => {
		const calls = [sim.addCall(), sim.addCall()];
		const result = await runAction(sim, depersonalizeCall({ maxRequestsPerSecond: 2.5 }), calls.map((call) => ({ callId: call.id })));
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim)).toHaveLength(2);
	});
});

describe('timeout (seconds)', () => {
	test('a slow answer fails with a timeout message', async () => {
		const call = sim.addCall();
		sim.injectFault({ path: `/cis/api/v1/calls/${call.id}/depersonalization`, delayMs: 1500 });
		const started = Date.now();
		const result = await runAction(sim, depersonalizeCall({ timeout: 1, maxRetries: 0 }), [{ callId: call.id }]);
		const elapsed = Date.now() - started;
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/timed out/);
		expect(error.message).toMatch(/ETIMEDOUT/);
		expect(elapsed).toBeGreaterThanOrEqual(950);
		// No retry: a retry would add a backoff of 250 ms or more and a second timeout of 1 s.
		expect(elapsed).toBeLessThan(2200);
	});

	test('for a safe operation the timed-out request is retried', async () => {
		const call = sim.addCall();
		sim.injectFault({ path: `/cis/api/v1/calls/${call.id}/depersonalization`, delayMs: 1500 });
		const result = await runAction(sim, depersonalizeCall({ timeout: 1, maxRetries: 1 }), [{ callId: call.id }]);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim)).toHaveLength(2);
		expect(jsonOf(result)[0]).toMatchObject({ success: true, callId: call.id });
	});
});

describe('nothing lost', () => {
	test('Continue On Fail: every failed item is an error item with the reason, in place, with pairedItem', async () => {
		sim.injectFault({
			path: SINGLE,
			status: 400,
			body: { timestamp: 1, type: 'ValidationException', error: 'Phone is blacklisted', details: null },
		});
		sim.injectFault({ path: SINGLE, status: 503 });
		const result = await runAction(sim, createAndRun({ concurrency: 1 }), phoneItems(5), { continueOnFail: true });
		expect(result.error).toBeUndefined();
		expectInOrder(result, 5);
		const outputs = jsonOf(result);
		expect(outputs[0]).toMatchObject({ httpCode: '400', error: expect.stringMatching(/Phone is blacklisted/) });
		expect(outputs[1]).toMatchObject({ httpCode: '503', error: expect.stringMatching(/Outcome unknown/) });
		for (const index of [2, 3, 4]) expect(outputs[index].autoCallCandidateId).toBe(candidateIdFor(phoneOf(index)));
	});

	test('without Continue On Fail the error lists the items that succeeded (with ids), failed, and were not sent', async () => {
		const calls = Array.from({ length: 6 }, () => sim.addCall());
		const items = calls.map((call) => ({ callId: call.id }));
		items[2] = { callId: 'no-such-call' };
		const result = await runAction(sim, depersonalizeCall({ concurrency: 1 }), items);
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/404.*Call not found.*\[item 2\]/);
		expect(error.context.itemIndex).toBe(2);
		expect(error.description).toContain(
			`Succeeded before the stop: 0 (callId ${calls[0].id}), 1 (callId ${calls[1].id}).`,
		);
		expect(error.description).toContain('Failed: items 2.');
		expect(error.description).toContain('Not sent: items 3, 4, 5.');
		expect(apiRequests(sim)).toHaveLength(3);
	});

	test('a failed chunk without Continue On Fail: its items failed, earlier ones listed with their candidate ids, later ones not sent', async () => {
		const result = await runAction(
			sim,
			batchPerItemTemplate({ batchSize: 2, concurrency: 1 }),
			itemsMissingTemplateAt2(),
		);
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/404.*Template not found.*\[item 2\]/);
		const id0 = candidateIdFor(phoneOf(0));
		const id1 = candidateIdFor(phoneOf(1));
		expect(error.description).toContain(`Succeeded before the stop: 0 (autoCallCandidateId ${id0}), 1 (autoCallCandidateId ${id1}).`);
		expect(error.description).toContain('Failed: items 2, 3.');
		expect(error.description).toContain('Not sent: items 4, 5.');
		expect(apiRequests(sim)).toHaveLength(2);
	});

	test('the same chunk failure with Continue On Fail: an error item for each of its items, the rest succeed', async () => {
		const result = await runAction(
			sim,
			batchPerItemTemplate({ batchSize: 2, concurrency: 2 }),
			itemsMissingTemplateAt2(),
			{ continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		expectInOrder(result, 6);
		const outputs = jsonOf(result);
		for (const index of [2, 3]) expect(outputs[index]).toMatchObject({ httpCode: '404', error: expect.stringMatching(/Template not found/) });
		for (const index of [0, 1, 4, 5]) expect(outputs[index].autoCallCandidateId).toBe(candidateIdFor(phoneOf(index)));
	});
});

describe('"fromItems" input: candidate fields read by field name', () => {
	const rows = [
		{ tel: '79990000001', name: 'Anna', extra: { city: 'Kazan', plan: 'gold' }, crmId: 'lead-1', source: 'web', tz: '+03:00' },
		{ tel: ['79990000002', '79990000003'], name: 'Boris', crmId: 'lead-2', source: 'ads', tz: 25200 },
		{ tel: '79990000004, 79990000005', name: 'Vera', crmId: 'lead-3', tz: '' },
	];

	test('Create and Run: phone, variables, callbackData and time zone come from the named fields', async () => {
		const result = await runAction(
			sim,
			createAndRun(
				{},
				{
					inputMode: 'fromItems',
					phoneField: 'tel',
					variablesFields: 'name, extra',
					callbackDataFields: 'crmId, source',
					timezoneField: 'tz',
				},
			),
			rows,
		);
		expect(result.error).toBeUndefined();
		const bodies = apiRequests(sim).map((request) => request.body);
		expect(bodies).toEqual([
			{
				phone: ['79990000001'],
				botSettingsId: 'bot-1',
				variables: { name: 'Anna', city: 'Kazan', plan: 'gold' },
				callbackData: { crmId: 'lead-1', source: 'web' },
				timezone: 10800,
			},
			{
				phone: ['79990000002', '79990000003'],
				botSettingsId: 'bot-1',
				variables: { name: 'Boris' },
				callbackData: { crmId: 'lead-2', source: 'ads' },
				timezone: 25200,
			},
			{
				phone: ['79990000004', '79990000005'],
				botSettingsId: 'bot-1',
				variables: { name: 'Vera' },
				callbackData: { crmId: 'lead-3' },
			},
		]);
		expectInOrder(result, 3);
		expect(jsonOf(result).map((json) => json.autoCallCandidateId)).toEqual(
			['79990000001', '79990000002', '79990000004'].map(candidateIdFor),
		);
	});

	test('Create Batch From Template: the same fields plus Client External ID and the task settings, per entry', async () => {
		const result = await runAction(
			sim,
			createBatch(
				{ batchSize: 2 },
				{
					phoneField: 'tel',
					variablesFields: 'name',
					callbackDataFields: 'crmId',
					timezoneField: 'tz',
					clientExternalIdField: 'crmId',
					taskSettings: { botSettingsId: 'bot-7', checkPhone: true },
					callTasks: 'taskPerBatch',
				},
			),
			rows,
		);
		expect(result.error).toBeUndefined();
		const entries = apiRequests(sim).flatMap((request) => request.body.batch);
		expect(entries).toEqual([
			{
				phone: ['79990000001'],
				variables: { name: 'Anna' },
				callbackData: { crmId: 'lead-1' },
				timezone: 10800,
				clientExternalId: 'lead-1',
				botSettingsId: 'bot-7',
				checkPhone: true,
			},
			{
				phone: ['79990000002', '79990000003'],
				variables: { name: 'Boris' },
				callbackData: { crmId: 'lead-2' },
				timezone: 25200,
				clientExternalId: 'lead-2',
				botSettingsId: 'bot-7',
				checkPhone: true,
			},
			{
				phone: ['79990000004', '79990000005'],
				variables: { name: 'Vera' },
				callbackData: { crmId: 'lead-3' },
				clientExternalId: 'lead-3',
				botSettingsId: 'bot-7',
				checkPhone: true,
			},
		]);
		const candidates = jsonOf(result).map((json) => sim.state.candidates.get(json.autoCallCandidateId as string));
		expect(candidates.map((candidate) => candidate?.clientExternalId)).toEqual(['lead-1', 'lead-2', 'lead-3']);
	});

	test('an item without the phone field fails alone with Continue On Fail, naming the field; the others are sent', async () => {
		const result = await runAction(
			sim,
			createAndRun({}, { inputMode: 'fromItems', phoneField: 'tel' }),
			[rows[0], { name: 'no phone' }, rows[1]],
			{ continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		expectInOrder(result, 3);
		expect(jsonOf(result)[1].error).toMatch(/tel/);
		expect(apiRequests(sim)).toHaveLength(2);
	});
});

describe('random faults at CRM scale', () => {
	const unknownOrDone = (result: Awaited<ReturnType<typeof runAction>>) => {
		expectInOrder(result, 200);
		const outputs = jsonOf(result);
		const succeeded = outputs.filter((json) => typeof json.autoCallCandidateId === 'string');
		const unknown = outputs.filter((json) => /^Outcome unknown/.test(String(json.error ?? '')));
		// Every item is accounted for: a success or an "outcome unknown" error item.
		expect(succeeded.length + unknown.length).toBe(200);
		for (const json of unknown) expect(json.error).toMatch(/may have been created; check the task before running again/);
		outputs.forEach((json, index) => {
			if (json.autoCallCandidateId) expect(sim.state.candidates.get(json.autoCallCandidateId as string)?.phone).toEqual([phoneOf(index)]);
		});
		return { succeeded, unknown };
	};

	test('10 % of 429 / 503 / dropped answers on 200 Create and Run items: no duplicate, none lost', async () => {
		sim.setFaultRate({ rate: 0.1, kinds: ['429', '503', 'drop'], seed: 7 });
		const result = await runAction(sim, createAndRun({ maxRetries: 5 }), phoneItems(200), { continueOnFail: true });
		expect(result.error).toBeUndefined();
		const { succeeded, unknown } = unknownOrDone(result);
		expect(sim.counts().duplicates).toBe(0);
		// These faults come before the request is handled: exactly the successes were created.
		expect(sim.counts().total).toBe(succeeded.length);
		expect(unknown.length).toBeGreaterThan(0);
		expect(apiRequests(sim).some((request) => request.status === 429)).toBe(true);
	});

	test('faults after the candidate was created (after503 / afterDrop): reported as outcome unknown, never repeated', async () => {
		sim.setFaultRate({ rate: 0.1, kinds: ['429', 'after503', 'afterDrop'], seed: 11 });
		const result = await runAction(sim, createAndRun({ maxRetries: 5 }), phoneItems(200), { continueOnFail: true });
		expect(result.error).toBeUndefined();
		const { succeeded, unknown } = unknownOrDone(result);
		expect(sim.counts().duplicates).toBe(0);
		expect(unknown.length).toBeGreaterThan(0);
		// The unknown ones were in fact created: the user must check them, not send them again.
		expect(sim.counts().total).toBe(succeeded.length + unknown.length);
		const requestsByPhone = new Map<string, number>();
		for (const request of apiRequests(sim).filter((r) => r.status !== 429)) {
			const phone = request.body.phone[0] as string;
			requestsByPhone.set(phone, (requestsByPhone.get(phone) ?? 0) + 1);
		}
		expect([...requestsByPhone.values()].every((count) => count === 1)).toBe(true);
	});
});
