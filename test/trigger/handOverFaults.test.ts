/**
 * A hand-over counts only when n8n answers it: n8n's own answer to the resume (the waiting node's,
 * or n8n's "does not exist" / "has finished"), never a webhook process that is starting up, a route
 * that is not there yet, a 5xx or no answer. An execution that no longer waits for the
 * result: the result starts the trigger's workflow, marked, as under SSRF protection. Through
 * n8n-core's engine and the simulator over HTTP (the set-up: useWaitingN8n).
 */
import { WAIT_MARKER_FIELD } from '../../nodes/shared/waitForResult';
import { finishedWithin, noRedials, target, useWaitingN8n } from '../actions/fixtures';

const { sim, startN8n, runWaiting, markerSent, post } = useWaitingN8n();

/** What n8n 2.41.1 answers while it starts (measured): 200 with this text until its database is migrated, then Express's 404 until its routes exist. */
const STARTING_UP = { status: 200, text: 'n8n is starting up. Please wait' };
const NO_ROUTE_YET = (path: string) => ({
	status: 404,
	text: `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot POST ${path}</pre>\n</body>\n</html>\n`,
});

describe('a webhook process that is starting up answers the hand-over: the service gets 503, and its re-send hands the result over', () => {
	for (const checksToken of [true, false]) {
		test(`${checksToken ? 'n8n 2.x' : 'n8n 1.x'}`, async () => {
			const { waiting, eventUrl } = await startN8n({ checksToken });
			sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
			sim.setOutcome('79991110301', { attempts: ['ANSWERED'], result: { up: true } });
			waiting.notReadyAnswers = [STARTING_UP, NO_ROUTE_YET('/webhook-waiting/1/x')];

			const execution = await runWaiting(waiting, [{ phone: '79991110301', crmId: 'U-1' }]);
			await finishedWithin(execution);
			await sim.idle();
			expect(waiting.notReadyAnswers).toHaveLength(0);
			const answers = sim.webhookDeliveries.map((d) => `${d.event} ${d.status}`);
			// Each not-ready answer became a 503 to the service; every event got its 200 in the end.
			expect(answers.filter((a) => a.endsWith(' 503'))).toHaveLength(2);
			for (const event of ['CALL_ENDED', 'CANDIDATE_CHANGED'])
				expect(answers.filter((a) => a === `${event} 200`)).toHaveLength(1);
			expect(execution.resumes).toBe(1);
			expect(
				execution.items!.map((i) => [i.json.status, i.json.result, i.json.callbackData]),
			).toEqual([['Answered', { up: true }, { crmId: 'U-1' }]]);
			expect(sim.createdByPhone()['79991110301']).toBe(1);
		});
	}
});

test('n8n\'s own "does not exist": the service gets 200 and the result starts the trigger\'s workflow, marked notHandedOver; a re-send starts nothing more', async () => {
	const { waiting, server, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
	const execution = await runWaiting(waiting, [{ phone: '79991110302', crmId: 'G-1' }]);
	// The event of a wait whose execution n8n no longer has (deleted, or pruned).
	const marker = { ...markerSent('79991110302'), execution: '999999' };
	const callEnded = {
		event: 'CALL_ENDED',
		id: 'call-g1',
		taskId: 't-g',
		status: 'ANSWERED',
		result: { gone: true },
		callbackData: { crmId: 'G-1', [WAIT_MARKER_FIELD]: marker },
	};

	const answer = await post(eventUrl, callEnded);
	expect(answer.status).toBe(200);
	expect(JSON.parse(answer.body)).toMatchObject({ received: true, handedOver: false });
	expect(server.started).toHaveLength(1);
	const output = server.started[0][0][0].json;
	expect(output).toMatchObject({
		event: 'CALL_ENDED',
		callbackData: { crmId: 'G-1' },
		result: { gone: true },
	});
	expect(output.notHandedOver).toEqual(expect.stringContaining('999999'));
	expect(JSON.stringify(output)).not.toContain(WAIT_MARKER_FIELD);
	expect((await post(eventUrl, callEnded)).status).toBe(200);
	expect(server.started).toHaveLength(1);
	expect(execution.status).toBe('waiting');
});

test('a late result, after the wait\'s time limit (n8n: "has finished already"): 200, and it starts the trigger\'s workflow, marked', async () => {
	const { waiting, server, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
	const execution = await runWaiting(waiting, [{ phone: '79991110303', crmId: 'L-1' }]);
	const marker = markerSent('79991110303');
	expect(typeof marker.until).toBe('number');
	// n8n went on at the time limit: the execution has finished, the marker's time limit is past.
	execution.status = 'finished';
	const late = { ...marker, until: Math.floor(Date.now() / 1000) - 60 };
	const callEnded = {
		event: 'CALL_ENDED',
		id: 'call-l1',
		taskId: 't-l',
		status: 'ANSWERED',
		result: { late: true },
		callbackData: { crmId: 'L-1', [WAIT_MARKER_FIELD]: late },
	};

	const answer = await post(eventUrl, callEnded);
	expect(answer.status).toBe(200);
	expect(server.started).toHaveLength(1);
	expect(server.started[0][0][0].json).toMatchObject({
		event: 'CALL_ENDED',
		result: { late: true },
		notHandedOver: expect.stringContaining(execution.id),
	});
});
