/**
 * The call-task list search of the task resource locator
 * (nodes/CisAutoCall/methods/listSearch.ts), through n8n-core's LoadOptionsContext with real HTTP
 * to the simulator.
 */
import {
	addTasks,
	API,
	apiRequests,
	createTaskInState,
	runListSearch,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator();

describe("task list search (searchCallTasks), through n8n-core's LoadOptionsContext", () => {
	test('by keyword: newest updated first, "name (status)" with the id as value', async () => {
		createTaskInState(
			sim,
			{ name: 'Leads March' },
			{ status: 'PROCESS', updatedAt: '2026-03-01T00:00:00.000Z' },
		);
		createTaskInState(
			sim,
			{ name: 'Leads April' },
			{ status: 'PAUSED', updatedAt: '2026-04-01T00:00:00.000Z' },
		);
		createTaskInState(sim, { name: 'Debtors' }, { updatedAt: '2026-05-01T00:00:00.000Z' });
		const result = await runListSearch(sim, { filter: 'leads' });
		const [request] = apiRequests(sim);
		expect([request.method, request.path, request.query]).toEqual([
			'GET',
			`${API}telephony/autoCall`,
			{ limit: '100', offset: '0', sort: '-updatedAt', keyword: 'leads' },
		]);
		const [april, march] = [...sim.state.tasks.values()]
			.filter((t) => t.name.startsWith('Leads'))
			.reverse();
		expect(result.results).toEqual([
			{ name: 'Leads April (PAUSED)', value: april.id },
			{ name: 'Leads March (PROCESS)', value: march.id },
		]);
		expect(result.paginationToken).toBeUndefined();
	});

	test('pagination token: 250 tasks in pages of 100', async () => {
		const tasks = addTasks(sim, 250);
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
		const values = [...first.results, ...second.results, ...third.results].map(
			(entry) => entry.value,
		);
		expect(new Set(values).size).toBe(250);
		expect([...values].sort()).toEqual(tasks.map((t) => t.id).sort());
	});

	test('with the login credential: logs in, then lists', async () => {
		addTasks(sim, 2);
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
