/**
 * The trigger's hand-over to a waiting execution (Create and Run and Wait for Result): it resumes
 * at n8n's waiting address, once, only with the package's key, whatever the order and timing of
 * the events, and outputs the waiting calls' events only when asked. Through n8n-core's engine
 * (the set-up: useWaitingN8n, test/actions/fixtures/waiting.ts). Queue mode (two webhook
 * processes): handOverQueueMode.test.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import * as waitForResult from '../../nodes/shared/waitForResult';
import { WAIT_MARKER_FIELD } from '../../nodes/shared/waitForResult';
import { finishedWithin, noRedials, target, useWaitingN8n } from '../actions/fixtures';

const { sim, startN8n, runWaiting, resumedOnce, markerSent, expectNoKeyIn, post } = useWaitingN8n();

test('an n8n whose waiting webhooks have another path (N8N_ENDPOINT_WEBHOOK_WAIT): the trigger resumes at that path, on its own origin', async () => {
	const { waiting, eventUrl } = await startN8n({ waitingPath: 'hooks/resume' });
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	sim.setOutcome('79991110016', { attempts: ['ANSWERED'] });

	const execution = await runWaiting(waiting, [{ phone: '79991110016', crmId: 'P-1' }]);
	expect(markerSent('79991110016').path).toBe('/hooks/resume');
	await finishedWithin(execution);
	expect(execution.resumes).toBe(1);
	expect(execution.items!.map((i) => i.json.status)).toEqual(['Answered']);
});

test('an event that arrives before the execution waits is answered 503, and its re-send continues it', async () => {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	sim.setOutcome('79991110013', { attempts: ['ANSWERED'], result: { early: true } });
	sim.setOutcome('79991110014', { attempts: ['ANSWERED'], result: { late: true } });
	// The second person's request is answered late: the first call is over while the node still runs.
	sim.injectFault({
		path: '/cis/api/v1/telephony/autoCallCandidate/single',
		bodyIncludes: '79991110014',
		delayMs: 400,
	});

	const execution = await runWaiting(waiting, [
		{ phone: '79991110013', crmId: 'E-1' },
		{ phone: '79991110014', crmId: 'E-2' },
	]);
	await finishedWithin(execution);
	await sim.idle();
	const early = sim.webhookDeliveries.filter((d) => d.event === 'CALL_ENDED' && d.status === 503);
	expect(early.length).toBeGreaterThan(0);
	expect(execution.resumes).toBe(1);
	expect(execution.items!.map((i) => i.json)).toEqual([
		expect.objectContaining({
			status: 'Answered',
			result: { early: true },
			callbackData: { crmId: 'E-1' },
		}),
		expect.objectContaining({
			status: 'Answered',
			result: { late: true },
			callbackData: { crmId: 'E-2' },
		}),
	]);
	expect(sim.createdByPhone()['79991110013']).toBe(1);
	expect(sim.createdByPhone()['79991110014']).toBe(1);
});

describe("only the package's key resumes (n8n 2.x with its token, n8n 1.x that checks nothing)", () => {
	for (const checksToken of [true, false]) {
		test(`forged events and resumes without the key continue nothing (${checksToken ? 'n8n 2.x' : 'n8n 1.x'})`, async () => {
			const { waiting, server, eventUrl } = await startN8n({ checksToken });
			// The template reports nowhere: the test plays the events itself.
			sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
			const execution = await runWaiting(waiting, [{ phone: '79991110008', crmId: 'F-1' }]);
			expect(execution.status).toBe('waiting');
			const marker = markerSent('79991110008');
			const resumeUrl = new URL(
				`${server.baseUrl}-waiting/${execution.id}/${marker.node as string}`,
			);
			if (marker.token) resumeUrl.searchParams.set('signature', marker.token as string);

			// A POST straight to the waiting address, with n8n's token but without the key.
			const direct = await post(resumeUrl.toString(), {
				cisAutoCallResume: { results: { 0: { outcome: 'answered' } } },
			});
			expect(direct.status).toBe(401);
			// With a wrong key.
			const wrongKey = await post(resumeUrl.toString(), {
				cisAutoCallResume: { key: 'a'.repeat(64), results: { 0: { outcome: 'answered' } } },
			});
			expect(wrongKey.status).toBe(401);

			// A catcher: a forged event's own address must never be called.
			let caught = 0;
			const catcher: Server = createServer((_req, res) => {
				caught++;
				res.end('{}');
			});
			await new Promise<void>((resolve) => catcher.listen(0, '127.0.0.1', resolve));
			const elsewhere = `http://127.0.0.1:${(catcher.address() as AddressInfo).port}/webhook-waiting/${execution.id}/${marker.node as string}`;
			try {
				// An event that passed the trigger's checks but carries another key and an address of its choice.
				const forged = {
					event: 'CALL_ENDED',
					id: 'forged-call',
					status: 'ANSWERED',
					resumeUrl: elsewhere,
					callbackData: {
						crmId: 'F-1',
						[WAIT_MARKER_FIELD]: {
							...marker,
							key: 'b'.repeat(64),
							url: elsewhere,
							resumeUrl: elsewhere,
						},
					},
				};
				expect((await post(eventUrl, forged)).status).toBe(200);
				// An event without the trigger's secret is refused before anything else.
				expect(
					(await post(server.url, { ...forged, callbackData: { [WAIT_MARKER_FIELD]: marker } }))
						.status,
				).toBe(401);
			} finally {
				await new Promise<void>((resolve) => catcher.close(() => resolve()));
			}
			expect(caught).toBe(0);
			expect(execution.status).toBe('waiting');
			expect(execution.resumes).toBe(0);
			expect(execution.requests.map((r) => r.status)).toEqual([401, 401, 401]);
		});
	}
});

test('the answered CALL_ENDED and the CANDIDATE_CHANGED delivered at the same moment, and again, resume once (n8n 1.x, which does not guard)', async () => {
	// A slow n8n: the hand-overs of the events overlap.
	const { waiting, server, eventUrl } = await startN8n({ checksToken: false, loadDelayMs: 300 });
	sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
	const execution = await runWaiting(waiting, [{ phone: '79991110009', crmId: 'S-1' }]);
	expect(execution.status).toBe('waiting');
	const marker = markerSent('79991110009');
	const callbackData = { crmId: 'S-1', [WAIT_MARKER_FIELD]: marker };
	const callEnded = {
		event: 'CALL_ENDED',
		id: 'call-s1',
		taskId: 't-1',
		status: 'ANSWERED',
		result: { ok: true },
		callbackData,
	};
	const candidateChanged = {
		event: 'CANDIDATE_CHANGED',
		taskId: 't-1',
		lastCallId: 'call-s1',
		status: 'SUCCESS',
		callbackData,
	};

	const answers = await Promise.all([
		post(eventUrl, callEnded),
		post(eventUrl, candidateChanged),
		post(eventUrl, callEnded),
	]);
	// One Call Ended arrives while the other is being handed over: 503, its outcome not known yet.
	expect([answers[0].status, answers[2].status].sort()).toEqual([200, 503]);
	expect(answers[1].status).toBe(200);
	await finishedWithin(execution);
	// Re-sent later, as the service does until it has a 200.
	expect((await post(eventUrl, callEnded)).status).toBe(200);
	expect((await post(eventUrl, candidateChanged)).status).toBe(200);

	expect(execution.resumes).toBe(1);
	expect(execution.requests.filter((r) => r.status === 200)).toHaveLength(1);
	expect(execution.items!.map((i) => i.json)).toEqual([
		expect.objectContaining({
			status: 'Answered',
			callId: 'call-s1',
			result: { ok: true },
			callbackData: { crmId: 'S-1' },
		}),
	]);
	expect(server.started).toHaveLength(0);
});

test('the answered CALL_ENDED finds the execution still running, the CANDIDATE_CHANGED gets through first: the result is the answered call', async () => {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
	const execution = await runWaiting(waiting, [{ phone: '79991110015', crmId: 'R-1' }]);
	const callbackData = { crmId: 'R-1', [WAIT_MARKER_FIELD]: markerSent('79991110015') };
	const callEnded = {
		event: 'CALL_ENDED',
		id: 'call-r1',
		taskId: 't-r',
		status: 'ANSWERED',
		result: { ok: 1 },
		callbackData,
	};
	const candidateChanged = {
		event: 'CANDIDATE_CHANGED',
		taskId: 't-r',
		lastCallId: 'call-r1',
		status: 'SUCCESS',
		callbackData,
	};

	waiting.stillRunningFor = 1;
	expect((await post(eventUrl, callEnded)).status).toBe(503);
	expect((await post(eventUrl, candidateChanged)).status).toBe(200);
	await finishedWithin(execution);
	// The service's re-send of the CALL_ENDED changes nothing.
	expect((await post(eventUrl, callEnded)).status).toBe(200);
	expect(execution.resumes).toBe(1);
	expect(execution.items!.map((i) => i.json)).toEqual([
		expect.objectContaining({
			status: 'Answered',
			outcome: 'answered',
			callStatus: 'ANSWERED',
			callId: 'call-r1',
			result: { ok: 1 },
			callbackData: { crmId: 'R-1' },
		}),
	]);
});

test('"Also Start This Workflow for Waiting Calls" on: the trigger also outputs the events, without the marker', async () => {
	const { waiting, server, eventUrl } = await startN8n({
		triggerOptions: { outputWaitingCalls: true },
	});
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	sim.setOutcome('79991110010', { attempts: ['ANSWERED'] });
	const execution = await runWaiting(waiting, [{ phone: '79991110010', crmId: 'O-1' }]);
	await resumedOnce(execution);
	const outputs = server.started.map((data) => data[0][0].json);
	expect(outputs.map((json) => json.event).sort()).toEqual(['CALL_ENDED', 'CANDIDATE_CHANGED']);
	for (const json of outputs) expect(json.callbackData).toEqual({ crmId: 'O-1' });
	expectNoKeyIn(outputs);
});

test('one delivery of a waiting call parses its wait marker once, through the checks, the hand-over and the output (its Callback Data is read in one place: test/unit/architecture.test.ts)', async () => {
	const { waiting, server, eventUrl } = await startN8n({
		triggerOptions: { outputWaitingCalls: true },
	});
	sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
	const execution = await runWaiting(waiting, [{ phone: '79991110017', crmId: 'M-1' }]);
	expect(execution.status).toBe('waiting');
	const callbackData = JSON.stringify({
		crmId: 'M-1',
		[WAIT_MARKER_FIELD]: markerSent('79991110017'),
	});
	const callEnded = {
		event: 'CALL_ENDED',
		id: 'call-m1',
		taskId: 't-m',
		status: 'ANSWERED',
		result: { ok: true },
		callbackData,
	};

	const parses = jest.spyOn(waitForResult, 'waitMarkerOf');
	try {
		expect((await post(eventUrl, callEnded)).status).toBe(200);
		await finishedWithin(execution);
		expect(parses).toHaveBeenCalledTimes(1);
	} finally {
		parses.mockRestore();
	}
	// The one reading served all three: the resume and the workflow's item carry the user's own Callback Data.
	expect(execution.items!.map((i) => i.json.callbackData)).toEqual([{ crmId: 'M-1' }]);
	expect(server.started.map((data) => data[0][0].json.callbackData)).toEqual([{ crmId: 'M-1' }]);
});
