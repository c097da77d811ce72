/**
 * Candidate → Add Many to Task (nodes/CisAutoCall/actions/candidate/addManyToTask.operation.ts):
 * campaign control beyond the spec. Through n8n-core's engine with real HTTP to the simulator.
 */
import type { INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import {
	addTasks,
	API,
	apiRequests,
	byId,
	candidate,
	candidatesWithPhone,
	jsonOf,
	runAction,
	storedTask,
	useActionSimulator,
} from '../fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator();

describe('Candidate → Add Many to Task', () => {
	const items = Array.from({ length: 7 }, (_, index) => ({
		phone: `7999000010${index}`,
		crmId: `crm-${index}`,
		name: `Person ${index}`,
	}));

	test('chunks of Batch Size, each entry with the task id; outputs mapped back per item', async () => {
		const [stored] = addTasks(sim, 1);
		const result = await runAction(
			sim,
			candidate('addManyToTask', {
				inputMode: 'fromItems',
				autoCallId: byId(stored.id),
				phoneField: 'phone',
				variablesFields: 'name',
				clientExternalIdField: 'crmId',
				forceStart: true,
				options: { batchSize: 3, concurrency: 1 },
			}),
			items,
		);
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests.map((request) => [request.method, request.path])).toEqual(
			Array(3).fill(['POST', `${API}telephony/autoCallCandidate/batch`]),
		);
		expect(requests.map((request) => request.body.batch.length)).toEqual([3, 3, 1]);
		expect(requests[0].body).toEqual({
			batch: items.slice(0, 3).map((item) => ({
				autoCallId: stored.id,
				phone: [item.phone],
				variables: { name: item.name },
				clientExternalId: item.crmId,
			})),
			forceStart: true,
		});
		expect(result.items.map((item) => item.pairedItem)).toEqual(
			items.map((_, index) => ({ item: index })),
		);
		jsonOf(result).forEach((json, index) => {
			const [candidate] = candidatesWithPhone(sim, items[index].phone);
			expect(json).toMatchObject({
				autoCallCandidateId: candidate.id,
				autoCallId: stored.id,
				phone: [items[index].phone],
			});
		});
		expect(storedTask(sim, stored.id).status).toBe('PROCESS');
	});

	test('define mode: a task per item, by expression', async () => {
		const tasks = addTasks(sim, 2);
		const result = await runAction(
			sim,
			candidate('addManyToTask', {
				autoCallId: byId('={{ $json.taskId }}'),
				phone: '={{ $json.phone }}',
			}),
			[
				{ taskId: tasks[0].id, phone: '79990000201' },
				{ taskId: tasks[1].id, phone: '79990000202' },
			],
		);
		expect(result.error).toBeUndefined();
		const [request] = apiRequests(sim);
		expect(request.body).toEqual({
			batch: [
				{ autoCallId: tasks[0].id, phone: ['79990000201'] },
				{ autoCallId: tasks[1].id, phone: ['79990000202'] },
			],
			forceStart: false,
		});
		expect(jsonOf(result).map((json) => json.autoCallId)).toEqual([tasks[0].id, tasks[1].id]);
		expect(candidatesWithPhone(sim, '79990000202')[0].taskId).toBe(tasks[1].id);
	});

	test('a repeated Client External ID within the batch is added once', async () => {
		const [stored] = addTasks(sim, 1);
		const result = await runAction(
			sim,
			candidate('addManyToTask', {
				inputMode: 'fromItems',
				autoCallId: byId(stored.id),
				clientExternalIdField: 'crmId',
			}),
			[
				{ phone: '79990000301', crmId: 'same' },
				{ phone: '79990000301', crmId: 'same' },
			],
		);
		expect(result.error).toBeUndefined();
		const [first, second] = jsonOf(result);
		expect(first.autoCallCandidateId).toBe(second.autoCallCandidateId);
		expect(sim.counts().total).toBe(1);
	});

	test('a batch answered 503 then 200 is sent once, Client External IDs or not: its outcome is unknown, said per item', async () => {
		const [stored] = addTasks(sim, 1);
		const parameters = (idField: string): INodeParameters => ({
			resource: 'candidate',
			operation: 'addManyToTask',
			inputMode: 'fromItems',
			autoCallId: byId(stored.id),
			clientExternalIdField: idField,
			options: { maxRetries: 2 },
		});
		for (const [idField, slice] of [
			['crmId', items.slice(0, 2)],
			['', items.slice(2, 4)],
		] as const) {
			sim.requests.length = 0;
			// The service adds the batch, then answers 503 once; a second POST would answer 200.
			sim.injectFault({
				path: `${API}telephony/autoCallCandidate/batch`,
				status: 503,
				afterHandling: true,
			});
			const result = await runAction(sim, parameters(idField), [...slice], {
				continueOnFail: true,
			});
			expect(apiRequests(sim).filter((request) => request.method === 'POST')).toHaveLength(1);
			const outputs = jsonOf(result);
			expect(outputs).toHaveLength(2);
			for (const output of outputs) expect(String(output.error)).toMatch(/^Outcome unknown/);
		}
		expect(sim.counts()).toMatchObject({ total: 4, duplicates: 0 });
	});

	test('an unknown task: the error names the task', async () => {
		const result = await runAction(
			sim,
			candidate('addManyToTask', { autoCallId: byId('ghost-task'), phone: '79990000401' }),
		);
		const error = result.error as NodeApiError;
		expect(error.httpCode).toBe('404');
		expect(error.description).toContain('"ghost-task"');
	});

	test('405 from a server without the endpoint, Continue On Fail: every item of the chunk gets the error', async () => {
		const [stored] = addTasks(sim, 1);
		sim.injectFault({ path: `${API}telephony/autoCallCandidate/batch`, status: 405 });
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'addManyToTask',
				inputMode: 'fromItems',
				autoCallId: byId(stored.id),
			},
			items.slice(0, 3),
			{ continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)).toHaveLength(3);
		for (const json of jsonOf(result)) expect(json.error).toMatch(/not available on that server/);
	});
});
