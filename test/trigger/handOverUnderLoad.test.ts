/**
 * The trigger's hand-overs when n8n is slow to answer them (queue mode under load: docs/performance.md).
 * A re-send that arrives while its event is still being handed over is never answered 200 before
 * n8n's own answer is known, and a process sends at most 4 hand-overs to n8n at once. Through
 * n8n-core's engine and the simulator over HTTP (the set-up: useWaitingN8n), n8n's waiting address
 * held until released.
 */
import { WAIT_MARKER_FIELD } from '../../nodes/shared/waitForResult';
import { finishedWithin, noRedials, useWaitingN8n } from '../actions/fixtures';

const { sim, startN8n, runWaiting, markerSent, post } = useWaitingN8n();

/** The answered Call Ended of the candidate with that phone, as the service sends it. */
function answeredCallOf(phone: string, crmId: string): Record<string, unknown> {
	return {
		event: 'CALL_ENDED',
		id: `call-${phone}`,
		taskId: `task-${phone}`,
		status: 'ANSWERED',
		result: { crmId },
		callbackData: { crmId, [WAIT_MARKER_FIELD]: markerSent(phone) },
	};
}

/** Resolves once n8n's waiting address holds `count` requests. */
async function untilHeld(requests: { now: number }, count: number): Promise<void> {
	while (requests.now < count) await new Promise((resolve) => setImmediate(resolve));
}

test('a re-send that arrives while its event is being handed over gets 503, not 200: n8n may still answer "later"', async () => {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
	const execution = await runWaiting(waiting, [{ phone: '79991110401', crmId: 'S-1' }]);
	const callEnded = answeredCallOf('79991110401', 'S-1');

	// n8n is slow: the service's first attempt times out while the hand-over is under way.
	const release = waiting.holdRequests();
	waiting.notReadyAnswers = [{ status: 503, text: 'Database is not ready!' }];
	const first = post(eventUrl, callEnded);
	first.catch(() => undefined); // awaited below; a failed expectation before must not crash the run
	await untilHeld(waiting.requestsInFlight, 1);
	const resent = await post(eventUrl, callEnded);
	expect(resent.status).toBe(503);
	expect(JSON.parse(resent.body)).toMatchObject({ received: false });

	// n8n's answer to the first hand-over: not ready. Only the service's next re-send can bring the result.
	release();
	expect((await first).status).toBe(503);
	expect(execution.status).toBe('waiting');
	const again = await post(eventUrl, callEnded);
	expect(again.status).toBe(200);
	expect(JSON.parse(again.body)).toMatchObject({ received: true, handedOver: true });
	await finishedWithin(execution);
	expect(execution.resumes).toBe(1);
	expect(execution.items!.map((item) => [item.json.status, item.json.result])).toEqual([
		['Answered', { crmId: 'S-1' }],
	]);
	// Handed over for good: a re-send now is a repeat, answered 200.
	expect((await post(eventUrl, callEnded)).status).toBe(200);
	expect(execution.resumes).toBe(1);
});

test('at most 4 hand-overs go to n8n at once; the others wait their turn and are handed over too', async () => {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
	const phones = Array.from({ length: 7 }, (_, i) => `7999111050${i}`);
	const executions = [];
	for (const phone of phones)
		executions.push(await runWaiting(waiting, [{ phone, crmId: `C-${phone}` }]));

	const release = waiting.holdRequests();
	const answers = phones.map((phone) => post(eventUrl, answeredCallOf(phone, `C-${phone}`)));
	for (const answer of answers) answer.catch(() => undefined); // awaited below
	await untilHeld(waiting.requestsInFlight, 4);
	// The trigger got all 7 deliveries; n8n holds 4 hand-overs and no more arrive.
	for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
	expect(waiting.requestsInFlight.now).toBe(4);
	release();
	expect((await Promise.all(answers)).map((answer) => answer.status)).toEqual(
		phones.map(() => 200),
	);
	for (const execution of executions) await finishedWithin(execution);
	expect(executions.map((execution) => execution.items![0].json.result)).toEqual(
		phones.map((phone) => ({ crmId: `C-${phone}` })),
	);
	expect(waiting.requestsInFlight.most).toBe(4);
});
