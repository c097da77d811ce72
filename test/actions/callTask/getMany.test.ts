/**
 * Call Task → Get Many (nodes/CisAutoCall/actions/callTask/getMany.operation.ts): campaign control
 * beyond the spec. Through n8n-core's engine with real HTTP to the simulator.
 */
import { getGlobalState, NodeApiError, NodeOperationError, setGlobalState } from 'n8n-workflow';
import type { TaskStatus } from '../../../simulator';
import {
	addTasks,
	API,
	apiRequests,
	createTaskInState,
	jsonOf,
	runAction,
	sendJson,
	startTinyServer,
	storedTask,
	useActionSimulator,
} from '../fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator();

describe('Call Task → Get Many', () => {
	test('Limit: one request with limit and offset 0; one output item per task, all paired with the input item', async () => {
		addTasks(sim, 12);
		const result = await runAction(sim, { resource: 'callTask', operation: 'getMany', limit: 5 });
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(
			requests.map((request) => [request.method, request.path, request.query, request.rawBody]),
		).toEqual([['GET', `${API}telephony/autoCall`, { limit: '5', offset: '0' }, '']]);
		const outputs = jsonOf(result);
		expect(outputs).toHaveLength(5);
		for (const json of outputs) {
			const stored = storedTask(sim, json.autoCallId as string);
			expect(json).toMatchObject({ id: stored.id, name: stored.name, status: 'BLANK' });
			expect(json.stats).toBeDefined();
		}
		result.items.forEach((item) => expect(item.pairedItem).toEqual({ item: 0 }));
	});

	test('filters: statuses, keyword, from/to, sort go into the query; the answer is the matching tasks', async () => {
		const statuses: TaskStatus[] = ['BLANK', 'PROCESS', 'PAUSED', 'HALTED', 'PROCESS', 'PAUSED'];
		const created = [
			'2026-01-05',
			'2026-01-10',
			'2026-01-15',
			'2026-01-20',
			'2026-02-10',
			'2026-01-12',
		];
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

	test("From / To picked without an offset are wall time in the workflow's time zone (not the n8n process')", async () => {
		const saved = getGlobalState();
		setGlobalState({ ...saved, defaultTimezone: 'Europe/Moscow' });
		try {
			const result = await runAction(sim, {
				resource: 'callTask',
				operation: 'getMany',
				filters: { from: '2026-01-10T00:00:00', to: '2026-07-10 18:30' },
			});
			expect(result.error).toBeUndefined();
			expect(apiRequests(sim)[0].query).toMatchObject({
				from: '2026-01-09T21:00:00.000Z',
				to: '2026-07-10T15:30:00.000Z',
			});
		} finally {
			setGlobalState(saved);
		}
	});

	test('a From that is not a date is refused before any request', async () => {
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'getMany',
			filters: { from: 'last tuesday' },
		});
		expect((result.error as Error).message).toMatch(/from/);
		expect(apiRequests(sim)).toEqual([]);
	});

	test('Return All pages through 2,500 tasks, at most 1,000 per page, and returns every task once', async () => {
		const tasks = addTasks(sim, 2500);
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'getMany',
			returnAll: true,
		});
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
		addTasks(sim, 1600);
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'getMany',
			limit: 1500,
		});
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.query)).toEqual([
			{ limit: '1000', offset: '0' },
			{ limit: '500', offset: '1000' },
		]);
		expect(result.items).toHaveLength(1500);
	});

	test('exactly one full page: one more request finds the end', async () => {
		addTasks(sim, 1000);
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'getMany',
			returnAll: true,
		});
		expect(result.items).toHaveLength(1000);
		expect(apiRequests(sim).map((request) => request.query.offset)).toEqual(['0', '1000']);
	});

	test('Return All against a server that ignores "offset": stops at the repeated page with an error that says why', async () => {
		const page = Array.from({ length: 1000 }, (_, index) => ({
			id: { identity: `task-${index}` },
			name: `Task ${index}`,
		}));
		// Ends after 20 pages so that a node without the guard finishes (with duplicates) instead of hanging.
		const server = await startTinyServer((_request, response) =>
			sendJson(response, 200, { items: server.requests.length > 20 ? [] : page }),
		);
		try {
			const result = await runAction(server.asSimulator(), {
				resource: 'callTask',
				operation: 'getMany',
				returnAll: true,
			});
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
			const items =
				server.requests.length > 150
					? []
					: Array.from({ length: 1000 }, (_, index) => ({ id: `t-${offset + index}` }));
			sendJson(response, 200, { items });
		});
		try {
			const result = await runAction(
				server.asSimulator(),
				{ resource: 'callTask', operation: 'getMany', returnAll: true },
				[{}],
				{
					continueOnFail: true,
				},
			);
			expect(server.requests).toHaveLength(100);
			expect(jsonOf(result)).toEqual([
				{
					error: 'Stopped listing call tasks after 100 pages (100000 tasks) [item 0]',
					description:
						'Return All reads at most 100 pages of 1,000 tasks. Narrow the list with the filters, or use Limit.',
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
		expect(error.message).toBe(
			`This operation is not available on that server (${status} for GET ${API}telephony/autoCall)`,
		);
		expect(error.description).toMatch(/Not every server of the service offers this operation/);
	});
});
