/**
 * Max Requests per Second: never more requests in any second than set, retries included. Through
 * n8n-core's engine with real HTTP to the simulator, which refuses what goes beyond its own limit.
 */
import {
	apiRequests,
	createAndRunByExpression,
	depersonalizeCall,
	expectInOrder,
	maxInWindow,
	numberedPhones,
	runAction,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator();
const { phoneItems } = numberedPhones('7999');
const createAndRun = (options = {}) => createAndRunByExpression({ options });

describe('Max Requests per Second', () => {
	test("30 items at 10/s take about 3 s, and the simulator's limit of 10 per second refuses none", async () => {
		sim.setRateLimit({ perSecond: 10 });
		const started = Date.now();
		const result = await runAction(
			sim,
			createAndRun({ maxRequestsPerSecond: 10, concurrency: 10, maxRetries: 0 }),
			phoneItems(30),
		);
		const elapsed = Date.now() - started;
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests.filter((request) => request.status !== 200)).toEqual([]);
		expect(elapsed).toBeGreaterThanOrEqual(2800);
		expect(maxInWindow(requests, 1000)).toBeLessThanOrEqual(10);
		expectInOrder(result, 30);
	});

	test('the limit is shared by all requests of the run, retries included', async () => {
		// The first attempt for each of 5 calls is answered 503 and retried (a safe operation).
		const calls = Array.from({ length: 10 }, () => sim.addCall());
		for (const call of calls.slice(0, 5))
			sim.injectFault({ path: `/cis/api/v1/calls/${call.id}/depersonalization`, status: 503 });
		const started = Date.now();
		const result = await runAction(
			sim,
			depersonalizeCall({ maxRequestsPerSecond: 5, concurrency: 5, maxRetries: 2 }),
			calls.map((call) => ({ callId: call.id })),
		);
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests).toHaveLength(15);
		expect(maxInWindow(requests, 1000)).toBeLessThanOrEqual(5);
		// 15 request starts at 5 per second: 14 intervals of 200 ms.
		expect(Date.now() - started).toBeGreaterThanOrEqual(2700);
	});
});
