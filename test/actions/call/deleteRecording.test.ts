/**
 * Call → Delete Recording (nodes/CisAutoCall/actions/call/deleteRecording.operation.ts), a privacy
 * operation. Through n8n-core's engine with real HTTP to the simulator (test/actions/fixtures).
 */
import { apiRequests, jsonOf, runAction, useActionSimulator } from '../fixtures';

const sim = useActionSimulator();

describe('Call → Delete Recording (spec 4.2)', () => {
	test('Call → Delete Recording', async () => {
		const call = sim.addCall();
		const result = await runAction(sim, {
			resource: 'call',
			operation: 'deleteRecording',
			callId: call.id,
		});
		expect(result.error).toBeUndefined();
		const [request] = apiRequests(sim);
		expect([request.method, request.path, request.rawBody]).toEqual([
			'DELETE',
			`/cis/api/v1/calls/${call.id}/record`,
			'',
		]);
		expect(jsonOf(result)).toEqual([{ success: true, deleted: true, callId: call.id }]);
		expect(sim.state.calls.get(call.id)?.record).toBeNull();
	});
});
