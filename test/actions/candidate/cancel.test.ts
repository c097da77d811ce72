/**
 * Candidate → Cancel (nodes/CisAutoCall/actions/candidate/cancel.operation.ts): campaign control
 * beyond the spec. Through n8n-core's engine with real HTTP to the simulator.
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
	useActionSimulator,
} from '../fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator();

describe('Candidate → Cancel', () => {
	test('POST telephony/autoCallCandidate/cancel?autoCallId=&phone=: the candidate is cancelled', async () => {
		const [stored] = addTasks(sim, 1);
		await runAction(sim, {
			resource: 'candidate',
			operation: 'addToTask',
			autoCallId: byId(stored.id),
			phone: '79990000501',
		});
		sim.requests.length = 0;
		const result = await runAction(
			sim,
			candidate('cancel', { autoCallId: fromList(stored.id), phone: '79990000501' }),
		);
		expect(result.error).toBeUndefined();
		const [request] = apiRequests(sim);
		expect([request.method, request.path, request.query, request.rawBody]).toEqual([
			'POST',
			`${API}telephony/autoCallCandidate/cancel`,
			{ autoCallId: stored.id, phone: '79990000501' },
			'',
		]);
		expect(candidatesWithPhone(sim, '79990000501')[0].status).toBe('CANCELLED');
		expect(jsonOf(result)[0]).toMatchObject({
			success: true,
			autoCallId: stored.id,
			phone: '79990000501',
		});
	});

	test('a number that is not in the task: the error names the number and the task', async () => {
		const [stored] = addTasks(sim, 1);
		const result = await runAction(
			sim,
			candidate('cancel', { autoCallId: byId(stored.id), phone: '79990000599' }),
		);
		const error = result.error as NodeApiError;
		expect(error.httpCode).toBe('404');
		expect(error.description).toContain('79990000599');
		expect(error.description).toContain(stored.id);
	});

	test('405: "not available on that server"', async () => {
		const [stored] = addTasks(sim, 1);
		sim.injectFault({ path: `${API}telephony/autoCallCandidate/cancel`, status: 405 });
		const result = await runAction(sim, {
			resource: 'candidate',
			operation: 'cancel',
			autoCallId: byId(stored.id),
			phone: '79990000501',
		});
		expect((result.error as Error).message).toMatch(
			/^This operation is not available on that server \(405/,
		);
	});
});
