/**
 * n8n's node-level "Retry On Fail" runs the whole node again. Each candidate
 * (and task) must still be created exactly once: items created in an earlier try keep their
 * results, items whose outcome was unknown keep that error, and only the rest are sent. Through
 * n8n-core's own retry loop (WorkflowExecute) against the simulator; requests counted there.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	apiRequests,
	createBatch,
	jsonOf,
	numberedPhones,
	runAction,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(120_000);

const SINGLE = '/cis/api/v1/telephony/autoCallCandidate/single';
const TEMPLATE_BATCH = '/cis/api/v1/telephony/autoCallCandidate/single/batch';
const ADD_BATCH = '/cis/api/v1/telephony/autoCallCandidate/batch';
const CREATE_TASK = '/cis/api/v1/telephony/autoCall';

const sim = useActionSimulator();

const { phoneOf, phoneItems } = numberedPhones('7988');
// n8n reads 0 as "not set" (1 s); 1 ms keeps the tests quick.
const retry = { retryOnFail: true, maxTries: 3, waitBetweenTries: 1 };

const createAndRun: INodeParameters = {
	resource: 'candidate',
	operation: 'createAndRun',
	botSettingsId: 'bot-1',
	phone: '={{ $json.phone }}',
	options: { concurrency: 1 },
};

function createRequestsByPhone(path: string): Map<string, number> {
	const counts = new Map<string, number>();
	for (const request of apiRequests(sim).filter((r) => r.path === path && r.method === 'POST')) {
		const entries: IDataObject[] = Array.isArray(request.body?.batch)
			? request.body.batch
			: [request.body];
		for (const entry of entries) {
			const phone = (entry.phone as string[])[0];
			counts.set(phone, (counts.get(phone) ?? 0) + 1);
		}
	}
	return counts;
}

describe('Retry On Fail never sends a created item again', () => {
	test('Create and Run, 5 items, item 2 created but answered 503 every time: 5 create requests in 3 tries, each person created once', async () => {
		sim.injectFault({
			path: SINGLE,
			status: 503,
			afterHandling: true,
			bodyIncludes: phoneOf(2),
			times: Infinity,
		});
		const result = await runAction(sim, createAndRun, phoneItems(5), retry);

		expect(apiRequests(sim).filter((request) => request.path === SINGLE)).toHaveLength(5);
		expect([...createRequestsByPhone(SINGLE).values()]).toEqual([1, 1, 1, 1, 1]);
		expect(sim.counts()).toMatchObject({ total: 5, duplicates: 0 });
		// Item 2 keeps its "outcome unknown" error through every try, so the node fails in the end,
		// listing what was created (in the first and second tries) with the ids.
		const error = result.error as Error & { description?: string };
		expect(error.message).toMatch(/^Outcome unknown.*\[item 2\]/);
		for (const index of [0, 1, 3, 4]) {
			const [candidate] = [...sim.state.candidates.values()].filter(
				(c) => c.phone[0] === phoneOf(index),
			);
			expect(error.description).toContain(`${index} (autoCallCandidateId ${candidate.id})`);
		}
	});

	test('Create and Run, item 2 refused once (400, nothing created): the next try sends it and the unsent items, never items 0 and 1 again', async () => {
		sim.injectFault({
			path: SINGLE,
			status: 400,
			body: { error: 'busy, try later' },
			bodyIncludes: phoneOf(2),
		});
		const result = await runAction(sim, createAndRun, phoneItems(5), retry);

		expect(result.error).toBeUndefined();
		expect(Object.fromEntries(createRequestsByPhone(SINGLE))).toEqual({
			[phoneOf(0)]: 1,
			[phoneOf(1)]: 1,
			[phoneOf(2)]: 2,
			[phoneOf(3)]: 1,
			[phoneOf(4)]: 1,
		});
		expect(sim.counts()).toMatchObject({ total: 5, duplicates: 0 });
		const outputs = jsonOf(result);
		expect(outputs).toHaveLength(5);
		outputs.forEach((json, index) => {
			expect(sim.state.candidates.get(json.autoCallCandidateId as string)?.phone).toEqual([
				phoneOf(index),
			]);
			expect(result.items[index].pairedItem).toEqual({ item: index });
		});
	});

	test('Continue On Fail + Retry On Fail (n8n retries when the first output item is an error): each person is sent once', async () => {
		sim.injectFault({
			path: SINGLE,
			status: 503,
			afterHandling: true,
			bodyIncludes: phoneOf(0),
			times: Infinity,
		});
		const result = await runAction(sim, createAndRun, phoneItems(3), {
			...retry,
			continueOnFail: true,
		});

		expect(apiRequests(sim).filter((request) => request.path === SINGLE)).toHaveLength(3);
		expect(sim.counts()).toMatchObject({ total: 3, duplicates: 0 });
		const outputs = jsonOf(result);
		expect(String(outputs[0].error)).toMatch(/^Outcome unknown/);
		expect(typeof outputs[1].autoCallCandidateId).toBe('string');
		expect(typeof outputs[2].autoCallCandidateId).toBe('string');
	});

	test('Call Task → Create, 2 items, the second created but answered 503: 2 tasks, 2 requests in 3 tries', async () => {
		sim.injectFault({
			path: CREATE_TASK,
			method: 'POST',
			status: 503,
			afterHandling: true,
			bodyIncludes: 'Second',
			times: Infinity,
		});
		const result = await runAction(
			sim,
			{
				resource: 'callTask',
				operation: 'create',
				name: '={{ $json.name }}',
				defaultExecData: 'bot-1',
				cpsMode: 'perSecond',
				callsPerSecond: 1,
				recordCall: false,
				options: { concurrency: 1 },
			},
			[{ name: 'First' }, { name: 'Second' }],
			retry,
		);
		expect((result.error as Error).message).toMatch(/^Outcome unknown.*\[item 1\]/);
		expect(
			apiRequests(sim).filter(
				(request) => request.path === CREATE_TASK && request.method === 'POST',
			),
		).toHaveLength(2);
		expect(sim.state.tasks.size).toBe(2);
	});

	test('Create Batch, 250 items in batches of 100, the second batch answered 503 after it was added: 1 task, each person sent once', async () => {
		sim.injectFault({ path: ADD_BATCH, status: 503, afterHandling: true });
		const result = await runAction(sim, createBatch({ concurrency: 1 }), phoneItems(250), retry);
		expect(apiRequests(sim).map((request) => request.path)).toEqual([
			TEMPLATE_BATCH,
			ADD_BATCH,
			ADD_BATCH,
		]);
		expect(sim.state.tasks.size).toBe(1);
		expect(sim.counts()).toMatchObject({ total: 250, duplicates: 0 });
		expect(
			[
				...createRequestsByPhone(TEMPLATE_BATCH).values(),
				...createRequestsByPhone(ADD_BATCH).values(),
			].every((count) => count === 1),
		).toBe(true);
		const error = result.error as Error & { description?: string };
		expect(error.message).toMatch(/^Outcome unknown.*\[item 100\]/);
		expect(error.description).toContain('Failed: items 100, 101,');
	});

	test('Create Batch, the request that creates the task refused once (400): the next try creates the one task, the others join it', async () => {
		sim.injectFault({ path: TEMPLATE_BATCH, status: 400, body: { error: 'try later' } });
		const result = await runAction(sim, createBatch({ batchSize: 2 }), phoneItems(5), retry);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => [request.path, request.status])).toEqual([
			[TEMPLATE_BATCH, 400],
			[TEMPLATE_BATCH, 200],
			[ADD_BATCH, 200],
			[ADD_BATCH, 200],
		]);
		expect(sim.state.tasks.size).toBe(1);
		expect(sim.counts()).toMatchObject({ total: 5, duplicates: 0 });
	});

	test('Create Batch, the request that creates the task answered 503 after it was handled: no try sends anything else, the error lists the items not sent', async () => {
		sim.injectFault({ path: TEMPLATE_BATCH, status: 503, afterHandling: true });
		const result = await runAction(sim, createBatch({ batchSize: 2 }), phoneItems(5), retry);
		expect(apiRequests(sim)).toHaveLength(1);
		expect(sim.state.tasks.size).toBe(1);
		const error = result.error as Error & { description?: string };
		expect(error.message).toMatch(/^Outcome unknown.*\[item 0\]$/);
		expect(error.description).toContain('Failed: items 0, 1.');
		expect(error.description).toContain('Not sent: items 2, 3, 4.');
	});

	test('a later run of the same workflow (a new execution) sends everything again: the memory is per execution', async () => {
		const first = await runAction(sim, createAndRun, phoneItems(2), retry);
		const second = await runAction(sim, createAndRun, phoneItems(2), retry);
		expect(first.error).toBeUndefined();
		expect(second.error).toBeUndefined();
		expect(apiRequests(sim).filter((request) => request.path === SINGLE)).toHaveLength(4);
	});
});
