/**
 * Call Task → Get (nodes/CisAutoCall/actions/callTask/get.operation.ts): campaign control beyond
 * the spec. Through n8n-core's engine with real HTTP to the simulator.
 */
import { NodeApiError } from 'n8n-workflow';
import {
	addTasks,
	API,
	apiRequests,
	byId,
	fromList,
	jsonOf,
	runAction,
	useActionSimulator,
} from '../fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator();

describe('Call Task → Get', () => {
	test.each([
		['By ID', byId],
		['From List', fromList],
	])(
		'task picked %s: GET telephony/autoCall/{id}, the task with its statistics',
		async (_mode, locator) => {
			const [stored] = addTasks(sim, 1);
			const result = await runAction(sim, {
				resource: 'callTask',
				operation: 'get',
				autoCallId: locator(stored.id),
			});
			expect(result.error).toBeUndefined();
			const [request] = apiRequests(sim);
			expect([request.method, request.path, request.query, request.rawBody]).toEqual([
				'GET',
				`${API}telephony/autoCall/${stored.id}`,
				{},
				'',
			]);
			const [json] = jsonOf(result);
			expect(json).toMatchObject({
				autoCallId: stored.id,
				id: stored.id,
				name: stored.name,
				status: 'BLANK',
			});
			expect(json.stats).toMatchObject({ candidates: 0, calls: 0 });
		},
	);

	test('an unknown id: the error names the id', async () => {
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'get',
			autoCallId: byId('no-such-task'),
		});
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.httpCode).toBe('404');
		expect(error.message).toMatch(/404.*no-such-task.*Call task not found/);
		expect(error.description).toContain('No call task with the ID "no-such-task" exists');
	});

	test('405: "not available on that server"', async () => {
		const [stored] = addTasks(sim, 1);
		sim.injectFault({ path: `${API}telephony/autoCall/${stored.id}`, status: 405 });
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'get',
			autoCallId: byId(stored.id),
		});
		expect((result.error as Error).message).toMatch(
			/^This operation is not available on that server \(405/,
		);
	});

	test('an empty task id is refused before any request', async () => {
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'get',
			autoCallId: byId(''),
		});
		expect(result.error).toBeDefined();
		expect(apiRequests(sim)).toEqual([]);
	});
});
