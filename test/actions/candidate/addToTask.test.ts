/**
 * Candidate → Add to Task (nodes/CisAutoCall/actions/candidate/addToTask.operation.ts): campaign
 * control beyond the spec. Through n8n-core's engine with real HTTP to the simulator.
 */
import { NodeApiError } from 'n8n-workflow';
import {
	addTasks,
	API,
	apiRequests,
	byId,
	candidate,
	candidatesWithPhone,
	fromList,
	jsonOf,
	runAction,
	storedTask,
	useActionSimulator,
} from '../fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator();

describe('Candidate → Add to Task', () => {
	test('sends the candidate with the task id and forceStart; the output carries the candidate id', async () => {
		const [stored] = addTasks(sim, 1);
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'addToTask',
				autoCallId: fromList(stored.id),
				phone: '={{ $json.phone }}',
				candidateFields: {
					clientExternalId: '={{ $json.crmId }}',
					callbackData: '={{ JSON.stringify({ crmId: $json.crmId }) }}',
					timezone: '+05:00',
					variables: { variable: [{ name: 'name', value: '={{ $json.name }}' }] },
				},
				forceStart: true,
			},
			[{ phone: '79990000001', crmId: 'crm-1', name: 'Anna' }],
		);
		expect(result.error).toBeUndefined();
		const [request] = apiRequests(sim);
		expect([request.method, request.path, request.query]).toEqual([
			'POST',
			`${API}telephony/autoCallCandidate`,
			{},
		]);
		expect(request.body).toEqual({
			autoCallId: stored.id,
			phone: ['79990000001'],
			variables: { name: 'Anna' },
			callbackData: { crmId: 'crm-1' },
			timezone: 18000,
			clientExternalId: 'crm-1',
			forceStart: true,
		});
		const [candidate] = candidatesWithPhone(sim, '79990000001');
		expect(candidate.taskId).toBe(stored.id);
		expect(jsonOf(result)[0]).toMatchObject({
			autoCallCandidateId: candidate.id,
			autoCallId: stored.id,
			phone: ['79990000001'],
		});
		expect(storedTask(sim, stored.id).status).toBe('PROCESS');
	});

	test('without Start the Task Too the task stays as it is', async () => {
		const [stored] = addTasks(sim, 1);
		const result = await runAction(sim, {
			resource: 'candidate',
			operation: 'addToTask',
			autoCallId: byId(stored.id),
			phone: '79990000002',
		});
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim)[0].body).toEqual({
			autoCallId: stored.id,
			phone: ['79990000002'],
			forceStart: false,
		});
		expect(storedTask(sim, stored.id).status).toBe('BLANK');
	});

	test('a repeated Client External ID is added once: both items get the same candidate', async () => {
		const [stored] = addTasks(sim, 1);
		const result = await runAction(
			sim,
			candidate('addToTask', {
				inputMode: 'fromItems',
				autoCallId: byId(stored.id),
				phoneField: 'phone',
				clientExternalIdField: 'crmId',
				options: { concurrency: 1 },
			}),
			[
				{ phone: '79990000003', crmId: 'crm-7' },
				{ phone: '79990000003', crmId: 'crm-7' },
				{ phone: '79990000004', crmId: 'crm-8' },
			],
		);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim)).toHaveLength(3);
		expect(storedTask(sim, stored.id).candidateIds).toHaveLength(2);
		const ids = jsonOf(result).map((json) => json.autoCallCandidateId);
		expect(ids[0]).toBe(ids[1]);
		expect(ids[2]).not.toBe(ids[0]);
		expect(sim.counts()).toMatchObject({ total: 2, duplicates: 0 });
	});

	test('an unknown task: the error names the task, not a missing endpoint', async () => {
		const result = await runAction(
			sim,
			candidate('addToTask', { autoCallId: byId('ghost-task'), phone: '79990000005' }),
		);
		const error = result.error as NodeApiError;
		expect(error.httpCode).toBe('404');
		expect(error.message).toMatch(/Call task not found/);
		expect(error.description).toContain('"ghost-task"');
	});

	test('405: "not available on that server"', async () => {
		const [stored] = addTasks(sim, 1);
		sim.injectFault({ path: `${API}telephony/autoCallCandidate`, status: 405 });
		const result = await runAction(
			sim,
			candidate('addToTask', { autoCallId: byId(stored.id), phone: '79990000005' }),
		);
		expect((result.error as Error).message).toMatch(
			/^This operation is not available on that server \(405/,
		);
	});
});
