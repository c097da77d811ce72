/**
 * A batch answer lands on the right person, or the item says it cannot.
 * Add Many to Task and Create Batch through n8n-core's engine against the simulator (its two answer
 * shapes, and injected answers with other counts), and as an AI Agent's tool.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { mapBatchResponse } from '../../../nodes/CisAutoCall/actions/candidate/batchResponse';
import {
	apiRequests,
	byId,
	createTaskInState,
	jsonOf,
	runAction,
	runTool,
	useActionSimulator,
} from '../fixtures';

jest.setTimeout(60_000);

const ADD_BATCH = '/cis/api/v1/telephony/autoCallCandidate/batch';
const TEMPLATE_BATCH = '/cis/api/v1/telephony/autoCallCandidate/single/batch';

const sim = useActionSimulator({ timeScale: 1000 });

const addMany = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'candidate',
	operation: 'addManyToTask',
	autoCallId: byId('={{ $json.task }}') as unknown as INodeParameters,
	phone: '={{ $json.phone }}',
	...extra,
});

/** Each output's candidate id names the simulator's candidate of that item's own phone and task. */
function expectOwnCandidates(
	outputs: IDataObject[],
	items: Array<{ task: string; phone: string }>,
) {
	expect(outputs).toHaveLength(items.length);
	outputs.forEach((json, index) => {
		const candidate = sim.state.candidates.get(json.autoCallCandidateId as string);
		expect({ phone: candidate?.phone, task: candidate?.taskId }).toEqual({
			phone: [items[index].phone],
			task: items[index].task,
		});
		expect(json.autoCallId).toBe(items[index].task);
	});
}

const entry = (task: string, candidate: string, phone?: string) => ({
	autoCallId: { identity: task },
	autoCallCandidateId: { identity: candidate },
	...(phone ? { phone } : {}),
});

describe('Add Many to Task: items for tasks [A, B, A] in one request', () => {
	test.each(['perCandidate', 'perTask'] as const)(
		'answer shape %s: each item gets the candidate of its own task and number',
		async (shape) => {
			sim.setBatchAnswerShape(shape);
			const a = createTaskInState(sim, { name: 'A' });
			const b = createTaskInState(sim, { name: 'B' });
			const items = [
				{ task: a.id, phone: '79990000101' },
				{ task: b.id, phone: '79990000102' },
				{ task: a.id, phone: '79990000103' },
			];
			const result = await runAction(sim, addMany(), items);
			expect(result.error).toBeUndefined();
			expect(apiRequests(sim).filter((request) => request.path === ADD_BATCH)).toHaveLength(1);
			// perTask answers [[A:c1, A:c3], [B:c2]]: by position item 1 (task B) would get task A's c3.
			expectOwnCandidates(jsonOf(result), items);
			expect(jsonOf(result).every((json) => !('candidateIdUnknown' in json))).toBe(true);
		},
	);

	test('an answer that names each number, in another order: matched by number', async () => {
		const a = createTaskInState(sim, { name: 'A' });
		const items = [
			{ task: a.id, phone: '79990000111' },
			{ task: a.id, phone: '79990000112' },
		];
		sim.injectFault({
			path: ADD_BATCH,
			status: 200,
			body: [[entry(a.id, 'c-2', '+7 999 000-01-12'), entry(a.id, 'c-1', '79990000111')]],
		});
		const outputs = jsonOf(await runAction(sim, addMany(), items));
		expect(outputs.map((json) => json.autoCallCandidateId)).toEqual(['c-1', 'c-2']);
	});

	test('an answer entry for a task nothing was sent to: no item gets an id', async () => {
		const a = createTaskInState(sim, { name: 'A' });
		const items = [
			{ task: a.id, phone: '79990000121' },
			{ task: a.id, phone: '79990000122' },
		];
		sim.injectFault({
			path: ADD_BATCH,
			status: 200,
			afterHandling: true,
			body: [[entry(a.id, 'c-1')], [entry('other-task', 'c-9')]],
		});
		const outputs = jsonOf(await runAction(sim, addMany(), items));
		for (const json of outputs) {
			expect(json).not.toHaveProperty('autoCallCandidateId');
			expect(json.candidateIdUnknown).toMatch(
				/^No entry of the answer matches candidate 2 of this request.*do not send them again/,
			);
		}
	});
});

describe('answers with another count than what was sent', () => {
	test("a node saved with version 1 keeps 0.1.0's output: the raw answer in every item (beside the new reason)", async () => {
		const a = createTaskInState(sim, { name: 'A' });
		const items = [1, 2, 3].map((n) => ({ task: a.id, phone: `7999000014${n}` }));
		const answer = [[entry(a.id, 'c-0')]];
		sim.injectFault({ path: ADD_BATCH, status: 200, afterHandling: true, body: answer });
		const outputs = jsonOf(await runAction(sim, addMany(), items, { typeVersion: 1 }));
		expect(outputs).toHaveLength(3);
		for (const json of outputs) {
			expect(json.unmappedResponse).toEqual(answer);
			expect(json.candidateIdUnknown).toMatch(/^The answer holds 1 entry for the 3 candidates/);
		}
	});

	test.each([
		['fewer', 2],
		['more', 4],
	] as const)(
		'%s entries: every item is "sent, id unknown", with no candidate id; the raw answer appears once',
		async (_, count) => {
			const a = createTaskInState(sim, { name: 'A' });
			const items = [1, 2, 3].map((n) => ({ task: a.id, phone: `7999000013${n}` }));
			const answer = [Array.from({ length: count }, (_unused, index) => entry(a.id, `c-${index}`))];
			sim.injectFault({ path: ADD_BATCH, status: 200, afterHandling: true, body: answer });
			const result = await runAction(sim, addMany(), items);
			expect(result.error).toBeUndefined();
			const outputs = jsonOf(result);
			expect(outputs).toHaveLength(3);
			outputs.forEach((json, index) => {
				expect(json).not.toHaveProperty('autoCallCandidateId');
				expect(json).toMatchObject({ autoCallId: a.id, phone: [items[index].phone] });
				expect(json.candidateIdUnknown).toBe(
					`The answer holds ${count} entries for the 3 candidates of this request, so which candidate id belongs to which item is unknown. The candidates were sent (do not send them again); find their ids on the service. The raw answer is in the output of item 0.`,
				);
			});
			expect(outputs.filter((json) => 'unmappedResponse' in json)).toHaveLength(1);
		},
	);

	test('as an AI Agent tool, such an item reads outcome "unknown", not "done"', async () => {
		const a = createTaskInState(sim, { name: 'A' });
		sim.injectFault({
			path: ADD_BATCH,
			status: 200,
			afterHandling: true,
			body: [[entry(a.id, 'c-1'), entry(a.id, 'c-2')]],
		});
		const result = await runTool(
			sim,
			{
				...addMany(),
				autoCallId: byId(a.id) as unknown as INodeParameters,
				phone: "={{ $fromAI('phone', 'Number', 'string') }}",
			},
			[{ phone: '79990000141' }],
		);
		const [answer] = JSON.parse(result.observations[0]) as IDataObject[];
		expect(answer).toEqual({
			outcome: 'unknown',
			message:
				'Sent, but its candidate id is unknown: The answer holds 2 entries for the 1 candidates of this request, so which candidate id belongs to which item is unknown. The candidates were sent (do not send them again); find their ids on the service. The raw answer is in the output of item 0. Do not repeat it: it may have been carried out (a call may have started). Tell the user to check it in the service.',
			autoCallId: a.id,
			phone: ['79990000141'],
		});
	});
});

describe('Create Batch: the request that creates the task', () => {
	test('an answer naming two tasks without numbers cannot be matched: said on every item', async () => {
		sim.injectFault({
			path: TEMPLATE_BATCH,
			status: 200,
			afterHandling: true,
			body: [[entry('t-1', 'c-1')], [entry('t-2', 'c-2')]],
		});
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createBatch',
				inputMode: 'fromItems',
				phoneField: 'phone',
				callTasks: 'taskPerBatch',
			},
			[{ phone: '79990000151' }, { phone: '79990000152' }],
		);
		for (const json of jsonOf(result)) {
			expect(json).not.toHaveProperty('autoCallCandidateId');
			expect(json.candidateIdUnknown).toMatch(
				/^The answer names 2 call tasks without saying which number went to which/,
			);
		}
	});
});

describe('mapBatchResponse', () => {
	test('grouped by task: [[A:c1, A:c3], [B:c2]] for tasks [A, B, A] gives c1, c2, c3', () => {
		const sent = [
			{ taskId: 'A', phones: ['1'] },
			{ taskId: 'B', phones: ['2'] },
			{ taskId: 'A', phones: ['3'] },
		];
		const results = mapBatchResponse(
			[[entry('A', 'c1'), entry('A', 'c3')], [entry('B', 'c2')]],
			[0, 1, 2],
			sent,
		);
		expect(results.map((result) => result.autoCallCandidateId)).toEqual(['c1', 'c2', 'c3']);
	});

	test('entries without a task id, for a request to several tasks: unknown', () => {
		const sent = [
			{ taskId: 'A', phones: ['1'] },
			{ taskId: 'B', phones: ['2'] },
		];
		const results = mapBatchResponse([[{ id: 'c1' }], [{ id: 'c2' }]], [0, 1], sent);
		expect(
			results.every(
				(result) =>
					typeof result.candidateIdUnknown === 'string' && !('autoCallCandidateId' in result),
			),
		).toBe(true);
	});
});
