/**
 * Timeout (Seconds): a slow answer fails with a timeout message, and a safe request that timed out
 * is sent again. Through n8n-core's engine with real HTTP to the simulator, which answers late.
 */
import { NodeApiError } from 'n8n-workflow';

import {
	apiRequests,
	depersonalizeCall,
	jsonOf,
	runAction,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator();

describe('timeout (seconds)', () => {
	test('a slow answer fails with a timeout message', async () => {
		const call = sim.addCall();
		sim.injectFault({ path: `/cis/api/v1/calls/${call.id}/depersonalization`, delayMs: 1500 });
		const started = Date.now();
		const result = await runAction(sim, depersonalizeCall({ timeout: 1, maxRetries: 0 }), [
			{ callId: call.id },
		]);
		const elapsed = Date.now() - started;
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/timed out/);
		expect(error.message).toMatch(/ETIMEDOUT/);
		expect(elapsed).toBeGreaterThanOrEqual(950);
		// No retry (Max Retries 0): the slow request was the only one.
		expect(apiRequests(sim)).toHaveLength(1);
	});

	test('for a safe operation the timed-out request is retried', async () => {
		const call = sim.addCall();
		sim.injectFault({ path: `/cis/api/v1/calls/${call.id}/depersonalization`, delayMs: 1500 });
		const result = await runAction(sim, depersonalizeCall({ timeout: 1, maxRetries: 1 }), [
			{ callId: call.id },
		]);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim)).toHaveLength(2);
		expect(jsonOf(result)[0]).toMatchObject({ success: true, callId: call.id });
	});
});
