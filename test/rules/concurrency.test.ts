/**
 * Concurrency: how many requests a run keeps in flight is the option set, never more (one request
 * per item, and the chunks of Create Batch From Template), with order and pairedItem kept. Through
 * n8n-core's engine with real HTTP to the simulator, which counts what it holds at once.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	apiRequests,
	candidateIdFor,
	createAndRunByExpression,
	createBatch,
	depersonalizeCall,
	expectInOrder,
	jsonOf,
	minOverlap,
	numberedPhones,
	runAction,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(60_000);

const SINGLE = '/cis/api/v1/telephony/autoCallCandidate/single';
const TEMPLATE_BATCH = '/cis/api/v1/telephony/autoCallCandidate/single/batch';
const ADD_BATCH = '/cis/api/v1/telephony/autoCallCandidate/batch';

const sim = useActionSimulator();
const { phoneOf, phoneItems } = numberedPhones('7999');
const createAndRun = (options = {}) => createAndRunByExpression({ options });

describe('concurrency (per-item operations)', () => {
	test("requests in flight never exceed the concurrency: the simulator's in-flight limit of 3 refuses nothing, the bound is reached, order and pairedItem follow the input", async () => {
		sim.setLatency(60);
		sim.setRateLimit({ inFlight: 3 });
		const result = await runAction(
			sim,
			createAndRun({ concurrency: 3, maxRetries: 0 }),
			phoneItems(20),
		);
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests).toHaveLength(20);
		expect(requests.filter((request) => request.status !== 200)).toEqual([]);
		expect(minOverlap(requests, 50)).toBe(3);
		expectInOrder(result, 20);
		jsonOf(result).forEach((json, index) => {
			expect(json.phone).toEqual([phoneOf(index)]);
			expect(json.autoCallCandidateId).toBe(candidateIdFor(sim, phoneOf(index)));
		});
	});

	test('without Adapt Concurrency and with no Concurrency set, 5 at once (the defaults: test/rules/defaultRunSettings.test.ts)', async () => {
		sim.setLatency(60);
		sim.setRateLimit({ inFlight: 5 });
		const result = await runAction(
			sim,
			createAndRun({ adaptiveConcurrency: false, maxRetries: 0 }),
			phoneItems(20),
		);
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests.filter((request) => request.status !== 200)).toEqual([]);
		expect(minOverlap(requests, 50)).toBe(5);
	});

	test('the bound is real: concurrency 5 against an in-flight limit of 3 gets 429s (each one an error item in place)', async () => {
		sim.setLatency(60);
		sim.setRateLimit({ inFlight: 3 });
		// the first 3 are held long enough for the next ones to arrive, however busy the machine is
		sim.injectFault({ path: SINGLE, delayMs: 1500, times: 3 });
		const result = await runAction(
			sim,
			createAndRun({ concurrency: 5, maxRetries: 0 }),
			phoneItems(20),
			{
				continueOnFail: true,
			},
		);
		expect(result.error).toBeUndefined();
		const refused = apiRequests(sim).filter((request) => request.status === 429);
		expect(refused.length).toBeGreaterThan(0);
		expectInOrder(result, 20);
		const errors = jsonOf(result).filter((json) => json.error !== undefined);
		expect(errors).toHaveLength(refused.length);
		for (const json of errors)
			expect(json).toMatchObject({ httpCode: '429', error: expect.stringMatching(/429/) });
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
	test("25 items, batch size 10: requests of 10, 10 and 5 candidates (the first creates the task, the others join it); each output carries the simulator's candidate for its phone", async () => {
		const result = await runAction(sim, createBatch({ batchSize: 10 }), phoneItems(25));
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests.map((request) => request.path)).toEqual([TEMPLATE_BATCH, ADD_BATCH, ADD_BATCH]);
		expect(sim.state.tasks.size).toBe(1);
		const sent = requests.map((request) =>
			request.body.batch.map((entry: IDataObject) => (entry.phone as string[])[0]),
		);
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
		const result = await runAction(
			sim,
			createBatch({ batchSize: 5, concurrency: 4, maxRetries: 0 }),
			phoneItems(60),
		);
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests).toHaveLength(12);
		expect(requests.filter((request) => request.status !== 200)).toEqual([]);
		expect(minOverlap(requests, 50)).toBe(4);
		jsonOf(result).forEach((json, index) =>
			expect(json.autoCallCandidateId).toBe(candidateIdFor(sim, phoneOf(index))),
		);
	});

	test('concurrency above the limit gets 429s: the bound is the option, not luck', async () => {
		sim.setLatency(60);
		sim.setRateLimit({ inFlight: 2 });
		// the chunks after the first are held long enough for the next ones to arrive, however busy the machine is
		sim.injectFault({ path: ADD_BATCH, delayMs: 1500, times: 2 });
		const result = await runAction(
			sim,
			createBatch({ batchSize: 5, concurrency: 4, maxRetries: 0 }),
			phoneItems(40),
			{
				continueOnFail: true,
			},
		);
		expect(apiRequests(sim).filter((request) => request.status === 429).length).toBeGreaterThan(0);
		expectInOrder(result, 40);
	});
});
