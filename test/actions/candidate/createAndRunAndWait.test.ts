/**
 * Candidate → Create and Run and Wait for Result through n8n-core's engine: the node runs until it
 * waits, the simulator plays the call and reports to the trigger, which resumes the execution with
 * the result (the set-up: useWaitingN8n, test/actions/fixtures/waiting.ts). The trigger's side of
 * the hand-over: test/trigger/handOver.test.ts.
 */
import {
	finishedWithin,
	noRedials,
	runTool,
	target,
	useWaitingN8n,
	waitParameters,
} from '../fixtures';

const { sim, startN8n, runWaiting, resumedOnce, expectNoKeyIn, markerSent } = useWaitingN8n();

test("answered on the first attempt: the execution continues once with the result, the user's Callback Data and no key", async () => {
	const { waiting, server, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	sim.setOutcome('79991110001', { attempts: ['ANSWERED'], result: { interested: 'yes' } });

	const execution = await runWaiting(waiting, [{ phone: '79991110001', crmId: 'L-1' }]);
	expect(execution.run.data.resultData.error).toBeUndefined();
	expect(['waiting', 'finished']).toContain(execution.status);
	expect(execution.waitTill!.getTime() - Date.now()).toBeGreaterThan(119 * 60_000);
	expectNoKeyIn(execution.waitingItems);
	await resumedOnce(execution);
	expect(execution.items).toHaveLength(1);
	const [item] = execution.items!;
	const callId = sim.events.find((e) => e.event === 'CALL_ENDED')!.payload.id;
	expect(item.json).toMatchObject({
		status: 'Answered',
		outcome: 'answered',
		callStatus: 'ANSWERED',
		callId,
		result: { interested: 'yes' },
		callbackData: { crmId: 'L-1' },
		endedBy: 'CALL_ENDED',
	});
	expect(typeof item.json.endedAt).toBe('string');
	expect(item.pairedItem).toEqual({ item: 0 });
	expectNoKeyIn(execution.items);
	expectNoKeyIn(server.log.map((call) => call.response));
	// The trigger workflow did not run for the waiting call (option off by default).
	expect(server.started).toHaveLength(0);
	// The person was called once.
	expect(sim.createdByPhone()['79991110001']).toBe(1);
});

test('no answer, then answered on a redial: one resume, with the answered call', async () => {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({
		webhookUrls: [target(eventUrl)],
		redialStrategyOptions: {
			...noRedials,
			redialStrategyEn: true,
			noAnswer: { redial: true, count: 2, time: 1 },
		},
	});
	sim.setOutcome('79991110002', {
		attempts: ['NOANSWER', 'ANSWERED'],
		result: { interested: 'later' },
	});

	const execution = await runWaiting(waiting, [{ phone: '79991110002', crmId: 'L-2' }]);
	await finishedWithin(execution);
	await sim.idle();

	const calls = sim.events.filter((e) => e.event === 'CALL_ENDED');
	expect(calls.map((e) => e.payload.status)).toEqual(['NOANSWER', 'ANSWERED']);
	expect(execution.resumes).toBe(1);
	expect(execution.items!.map((i) => i.json)).toEqual([
		expect.objectContaining({
			status: 'Answered',
			callStatus: 'ANSWERED',
			callId: calls[1].payload.id,
			result: { interested: 'later' },
			callbackData: { crmId: 'L-2' },
		}),
	]);
});

test("never reached: the wait ends when the person is done (CANDIDATE_CHANGED), with the last call's status in words", async () => {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	sim.setOutcome('79991110003', { attempts: ['BUSY'] });

	const execution = await runWaiting(waiting, [{ phone: '79991110003', crmId: 'L-3' }]);
	await resumedOnce(execution);
	const lastCall = sim.events.find((e) => e.event === 'CALL_ENDED')!.payload;
	expect(execution.items!.map((i) => i.json)).toEqual([
		expect.objectContaining({
			status: 'Not reached (last call: Busy)',
			outcome: 'notReached',
			callStatus: 'BUSY',
			callId: lastCall.id,
			callbackData: { crmId: 'L-3' },
			endedBy: 'CANDIDATE_CHANGED',
		}),
	]);
});

/** Runs two people with Retry On Fail; the second person's first request is refused (nothing created): the node fails, n8n tries again. */
function runRefusedOnce(
	waiting: Parameters<typeof runWaiting>[0],
	leads: Array<{ phone: string; crmId: string }>,
) {
	sim.injectFault({
		path: '/cis/api/v1/telephony/autoCallCandidate/single',
		bodyIncludes: leads[1].phone,
		status: 400,
		body: { error: 'busy, try later' },
		times: 1,
	});
	return runWaiting(waiting, leads, waitParameters, {
		retryOnFail: { maxTries: 2, waitBetweenTries: 10 },
	});
}

test('Retry On Fail: the second try does not call the first person again, and the wait gets both results', async () => {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	sim.setOutcome('79991110016', { attempts: ['ANSWERED'], result: { first: true } });
	sim.setOutcome('79991110017', { attempts: ['ANSWERED'], result: { second: true } });
	const execution = await runRefusedOnce(waiting, [
		{ phone: '79991110016', crmId: 'T-1' },
		{ phone: '79991110017', crmId: 'T-2' },
	]);
	expect(execution.run.data.resultData.error).toBeUndefined();
	await finishedWithin(execution);
	await sim.idle();
	expect(sim.createdByPhone()['79991110016']).toBe(1);
	expect(sim.createdByPhone()['79991110017']).toBe(1);
	expect(execution.resumes).toBe(1);
	expect(execution.items!.map((i) => [i.json.status, i.json.result, i.json.callbackData])).toEqual([
		['Answered', { first: true }, { crmId: 'T-1' }],
		['Answered', { second: true }, { crmId: 'T-2' }],
	]);
});

test("Retry On Fail: the time limit the markers carry (which the trigger reads) is the wait's own, for the candidates of every try", async () => {
	const { waiting } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
	const execution = await runRefusedOnce(waiting, [
		{ phone: '79991110018', crmId: 'U-1' },
		{ phone: '79991110019', crmId: 'U-2' },
	]);
	expect(execution.status).toBe('waiting');
	expect(sim.createdByPhone()['79991110018']).toBe(1);
	const limits = ['79991110018', '79991110019'].map(
		(phone) => (markerSent(phone).until as number) * 1000,
	);
	expect(limits).toEqual([execution.waitTill!.getTime(), execution.waitTill!.getTime()]);
});

test('two leads waiting at once each get their own result', async () => {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	sim.setOutcome('79991110004', { attempts: ['ANSWERED'], result: { lead: 'A' } });
	sim.setOutcome('79991110005', { attempts: ['NOANSWER'] });

	const [a, b] = await Promise.all([
		runWaiting(waiting, [{ phone: '79991110004', crmId: 'A' }]),
		runWaiting(waiting, [{ phone: '79991110005', crmId: 'B' }]),
	]);
	expect(a.id).not.toBe(b.id);
	await Promise.all([finishedWithin(a), finishedWithin(b)]);
	await sim.idle();
	expect([a.resumes, b.resumes]).toEqual([1, 1]);
	expect(a.items!.map((i) => i.json)).toEqual([
		expect.objectContaining({
			status: 'Answered',
			result: { lead: 'A' },
			callbackData: { crmId: 'A' },
		}),
	]);
	expect(b.items!.map((i) => i.json)).toEqual([
		expect.objectContaining({
			status: 'Not reached (last call: No answer)',
			callbackData: { crmId: 'B' },
		}),
	]);
});

test('several items in one run: the execution continues once, when every candidate has a result', async () => {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	sim.setOutcome('79991110006', { attempts: ['ANSWERED'], result: { n: 1 } });
	sim.setOutcome('79991110007', { attempts: ['REJECTED'] });

	const execution = await runWaiting(waiting, [
		{ phone: '79991110006', crmId: 'M-1' },
		{ phone: '79991110007', crmId: 'M-2' },
	]);
	await resumedOnce(execution);
	expect(execution.items!.map((i) => [i.json.status, i.json.callbackData, i.pairedItem])).toEqual([
		['Answered', { crmId: 'M-1' }, { item: 0 }],
		['Not reached (last call: Rejected)', { crmId: 'M-2' }, { item: 1 }],
	]);
});

test('Dry Run sends nothing and does not wait', async () => {
	const { waiting } = await startN8n();
	const execution = await runWaiting(waiting, [{ phone: '79991110011', crmId: 'D-1' }], {
		...waitParameters,
		options: { dryRun: true },
	});
	expect(execution.status).toBe('finished');
	expect(sim.requests.filter((r) => r.path.startsWith('/cis/'))).toHaveLength(0);
	expectNoKeyIn(execution.waitingItems);
});

test('as an AI Agent v3 tool it calls the person and the execution waits (the model reads the result after the resume: test/e2e/agentWait.e2e.js); an agent that cannot pause a tool dials no one', async () => {
	const parameters = {
		...waitParameters,
		phone: "={{ $fromAI('phone', 'phone number', 'string') }}",
	};
	const sent = (phone: string) =>
		sim.requests.filter(
			(r) => r.path.startsWith('/cis/') && JSON.stringify(r.body ?? {}).includes(phone),
		);
	const waited = await runTool(sim, parameters, [{ phone: '79991110012' }]);
	expect(waited.run.waitTill).toBeInstanceOf(Date);
	expect(sent('79991110012')).toHaveLength(1);
	const refused = await runTool(sim, parameters, [{ phone: '79991110013' }], { via: 'supplyData' });
	expect(JSON.stringify(refused.observations)).toMatch(
		/Not sent: this AI Agent cannot wait for a tool/,
	);
	expect(sent('79991110013')).toHaveLength(0);
});
