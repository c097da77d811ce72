/**
 * Issue "Campaign control beyond the spec": Call Task → Get Many / Get / Start / Pause / Stop,
 * the task resource locator and its list search, Candidate → Add to Task / Add Many to Task /
 * Cancel. Through n8n-core's engine (and its LoadOptionsContext) with real HTTP to the simulator.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { getGlobalState, NodeApiError, NodeOperationError, setGlobalState } from 'n8n-workflow';

import type { SimTask, Simulator, TaskStatus } from '../../simulator';
import { apiRequests, jsonOf, runAction, startSimulator } from './fixtures';
import { runListSearch } from './listSearch';
import { createTaskInState } from './simState';
import { sendJson, startTinyServer } from './tinyServer';

jest.setTimeout(60_000);

const API = '/cis/api/v1/';

let sim: Simulator;
beforeAll(async () => {
	sim = await startSimulator();
});
afterAll(async () => {
	await sim.close();
});
beforeEach(() => sim.reset());

const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const fromList = (value: string) => ({ __rl: true, mode: 'list', value, cachedResultName: 'picked in the list' });

function addTasks(count: number, name = (index: number) => `Task ${String(index).padStart(4, '0')}`): SimTask[] {
	return Array.from({ length: count }, (_, index) => createTaskInState(sim, { name: name(index) }));
}

function task(id: string): SimTask {
	const found = sim.state.tasks.get(id);
	if (!found) throw new Error(`no task ${id}`);
	return found;
}

function candidatesWithPhone(phone: string) {
	return [...sim.state.candidates.values()].filter((candidate) => candidate.phone.includes(phone));
}

// ---------------------------------------------------------------------------------------------

describe('Call Task → Get Many', () => {
	test('Limit: one request with limit and offset 0; one output item per task, all paired with the input item', async () => {
		addTasks(12);
		const result = await runAction(sim, { resource: 'callTask', operation: 'getMany', limit: 5 });
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests.map((request) => [request.method, request.path, request.query, request.rawBody])).toEqual([
			['GET', `${API}telephony/autoCall`, { limit: '5', offset: '0' }, ''],
		]);
		const outputs = jsonOf(result);
		expect(outputs).toHaveLength(5);
		for (const json of outputs) {
			const stored = task(json.autoCallId as string);
			expect(json).toMatchObject({ id: stored.id, name: stored.name, status: 'BLANK' });
			expect(json.stats).toBeDefined();
		}
		result.items.forEach((item) => expect(item.pairedItem).toEqual({ item: 0 }));
	});

	test('filters: statuses, keyword, from/to, sort go into the query; the answer is the matching tasks', async () => {
		const statuses: TaskStatus[] = ['BLANK', 'PROCESS', 'PAUSED', 'HALTED', 'PROCESS', 'PAUSED'];
		const created = ['2026-01-05', '2026-01-10', '2026-01-15', '2026-01-20', '2026-02-10', '2026-01-12'];
		statuses.forEach((status, index) =>
			createTaskInState(
				sim,
				{ name: index === 5 ? `Other ${index}` : `Leads ${index}` },
				{ status, createdAt: `${created[index]}T12:00:00.000Z` },
			),
		);
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'getMany',
			returnAll: true,
			filters: {
				status: ['PROCESS', 'PAUSED'],
				keyword: 'leads',
				from: '2026-01-01T00:00:00.000Z',
				to: '2026-01-31T23:59:59.000Z',
				sort: 'name',
			},
		});
		expect(result.error).toBeUndefined();
		const [request] = apiRequests(sim);
		expect(request.query).toEqual({
			status: 'PROCESS,PAUSED',
			keyword: 'leads',
			from: '2026-01-01T00:00:00.000Z',
			to: '2026-01-31T23:59:59.000Z',
			sort: 'name',
			limit: '1000',
			offset: '0',
		});
		expect(jsonOf(result).map((json) => [json.name, json.status])).toEqual([
			['Leads 1', 'PROCESS'],
			['Leads 2', 'PAUSED'],
		]);
	});

	test('From / To picked without an offset are wall time in the workflow\'s time zone (not the n8n process\')', async () => {
		const saved = getGlobalState();
		setGlobalState({ ...saved, defaultTimezone: 'Europe/Moscow' });
		try {
			const result = await runAction(sim, {
				resource: 'callTask',
				operation: 'getMany',
				filters: { from: '2026-01-10T00:00:00', to: '2026-07-10 18:30' },
			});
			expect(result.error).toBeUndefined();
			expect(apiRequests(sim)[0].query).toMatchObject({ from: '2026-01-09T21:00:00.000Z', to: '2026-07-10T15:30:00.000Z' });
		} finally {
			setGlobalState(saved);
		}
	});

	test('a From that is not a date is refused before any request', async () => {
		const result = await runAction(sim, { resource: 'callTask', operation: 'getMany', filters: { from: 'last tuesday' } });
		expect((result.error as Error).message).toMatch(/from/);
		expect(apiRequests(sim)).toEqual([]);
	});

	test('Return All pages through 2,500 tasks, at most 1,000 per page, and returns every task once', async () => {
		const tasks = addTasks(2500);
		const result = await runAction(sim, { resource: 'callTask', operation: 'getMany', returnAll: true });
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests.map((request) => request.query)).toEqual([
			{ limit: '1000', offset: '0' },
			{ limit: '1000', offset: '1000' },
			{ limit: '1000', offset: '2000' },
		]);
		const ids = jsonOf(result).map((json) => json.autoCallId);
		expect(ids).toHaveLength(2500);
		expect(new Set(ids).size).toBe(2500);
		expect([...ids].sort()).toEqual(tasks.map((t) => t.id).sort());
	});

	test('a limit above 1,000 is split into pages of at most 1,000', async () => {
		addTasks(1600);
		const result = await runAction(sim, { resource: 'callTask', operation: 'getMany', limit: 1500 });
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.query)).toEqual([
			{ limit: '1000', offset: '0' },
			{ limit: '500', offset: '1000' },
		]);
		expect(result.items).toHaveLength(1500);
	});

	test('exactly one full page: one more request finds the end', async () => {
		addTasks(1000);
		const result = await runAction(sim, { resource: 'callTask', operation: 'getMany', returnAll: true });
		expect(result.items).toHaveLength(1000);
		expect(apiRequests(sim).map((request) => request.query.offset)).toEqual(['0', '1000']);
	});

	test('Return All against a server that ignores "offset": stops at the repeated page with an error that says why', async () => {
		const page = Array.from({ length: 1000 }, (_, index) => ({ id: { identity: `task-${index}` }, name: `Task ${index}` }));
		// Ends after 20 pages so that a node without the guard finishes (with duplicates) instead of hanging.
		const server = await startTinyServer((request, response) => sendJson(response, 200, { items: server.requests.length > 20 ? [] : page }));
		try {
			const result = await runAction(server.asSimulator(), { resource: 'callTask', operation: 'getMany', returnAll: true });
			const error = result.error as NodeOperationError;
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toBe(
				'The service answered the page at offset 1000 with call tasks it had already sent, so it seems to ignore "offset" [item 0]',
			);
			expect(error.description).toMatch(/stopped after 1000 tasks.*Use Limit/);
			expect(server.requests.map((request) => request.query.offset)).toEqual(['0', '1000']);
		} finally {
			await server.close();
		}
	});

	test('Return All stops after 100 pages (100,000 tasks) rather than page on for ever', async () => {
		// Every page is new and full; ends after 150 pages so that a node without the cap finishes.
		const server = await startTinyServer((request, response) => {
			const offset = Number(request.query.offset);
			const items = server.requests.length > 150 ? [] : Array.from({ length: 1000 }, (_, index) => ({ id: `t-${offset + index}` }));
			sendJson(response, 200, { items });
		});
		try {
			const result = await runAction(server.asSimulator(), { resource: 'callTask', operation: 'getMany', returnAll: true }, [{}], {
				continueOnFail: true,
			});
			expect(server.requests).toHaveLength(100);
			expect(jsonOf(result)).toEqual([
				{
					error: 'Stopped listing call tasks after 100 pages (100000 tasks) [item 0]',
					description: 'Return All reads at most 100 pages of 1,000 tasks. Narrow the list with the filters, or use Limit.',
				},
			]);
		} finally {
			await server.close();
		}
	});

	test.each([404, 405])('%i: "not available on that server"', async (status) => {
		sim.injectFault({ path: `${API}telephony/autoCall`, method: 'GET', status });
		const result = await runAction(sim, { resource: 'callTask', operation: 'getMany', limit: 5 });
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe(`This operation is not available on that server (${status} for GET ${API}telephony/autoCall)`);
		expect(error.description).toMatch(/not part of the CIS API spec/);
	});
});

describe('Call Task → Get', () => {
	test.each([
		['By ID', byId],
		['From List', fromList],
	])('task picked %s: GET telephony/autoCall/{id}, the task with its statistics', async (_mode, locator) => {
		const [stored] = addTasks(1);
		const result = await runAction(sim, { resource: 'callTask', operation: 'get', autoCallId: locator(stored.id) });
		expect(result.error).toBeUndefined();
		const [request] = apiRequests(sim);
		expect([request.method, request.path, request.query, request.rawBody]).toEqual([
			'GET',
			`${API}telephony/autoCall/${stored.id}`,
			{},
			'',
		]);
		const [json] = jsonOf(result);
		expect(json).toMatchObject({ autoCallId: stored.id, id: stored.id, name: stored.name, status: 'BLANK' });
		expect(json.stats).toMatchObject({ candidates: 0, calls: 0 });
	});

	test('an unknown id: the error names the id', async () => {
		const result = await runAction(sim, { resource: 'callTask', operation: 'get', autoCallId: byId('no-such-task') });
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.httpCode).toBe('404');
		expect(error.message).toMatch(/404.*no-such-task.*Call task not found/);
		expect(error.description).toContain('No call task with the ID "no-such-task" exists');
	});

	test('405: "not available on that server"', async () => {
		const [stored] = addTasks(1);
		sim.injectFault({ path: `${API}telephony/autoCall/${stored.id}`, status: 405 });
		const result = await runAction(sim, { resource: 'callTask', operation: 'get', autoCallId: byId(stored.id) });
		expect((result.error as Error).message).toMatch(/^This operation is not available on that server \(405/);
	});

	test('an empty task id is refused before any request', async () => {
		const result = await runAction(sim, { resource: 'callTask', operation: 'get', autoCallId: byId('') });
		expect(result.error).toBeDefined();
		expect(apiRequests(sim)).toEqual([]);
	});
});

describe('Call Task → Start / Pause / Stop', () => {
	const setStatus = (operation: string, id: string, extra: INodeParameters = {}): INodeParameters => ({
		resource: 'callTask',
		operation,
		autoCallId: byId(id),
		...extra,
	});

	test('BLANK → Start → PROCESS → Pause → PAUSED → Start → PROCESS → Stop → HALTED, each a POST without body', async () => {
		const [stored] = addTasks(1);
		const steps: Array<[string, string, TaskStatus]> = [
			['start', 'play', 'PROCESS'],
			['pause', 'pause', 'PAUSED'],
			['start', 'play', 'PROCESS'],
			['stop', 'halted', 'HALTED'],
		];
		expect(task(stored.id).status).toBe('BLANK');
		for (const [operation, action, status] of steps) {
			sim.requests.length = 0;
			const result = await runAction(sim, setStatus(operation, stored.id));
			expect(result.error).toBeUndefined();
			const [request] = apiRequests(sim);
			expect([request.method, request.path, request.rawBody]).toEqual([
				'POST',
				`${API}telephony/autoCall/${stored.id}/${action}`,
				'',
			]);
			expect(task(stored.id).status).toBe(status);
			const [json] = jsonOf(result);
			expect(json).toMatchObject({ success: true, autoCallId: stored.id, action });
			expect((json.response as IDataObject).status).toBe(status);
		}
	});

	test('a halted task cannot be started again: the service\'s refusal is the item\'s error', async () => {
		const stored = createTaskInState(sim, { name: 'Done' }, { status: 'HALTED' });
		const result = await runAction(sim, setStatus('start', stored.id), [{}], { continueOnFail: true });
		const [json] = jsonOf(result);
		expect(json.httpCode).toBe('422');
		expect(json.error).toMatch(/halted/);
		expect(task(stored.id).status).toBe('HALTED');
	});

	test('one task per input item, picked from the list by expression', async () => {
		const tasks = addTasks(3);
		const result = await runAction(
			sim,
			{ resource: 'callTask', operation: 'start', autoCallId: { __rl: true, mode: 'id', value: '={{ $json.taskId }}' } },
			tasks.map((t) => ({ taskId: t.id })),
		);
		expect(result.error).toBeUndefined();
		expect(tasks.map((t) => task(t.id).status)).toEqual(['PROCESS', 'PROCESS', 'PROCESS']);
		expect(jsonOf(result).map((json) => json.autoCallId)).toEqual(tasks.map((t) => t.id));
	});

	test('an unknown task id: the error names it', async () => {
		const result = await runAction(sim, setStatus('pause', 'ghost-task'));
		const error = result.error as NodeApiError;
		expect(error.httpCode).toBe('404');
		expect(error.description).toContain('"ghost-task"');
	});

	test.each(['start', 'pause', 'stop'])('%s answered 405: "not available on that server"', async (operation) => {
		const [stored] = addTasks(1);
		sim.injectFault({ path: new RegExp(`^${API}telephony/autoCall/${stored.id}/`), status: 405 });
		const result = await runAction(sim, setStatus(operation, stored.id));
		expect((result.error as Error).message).toMatch(/^This operation is not available on that server \(405 for POST /);
		expect(task(stored.id).status).toBe('BLANK');
	});

	test('a 503 is retried: status moves are safe to repeat', async () => {
		const [stored] = addTasks(1);
		sim.injectFault({ path: `${API}telephony/autoCall/${stored.id}/play`, status: 503, afterHandling: true });
		const result = await runAction(sim, setStatus('start', stored.id, { options: { maxRetries: 1 } }));
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.status)).toEqual([503, 200]);
		expect(task(stored.id).status).toBe('PROCESS');
	});
});

describe('Candidate → Add to Task', () => {
	test('sends the candidate with the task id and forceStart; the output carries the candidate id', async () => {
		const [stored] = addTasks(1);
		const result = await runAction(sim, {
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
		}, [{ phone: '79990000001', crmId: 'crm-1', name: 'Anna' }]);
		expect(result.error).toBeUndefined();
		const [request] = apiRequests(sim);
		expect([request.method, request.path, request.query]).toEqual(['POST', `${API}telephony/autoCallCandidate`, {}]);
		expect(request.body).toEqual({
			autoCallId: stored.id,
			phone: ['79990000001'],
			variables: { name: 'Anna' },
			callbackData: { crmId: 'crm-1' },
			timezone: 18000,
			clientExternalId: 'crm-1',
			forceStart: true,
		});
		const [candidate] = candidatesWithPhone('79990000001');
		expect(candidate.taskId).toBe(stored.id);
		expect(jsonOf(result)[0]).toMatchObject({
			autoCallCandidateId: candidate.id,
			autoCallId: stored.id,
			phone: ['79990000001'],
		});
		expect(task(stored.id).status).toBe('PROCESS');
	});

	test('without Start the Task Too the task stays as it is', async () => {
		const [stored] = addTasks(1);
		const result = await runAction(
			sim,
			{ resource: 'candidate', operation: 'addToTask', autoCallId: byId(stored.id), phone: '79990000002' },
		);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim)[0].body).toEqual({ autoCallId: stored.id, phone: ['79990000002'], forceStart: false });
		expect(task(stored.id).status).toBe('BLANK');
	});

	test('a repeated Client External ID is added once: both items get the same candidate', async () => {
		const [stored] = addTasks(1);
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'addToTask',
				inputMode: 'fromItems',
				autoCallId: byId(stored.id),
				phoneField: 'phone',
				clientExternalIdField: 'crmId',
				options: { concurrency: 1 },
			},
			[
				{ phone: '79990000003', crmId: 'crm-7' },
				{ phone: '79990000003', crmId: 'crm-7' },
				{ phone: '79990000004', crmId: 'crm-8' },
			],
		);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim)).toHaveLength(3);
		expect(task(stored.id).candidateIds).toHaveLength(2);
		const ids = jsonOf(result).map((json) => json.autoCallCandidateId);
		expect(ids[0]).toBe(ids[1]);
		expect(ids[2]).not.toBe(ids[0]);
		expect(sim.counts()).toMatchObject({ total: 2, duplicates: 0 });
	});

	test('an unknown task: the error names the task, not a missing endpoint', async () => {
		const result = await runAction(sim, {
			resource: 'candidate',
			operation: 'addToTask',
			autoCallId: byId('ghost-task'),
			phone: '79990000005',
		});
		const error = result.error as NodeApiError;
		expect(error.httpCode).toBe('404');
		expect(error.message).toMatch(/Call task not found/);
		expect(error.description).toContain('"ghost-task"');
	});

	test('405: "not available on that server"', async () => {
		const [stored] = addTasks(1);
		sim.injectFault({ path: `${API}telephony/autoCallCandidate`, status: 405 });
		const result = await runAction(sim, {
			resource: 'candidate',
			operation: 'addToTask',
			autoCallId: byId(stored.id),
			phone: '79990000005',
		});
		expect((result.error as Error).message).toMatch(/^This operation is not available on that server \(405/);
	});
});

describe('Candidate → Add Many to Task', () => {
	const items = Array.from({ length: 7 }, (_, index) => ({
		phone: `7999000010${index}`,
		crmId: `crm-${index}`,
		name: `Person ${index}`,
	}));

	test('chunks of Batch Size, each entry with the task id; outputs mapped back per item', async () => {
		const [stored] = addTasks(1);
		const result = await runAction(sim, {
			resource: 'candidate',
			operation: 'addManyToTask',
			inputMode: 'fromItems',
			autoCallId: byId(stored.id),
			phoneField: 'phone',
			variablesFields: 'name',
			clientExternalIdField: 'crmId',
			forceStart: true,
			options: { batchSize: 3, concurrency: 1 },
		}, items);
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
		expect(result.items.map((item) => item.pairedItem)).toEqual(items.map((_, index) => ({ item: index })));
		jsonOf(result).forEach((json, index) => {
			const [candidate] = candidatesWithPhone(items[index].phone);
			expect(json).toMatchObject({ autoCallCandidateId: candidate.id, autoCallId: stored.id, phone: [items[index].phone] });
		});
		expect(task(stored.id).status).toBe('PROCESS');
	});

	test('define mode: a task per item, by expression', async () => {
		const tasks = addTasks(2);
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'addManyToTask',
				autoCallId: byId('={{ $json.taskId }}'),
				phone: '={{ $json.phone }}',
			},
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
		expect(candidatesWithPhone('79990000202')[0].taskId).toBe(tasks[1].id);
	});

	test('a repeated Client External ID within the batch is added once', async () => {
		const [stored] = addTasks(1);
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'addManyToTask',
				inputMode: 'fromItems',
				autoCallId: byId(stored.id),
				clientExternalIdField: 'crmId',
			},
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

	test('a chunk whose entries all carry a Client External ID is repeated after a 503; without, it is not', async () => {
		const [stored] = addTasks(1);
		const parameters = (idField: string): INodeParameters => ({
			resource: 'candidate',
			operation: 'addManyToTask',
			inputMode: 'fromItems',
			autoCallId: byId(stored.id),
			clientExternalIdField: idField,
			options: { maxRetries: 2 },
		});
		sim.injectFault({ path: `${API}telephony/autoCallCandidate/batch`, status: 503, afterHandling: true });
		const repeated = await runAction(sim, parameters('crmId'), items.slice(0, 2));
		expect(repeated.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.status)).toEqual([503, 200]);
		expect(sim.counts()).toMatchObject({ total: 2, duplicates: 0 });

		sim.requests.length = 0;
		sim.injectFault({ path: `${API}telephony/autoCallCandidate/batch`, status: 503, afterHandling: true });
		const single = await runAction(sim, parameters(''), items.slice(2, 4));
		expect(apiRequests(sim)).toHaveLength(1);
		expect((single.error as Error).message).toMatch(/Outcome unknown/);
	});

	test('an unknown task: the error names the task', async () => {
		const result = await runAction(sim, {
			resource: 'candidate',
			operation: 'addManyToTask',
			autoCallId: byId('ghost-task'),
			phone: '79990000401',
		});
		const error = result.error as NodeApiError;
		expect(error.httpCode).toBe('404');
		expect(error.description).toContain('"ghost-task"');
	});

	test('405 from a server without the endpoint, Continue On Fail: every item of the chunk gets the error', async () => {
		const [stored] = addTasks(1);
		sim.injectFault({ path: `${API}telephony/autoCallCandidate/batch`, status: 405 });
		const result = await runAction(
			sim,
			{ resource: 'candidate', operation: 'addManyToTask', inputMode: 'fromItems', autoCallId: byId(stored.id) },
			items.slice(0, 3),
			{ continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)).toHaveLength(3);
		for (const json of jsonOf(result)) expect(json.error).toMatch(/not available on that server/);
	});
});

describe('Candidate → Cancel', () => {
	test('POST telephony/autoCallCandidate/cancel?autoCallId=&phone=: the candidate is cancelled', async () => {
		const [stored] = addTasks(1);
		await runAction(sim, { resource: 'candidate', operation: 'addToTask', autoCallId: byId(stored.id), phone: '79990000501' });
		sim.requests.length = 0;
		const result = await runAction(sim, {
			resource: 'candidate',
			operation: 'cancel',
			autoCallId: fromList(stored.id),
			phone: '79990000501',
		});
		expect(result.error).toBeUndefined();
		const [request] = apiRequests(sim);
		expect([request.method, request.path, request.query, request.rawBody]).toEqual([
			'POST',
			`${API}telephony/autoCallCandidate/cancel`,
			{ autoCallId: stored.id, phone: '79990000501' },
			'',
		]);
		expect(candidatesWithPhone('79990000501')[0].status).toBe('CANCELLED');
		expect(jsonOf(result)[0]).toMatchObject({ success: true, autoCallId: stored.id, phone: '79990000501' });
	});

	test('a number that is not in the task: the error names the number and the task', async () => {
		const [stored] = addTasks(1);
		const result = await runAction(sim, {
			resource: 'candidate',
			operation: 'cancel',
			autoCallId: byId(stored.id),
			phone: '79990000599',
		});
		const error = result.error as NodeApiError;
		expect(error.httpCode).toBe('404');
		expect(error.description).toContain('79990000599');
		expect(error.description).toContain(stored.id);
	});

	test('405: "not available on that server"', async () => {
		const [stored] = addTasks(1);
		sim.injectFault({ path: `${API}telephony/autoCallCandidate/cancel`, status: 405 });
		const result = await runAction(sim, { resource: 'candidate', operation: 'cancel', autoCallId: byId(stored.id), phone: '79990000501' });
		expect((result.error as Error).message).toMatch(/^This operation is not available on that server \(405/);
	});
});

describe('task list search (searchCallTasks), through n8n-core\'s LoadOptionsContext', () => {
	test('by keyword: newest updated first, "name (status)" with the id as value', async () => {
		createTaskInState(sim, { name: 'Leads March' }, { status: 'PROCESS', updatedAt: '2026-03-01T00:00:00.000Z' });
		createTaskInState(sim, { name: 'Leads April' }, { status: 'PAUSED', updatedAt: '2026-04-01T00:00:00.000Z' });
		createTaskInState(sim, { name: 'Debtors' }, { updatedAt: '2026-05-01T00:00:00.000Z' });
		const result = await runListSearch(sim, { filter: 'leads' });
		const [request] = apiRequests(sim);
		expect([request.method, request.path, request.query]).toEqual([
			'GET',
			`${API}telephony/autoCall`,
			{ limit: '100', offset: '0', sort: '-updatedAt', keyword: 'leads' },
		]);
		const [april, march] = [...sim.state.tasks.values()].filter((t) => t.name.startsWith('Leads')).reverse();
		expect(result.results).toEqual([
			{ name: 'Leads April (PAUSED)', value: april.id },
			{ name: 'Leads March (PROCESS)', value: march.id },
		]);
		expect(result.paginationToken).toBeUndefined();
	});

	test('pagination token: 250 tasks in pages of 100', async () => {
		const tasks = addTasks(250);
		const first = await runListSearch(sim);
		expect(first.results).toHaveLength(100);
		expect(first.paginationToken).toBe('100');
		const second = await runListSearch(sim, { paginationToken: first.paginationToken });
		expect(second.results).toHaveLength(100);
		expect(second.paginationToken).toBe('200');
		const third = await runListSearch(sim, { paginationToken: second.paginationToken });
		expect(third.results).toHaveLength(50);
		expect(third.paginationToken).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.query.offset)).toEqual(['0', '100', '200']);
		const values = [...first.results, ...second.results, ...third.results].map((entry) => entry.value);
		expect(new Set(values).size).toBe(250);
		expect([...values].sort()).toEqual(tasks.map((t) => t.id).sort());
	});

	test('with the login credential: logs in, then lists', async () => {
		addTasks(2);
		const result = await runListSearch(sim, { parameters: { authentication: 'login' } });
		expect(result.results).toHaveLength(2);
		expect(sim.logins).toBe(1);
		expect(apiRequests(sim)[0].headers.authorization).toMatch(/^Bearer /);
	});

	test('a server without the list endpoint: "not available on that server"', async () => {
		sim.injectFault({ path: `${API}telephony/autoCall`, status: 404 });
		await expect(runListSearch(sim)).rejects.toThrow(/not available on that server/);
	});
});
