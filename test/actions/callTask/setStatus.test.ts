/**
 * Call Task → Start / Pause / Stop (Set Status)
 * (nodes/CisAutoCall/actions/callTask/setStatus.operation.ts): campaign control beyond the spec.
 * Through n8n-core's engine with real HTTP to the simulator.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import type { TaskStatus } from '../../../simulator';
import {
	addTasks,
	API,
	apiRequests,
	byId,
	createTaskInState,
	jsonOf,
	runAction,
	storedTask,
	useActionSimulator,
} from '../fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator();

describe('Call Task → Start / Pause / Stop', () => {
	const setStatus = (
		operation: string,
		id: string,
		extra: INodeParameters = {},
	): INodeParameters => ({
		resource: 'callTask',
		operation,
		autoCallId: byId(id),
		...extra,
	});

	test('BLANK → Start → PROCESS → Pause → PAUSED → Start → PROCESS → Stop → HALTED, each a POST without body', async () => {
		const [stored] = addTasks(sim, 1);
		const steps: Array<[string, string, TaskStatus]> = [
			['start', 'play', 'PROCESS'],
			['pause', 'pause', 'PAUSED'],
			['start', 'play', 'PROCESS'],
			['stop', 'halted', 'HALTED'],
		];
		expect(storedTask(sim, stored.id).status).toBe('BLANK');
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
			expect(storedTask(sim, stored.id).status).toBe(status);
			const [json] = jsonOf(result);
			expect(json).toMatchObject({ success: true, autoCallId: stored.id, action });
			expect((json.response as IDataObject).status).toBe(status);
		}
	});

	test("a halted task cannot be started again: the service's refusal is the item's error", async () => {
		const stored = createTaskInState(sim, { name: 'Done' }, { status: 'HALTED' });
		const result = await runAction(sim, setStatus('start', stored.id), [{}], {
			continueOnFail: true,
		});
		const [json] = jsonOf(result);
		expect(json.httpCode).toBe('422');
		expect(json.error).toMatch(/halted/);
		expect(storedTask(sim, stored.id).status).toBe('HALTED');
	});

	test('one task per input item, picked from the list by expression', async () => {
		const tasks = addTasks(sim, 3);
		const result = await runAction(
			sim,
			{ resource: 'callTask', operation: 'start', autoCallId: byId('={{ $json.taskId }}') },
			tasks.map((t) => ({ taskId: t.id })),
		);
		expect(result.error).toBeUndefined();
		expect(tasks.map((t) => storedTask(sim, t.id).status)).toEqual([
			'PROCESS',
			'PROCESS',
			'PROCESS',
		]);
		expect(jsonOf(result).map((json) => json.autoCallId)).toEqual(tasks.map((t) => t.id));
	});

	test('an unknown task id: the error names it', async () => {
		const result = await runAction(sim, setStatus('pause', 'ghost-task'));
		const error = result.error as NodeApiError;
		expect(error.httpCode).toBe('404');
		expect(error.description).toContain('"ghost-task"');
	});

	test.each(['start', 'pause', 'stop'])(
		'%s answered 405: "not available on that server"',
		async (operation) => {
			const [stored] = addTasks(sim, 1);
			sim.injectFault({ path: new RegExp(`^${API}telephony/autoCall/${stored.id}/`), status: 405 });
			const result = await runAction(sim, setStatus(operation, stored.id));
			expect((result.error as Error).message).toMatch(
				/^This operation is not available on that server \(405 for POST /,
			);
			expect(storedTask(sim, stored.id).status).toBe('BLANK');
		},
	);

	test('a 503 is retried: status moves are safe to repeat', async () => {
		const [stored] = addTasks(sim, 1);
		sim.injectFault({
			path: `${API}telephony/autoCall/${stored.id}/play`,
			status: 503,
			afterHandling: true,
		});
		const result = await runAction(
			sim,
			setStatus('start', stored.id, { options: { maxRetries: 1 } }),
		);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.status)).toEqual([503, 200]);
		expect(storedTask(sim, stored.id).status).toBe('PROCESS');
	});
});
