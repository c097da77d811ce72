/**
 * Call → Depersonalize (nodes/CisAutoCall/actions/call/depersonalize.operation.ts), a privacy
 * operation. Through n8n-core's engine with real HTTP to the simulator (test/actions/fixtures).
 */
import { apiRequests, jsonOf, runAction, useActionSimulator } from '../fixtures';

const sim = useActionSimulator();

describe('Call → Depersonalize (spec 4.1)', () => {
	test('Call → Depersonalize keeps or deletes the recording', async () => {
		const kept = sim.addCall();
		const deleted = sim.addCall();
		const result = await runAction(
			sim,
			{
				resource: 'call',
				operation: 'depersonalize',
				callId: '={{ $json.callId }}',
				skipDeleteRecord: '={{ $json.keep }}',
			},
			[
				{ callId: kept.id, keep: true },
				{ callId: deleted.id, keep: false },
			],
		);
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(
			requests.map((request) => [
				request.method,
				request.path,
				request.body,
				request.rawBody !== '' ? 'has body' : '',
			]),
		).toEqual(
			expect.arrayContaining([
				[
					'POST',
					`/cis/api/v1/calls/${kept.id}/depersonalization`,
					{ skipDeleteRecord: true },
					'has body',
				],
				[
					'POST',
					`/cis/api/v1/calls/${deleted.id}/depersonalization`,
					{ skipDeleteRecord: false },
					'has body',
				],
			]),
		);
		expect(jsonOf(result)).toEqual([
			{ success: true, callId: kept.id, recordingKept: true },
			{ success: true, callId: deleted.id, recordingKept: false },
		]);
		expect(sim.state.calls.get(kept.id)?.depersonalized).toBe(true);
		expect(sim.state.calls.get(kept.id)?.record).not.toBeNull();
		expect(sim.state.calls.get(deleted.id)?.record).toBeNull();
	});
});
