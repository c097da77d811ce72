/**
 * Candidate → Create and Run and Wait for Result and Add to Task and Wait for Result, with their
 * bridge in the trigger, through n8n-core's engine: the action node runs until it waits
 * (WaitingExecutions, n8n's waiting as its CLI does it), the simulator plays the call and sends its
 * events to the trigger (startWebhookServer, Existing Task mode, registered on the default template
 * or on the task), the trigger resumes the waiting execution at the same n8n's /webhook-waiting/
 * address.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

import { CisAutoCallApi } from '../../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCallWebhookSecretApi } from '../../../credentials/CisAutoCallWebhookSecretApi.credentials';
import { CisAutoCall } from '../../../nodes/CisAutoCall/CisAutoCall.node';
import { CisAutoCallTrigger } from '../../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import { WAIT_MARKER_FIELD } from '../../../nodes/shared/waitForResult';
import { createSimulator, NO_REDIALS, type Simulator } from '../../../simulator';
import { validTaskBody } from '../../simulator/testkit';
import { runAgentTool, startWebhookServer, WaitingExecutions, type Execution, type WebhookServer } from '../../engine/harness';

const TOKEN = 'sim-token';
const SECRET = 'trigger-secret-0123456789';
const credentialTypes = [new CisAutoCallApi(), new CisAutoCallLoginApi(), new CisAutoCallWebhookSecretApi()];
const agent = new Agent({ keepAliveTimeout: 1000 });

let sim: Simulator;
let servers: WebhookServer[] = [];
beforeAll(async () => {
	sim = await createSimulator({ port: 0, timeScale: 0.01 });
});
afterEach(async () => {
	await sim.idle();
	sim.reset();
	for (const server of servers) await server.close();
	servers = [];
});
afterAll(async () => {
	await sim.close();
	await agent.close();
});

/**
 * One n8n: the trigger's webhook and the waiting executions on the same address; `waitingPath`: n8n's
 * N8N_ENDPOINT_WEBHOOK_WAIT (default webhook-waiting).
 */
async function startN8n({ checksToken = true, triggerOptions = {} as INodeParameters, loadDelayMs = 0, waitingPath = '' } = {}) {
	const waiting = new WaitingExecutions({ checksToken, loadDelayMs });
	const server = await startWebhookServer({
		node: new CisAutoCallTrigger(),
		credentialTypes,
		credentials: { cisAutoCallWebhookSecretApi: { secret: SECRET } },
		parameters: { connectTo: 'existing', events: ['CALL_ENDED', 'CANDIDATE_CHANGED'], options: triggerOptions as INodeParameters },
		staticData: {},
		otherRoutes: waiting.handle,
	});
	servers.push(server);
	waiting.waitingBaseUrl = waitingPath ? `${new URL(server.baseUrl).origin}/${waitingPath}` : `${server.baseUrl}-waiting`;
	return { waiting, server, eventUrl: `${server.url}?secret=${SECRET}` };
}

function target(url: string) {
	const events = ['CALL_ENDED', 'CANDIDATE_CHANGED'];
	return { url, partialResults: false, delay: 0, events: Object.fromEntries(events.map((name) => [name, { name, value: true }])) };
}

const noRedials = NO_REDIALS as IDataObject;

const waitParameters: INodeParameters = {
	authentication: 'accessToken',
	resource: 'candidate',
	operation: 'createAndRunAndWait',
	botSettingsId: 'bot-wait',
	phone: '={{ $json.phone }}',
	candidateFields: { callbackData: '={{ JSON.stringify({ crmId: $json.crmId }) }}' },
	waitAtMost: 2,
	waitUnit: 'hours',
};

function runWaiting(
	waiting: WaitingExecutions,
	items: IDataObject[],
	parameters: INodeParameters = waitParameters,
	extra: Partial<Parameters<WaitingExecutions['run']>[0]> = {},
) {
	return waiting.run({
		...extra,
		node: new CisAutoCall(),
		credentialTypes,
		credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: TOKEN } },
		parameters,
		items,
	});
}

async function finishedWithin(execution: Execution, ms = 20_000): Promise<void> {
	let timer: NodeJS.Timeout | undefined;
	await Promise.race([
		execution.finished,
		new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`execution ${execution.id} did not finish`)), ms))),
	]);
	clearTimeout(timer);
}

const CANDIDATE_PATHS = ['/cis/api/v1/telephony/autoCallCandidate/single', '/cis/api/v1/telephony/autoCallCandidate'];

/** The wait's key as the service received it in Callback Data (what a test must never find in an output). */
function keysSent(): string[] {
	return sim.requests
		.filter((r) => CANDIDATE_PATHS.includes(r.path))
		.map((r) => ((r.body as IDataObject).callbackData as IDataObject)[WAIT_MARKER_FIELD] as IDataObject)
		.filter(Boolean)
		.map((marker) => marker.key as string);
}

function markerSent(phone: string): IDataObject {
	const sent = sim.requests.find(
		(r) => r.path === '/cis/api/v1/telephony/autoCallCandidate/single' && ((r.body as IDataObject).phone as string[])[0] === phone,
	);
	return ((sent!.body as IDataObject).callbackData as IDataObject)[WAIT_MARKER_FIELD] as IDataObject;
}

async function post(url: string, body: unknown): Promise<{ status: number; body: string }> {
	const answer = await request(url, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	return { status: answer.statusCode, body: await answer.body.text() };
}

function expectNoKeyIn(value: unknown): void {
	const text = JSON.stringify(value);
	for (const key of keysSent()) expect(text).not.toContain(key);
	expect(text).not.toContain(WAIT_MARKER_FIELD);
}

test('answered on the first attempt: the execution continues once with the result, the user\'s Callback Data and no key', async () => {
	const { waiting, server, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	sim.setOutcome('79991110001', { attempts: ['ANSWERED'], result: { interested: 'yes' } });

	const execution = await runWaiting(waiting, [{ phone: '79991110001', crmId: 'L-1' }]);
	expect(execution.run.data.resultData.error).toBeUndefined();
	expect(['waiting', 'finished']).toContain(execution.status);
	expect(execution.waitTill!.getTime() - Date.now()).toBeGreaterThan(119 * 60_000);
	expectNoKeyIn(execution.waitingItems);
	await finishedWithin(execution);
	await sim.idle();

	expect(execution.resumes).toBe(1);
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

test('no answer, then answered on a redial: one resume, with the answered call', async () => {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({
		webhookUrls: [target(eventUrl)],
		redialStrategyOptions: { ...noRedials, redialStrategyEn: true, noAnswer: { redial: true, count: 2, time: 1 } },
	});
	sim.setOutcome('79991110002', { attempts: ['NOANSWER', 'ANSWERED'], result: { interested: 'later' } });

	const execution = await runWaiting(waiting, [{ phone: '79991110002', crmId: 'L-2' }]);
	await finishedWithin(execution);
	await sim.idle();

	const calls = sim.events.filter((e) => e.event === 'CALL_ENDED');
	expect(calls.map((e) => e.payload.status)).toEqual(['NOANSWER', 'ANSWERED']);
	expect(execution.resumes).toBe(1);
	expect(execution.items!.map((i) => i.json)).toEqual([
		expect.objectContaining({ status: 'Answered', callStatus: 'ANSWERED', callId: calls[1].payload.id, result: { interested: 'later' }, callbackData: { crmId: 'L-2' } }),
	]);
});

test('never reached: the wait ends when the person is done (CANDIDATE_CHANGED), with the last call\'s status in words', async () => {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	sim.setOutcome('79991110003', { attempts: ['BUSY'] });

	const execution = await runWaiting(waiting, [{ phone: '79991110003', crmId: 'L-3' }]);
	await finishedWithin(execution);
	await sim.idle();

	expect(execution.resumes).toBe(1);
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

test('an event that arrives before the execution waits is answered 503, and its re-send continues it', async () => {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	sim.setOutcome('79991110013', { attempts: ['ANSWERED'], result: { early: true } });
	sim.setOutcome('79991110014', { attempts: ['ANSWERED'], result: { late: true } });
	// The second person's request is answered late: the first call is over while the node still runs.
	sim.injectFault({ path: '/cis/api/v1/telephony/autoCallCandidate/single', bodyIncludes: '79991110014', delayMs: 400 });

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
		expect.objectContaining({ status: 'Answered', result: { early: true }, callbackData: { crmId: 'E-1' } }),
		expect.objectContaining({ status: 'Answered', result: { late: true }, callbackData: { crmId: 'E-2' } }),
	]);
	expect(sim.createdByPhone()['79991110013']).toBe(1);
	expect(sim.createdByPhone()['79991110014']).toBe(1);
});

test('Retry On Fail: the second try does not call the first person again, and the wait gets both results', async () => {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	sim.setOutcome('79991110016', { attempts: ['ANSWERED'], result: { first: true } });
	sim.setOutcome('79991110017', { attempts: ['ANSWERED'], result: { second: true } });
	// The second person's first request is refused (nothing created): the node fails, n8n tries again.
	sim.injectFault({ path: '/cis/api/v1/telephony/autoCallCandidate/single', bodyIncludes: '79991110017', status: 400, body: { error: 'busy, try later' }, times: 1 });

	const execution = await runWaiting(
		waiting,
		[
			{ phone: '79991110016', crmId: 'T-1' },
			{ phone: '79991110017', crmId: 'T-2' },
		],
		waitParameters,
		{ retryOnFail: { maxTries: 2, waitBetweenTries: 0 } },
	);
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
	expect(a.items!.map((i) => i.json)).toEqual([expect.objectContaining({ status: 'Answered', result: { lead: 'A' }, callbackData: { crmId: 'A' } })]);
	expect(b.items!.map((i) => i.json)).toEqual([expect.objectContaining({ status: 'Not reached (last call: No answer)', callbackData: { crmId: 'B' } })]);
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
	await finishedWithin(execution);
	await sim.idle();
	expect(execution.resumes).toBe(1);
	expect(execution.items!.map((i) => [i.json.status, i.json.callbackData, i.pairedItem])).toEqual([
		['Answered', { crmId: 'M-1' }, { item: 0 }],
		['Not reached (last call: Rejected)', { crmId: 'M-2' }, { item: 1 }],
	]);
});

describe('only the package\'s key resumes (n8n 2.x with its token, n8n 1.x that checks nothing)', () => {
	for (const checksToken of [true, false]) {
		test(`forged events and resumes without the key continue nothing (${checksToken ? 'n8n 2.x' : 'n8n 1.x'})`, async () => {
			const { waiting, server, eventUrl } = await startN8n({ checksToken });
			// The template reports nowhere: the test plays the events itself.
			sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
			const execution = await runWaiting(waiting, [{ phone: '79991110008', crmId: 'F-1' }]);
			expect(execution.status).toBe('waiting');
			const marker = markerSent('79991110008');
			const resumeUrl = new URL(`${server.baseUrl}-waiting/${execution.id}/${marker.node as string}`);
			if (marker.token) resumeUrl.searchParams.set('signature', marker.token as string);

			// A POST straight to the waiting address, with n8n's token but without the key.
			const direct = await post(resumeUrl.toString(), { cisAutoCallResume: { results: { 0: { outcome: 'answered' } } } });
			expect(direct.status).toBe(401);
			// With a wrong key.
			const wrongKey = await post(resumeUrl.toString(), { cisAutoCallResume: { key: 'a'.repeat(64), results: { 0: { outcome: 'answered' } } } });
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
					callbackData: { crmId: 'F-1', [WAIT_MARKER_FIELD]: { ...marker, key: 'b'.repeat(64), url: elsewhere, resumeUrl: elsewhere } },
				};
				expect((await post(eventUrl, forged)).status).toBe(200);
				// An event without the trigger's secret is refused before anything else.
				expect((await post(server.url, { ...forged, callbackData: { [WAIT_MARKER_FIELD]: marker } })).status).toBe(401);
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
	const callEnded = { event: 'CALL_ENDED', id: 'call-s1', taskId: 't-1', status: 'ANSWERED', result: { ok: true }, callbackData };
	const candidateChanged = { event: 'CANDIDATE_CHANGED', taskId: 't-1', lastCallId: 'call-s1', status: 'SUCCESS', callbackData };

	const answers = await Promise.all([post(eventUrl, callEnded), post(eventUrl, candidateChanged), post(eventUrl, callEnded)]);
	expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
	await finishedWithin(execution);
	// Re-sent later, as the service does until it has a 200.
	expect((await post(eventUrl, callEnded)).status).toBe(200);
	expect((await post(eventUrl, candidateChanged)).status).toBe(200);

	expect(execution.resumes).toBe(1);
	expect(execution.requests.filter((r) => r.status === 200)).toHaveLength(1);
	expect(execution.items!.map((i) => i.json)).toEqual([expect.objectContaining({ status: 'Answered', callId: 'call-s1', result: { ok: true }, callbackData: { crmId: 'S-1' } })]);
	expect(server.started).toHaveLength(0);
});

test('the answered CALL_ENDED finds the execution still running, the CANDIDATE_CHANGED gets through first: the result is the answered call', async () => {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
	const execution = await runWaiting(waiting, [{ phone: '79991110015', crmId: 'R-1' }]);
	const callbackData = { crmId: 'R-1', [WAIT_MARKER_FIELD]: markerSent('79991110015') };
	const callEnded = { event: 'CALL_ENDED', id: 'call-r1', taskId: 't-r', status: 'ANSWERED', result: { ok: 1 }, callbackData };
	const candidateChanged = { event: 'CANDIDATE_CHANGED', taskId: 't-r', lastCallId: 'call-r1', status: 'SUCCESS', callbackData };

	waiting.stillRunningFor = 1;
	expect((await post(eventUrl, callEnded)).status).toBe(503);
	expect((await post(eventUrl, candidateChanged)).status).toBe(200);
	await finishedWithin(execution);
	// The service's re-send of the CALL_ENDED changes nothing.
	expect((await post(eventUrl, callEnded)).status).toBe(200);
	expect(execution.resumes).toBe(1);
	expect(execution.items!.map((i) => i.json)).toEqual([
		expect.objectContaining({ status: 'Answered', outcome: 'answered', callStatus: 'ANSWERED', callId: 'call-r1', result: { ok: 1 }, callbackData: { crmId: 'R-1' } }),
	]);
});

test('"Also Start This Workflow for Waiting Calls" on: the trigger also outputs the events, without the marker', async () => {
	const { waiting, server, eventUrl } = await startN8n({ triggerOptions: { outputWaitingCalls: true } });
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	sim.setOutcome('79991110010', { attempts: ['ANSWERED'] });
	const execution = await runWaiting(waiting, [{ phone: '79991110010', crmId: 'O-1' }]);
	await finishedWithin(execution);
	await sim.idle();
	expect(execution.resumes).toBe(1);
	const outputs = server.started.map((data) => data[0][0].json);
	expect(outputs.map((json) => json.event).sort()).toEqual(['CALL_ENDED', 'CANDIDATE_CHANGED']);
	for (const json of outputs) expect(json.callbackData).toEqual({ crmId: 'O-1' });
	expectNoKeyIn(outputs);
});

test('Dry Run sends nothing and does not wait', async () => {
	const { waiting } = await startN8n();
	const execution = await runWaiting(waiting, [{ phone: '79991110011', crmId: 'D-1' }], { ...waitParameters, options: { dryRun: true } });
	expect(execution.status).toBe('finished');
	expect(sim.requests.filter((r) => r.path.startsWith('/cis/'))).toHaveLength(0);
	expectNoKeyIn(execution.waitingItems);
});

test('as an AI Agent\'s tool it dials no one and says to use Create and Run', async () => {
	const result = await runAgentTool({
		node: new CisAutoCall(),
		credentialTypes,
		credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: TOKEN } },
		parameters: { ...waitParameters, phone: "={{ $fromAI('phone', 'phone number', 'string') }}" },
		toolCalls: [{ phone: '79991110012' }],
	});
	expect(JSON.stringify(result.observations)).toMatch(/Create and Run/);
	expect(sim.requests.filter((r) => r.path.startsWith('/cis/'))).toHaveLength(0);
});

describe('Add to Task and Wait for Result', () => {
	/** A task of the bot, created (not running) with the trigger's URL as its webhook target (Existing Task). */
	async function taskReportingTo(eventUrl: string, redialStrategyOptions: IDataObject = noRedials): Promise<string> {
		const answer = await request(`${sim.url}/cis/api/v1/telephony/autoCall`, {
			method: 'POST',
			dispatcher: agent,
			headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
			body: JSON.stringify(validTaskBody({ defaultExecData: 'bot-wait', webhookUrls: [target(eventUrl)], redialStrategyOptions })),
		});
		const created = (await answer.body.json()) as IDataObject;
		expect(answer.statusCode).toBe(200);
		sim.requests.length = 0;
		return String((created.id as IDataObject).identity);
	}

	const addParameters = (taskId: string, forceStart: boolean): INodeParameters => ({
		authentication: 'accessToken',
		resource: 'candidate',
		operation: 'addToTaskAndWait',
		autoCallId: { __rl: true, mode: 'id', value: taskId },
		phone: '={{ $json.phone }}',
		candidateFields: { callbackData: '={{ JSON.stringify({ crmId: $json.crmId }) }}' },
		forceStart,
		waitAtMost: 2,
		waitUnit: 'hours',
	});

	test('answered: the person is added to the task once, the execution continues once with the result and no key', async () => {
		const { waiting, server, eventUrl } = await startN8n();
		const taskId = await taskReportingTo(eventUrl);
		sim.setOutcome('79991110101', { attempts: ['ANSWERED'], result: { interested: 'yes' } });

		const execution = await runWaiting(waiting, [{ phone: '79991110101', crmId: 'T-1' }], addParameters(taskId, true));
		expect(execution.run.data.resultData.error).toBeUndefined();
		expectNoKeyIn(execution.waitingItems);
		await finishedWithin(execution);
		await sim.idle();

		expect(execution.resumes).toBe(1);
		const callId = sim.events.find((e) => e.event === 'CALL_ENDED')!.payload.id;
		expect(execution.items!.map((i) => i.json)).toEqual([
			expect.objectContaining({ status: 'Answered', outcome: 'answered', callId, taskId, result: { interested: 'yes' }, callbackData: { crmId: 'T-1' } }),
		]);
		expect(execution.items![0].pairedItem).toEqual({ item: 0 });
		expect(sim.requests.filter((r) => r.path === '/cis/api/v1/telephony/autoCallCandidate')).toHaveLength(1);
		expect(sim.createdByPhone()['79991110101']).toBe(1);
		expectNoKeyIn(execution.items);
		expect(server.started).toHaveLength(0);
	});

	test('two people in one run, one answered on a redial and one never reached: one resume with both results', async () => {
		const { waiting, eventUrl } = await startN8n();
		const taskId = await taskReportingTo(eventUrl, { ...noRedials, redialStrategyEn: true, noAnswer: { redial: true, count: 2, time: 1 } });
		sim.setOutcome('79991110102', { attempts: ['NOANSWER', 'ANSWERED'], result: { interested: 'later' } });
		sim.setOutcome('79991110103', { attempts: ['BUSY'] });

		const items = [
			{ phone: '79991110102', crmId: 'T-2' },
			{ phone: '79991110103', crmId: 'T-3' },
		];
		const execution = await runWaiting(waiting, items, addParameters(taskId, true));
		await finishedWithin(execution);
		await sim.idle();

		expect(execution.resumes).toBe(1);
		expect(execution.items!.map((i) => [i.json.status, i.json.callbackData, i.pairedItem])).toEqual([
			['Answered', { crmId: 'T-2' }, { item: 0 }],
			['Not reached (last call: Busy)', { crmId: 'T-3' }, { item: 1 }],
		]);
	});

	test('a task that is not running and Start the Task Too off: nobody is called and the execution keeps waiting (until Wait at Most)', async () => {
		const { waiting, eventUrl } = await startN8n();
		const taskId = await taskReportingTo(eventUrl);
		sim.setOutcome('79991110104', { attempts: ['ANSWERED'] });

		const execution = await runWaiting(waiting, [{ phone: '79991110104', crmId: 'T-4' }], addParameters(taskId, false));
		await sim.idle();
		expect(execution.status).toBe('waiting');
		expect(execution.waitTill!.getTime() - Date.now()).toBeGreaterThan(119 * 60_000);
		expect(sim.events.filter((e) => e.event === 'CALL_ENDED')).toHaveLength(0);
		expect(execution.resumes).toBe(0);
	});

	test('as an AI Agent\'s tool it adds no one and says which operation to use', async () => {
		const result = await runAgentTool({
			node: new CisAutoCall(),
			credentialTypes,
			credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: TOKEN } },
			parameters: { ...addParameters('1', true), phone: "={{ $fromAI('phone', 'phone number', 'string') }}" },
			toolCalls: [{ phone: '79991110105' }],
		});
		expect(JSON.stringify(result.observations)).toMatch(/Add to Task/);
		expect(sim.requests.filter((r) => r.path.startsWith('/cis/'))).toHaveLength(0);
	});
});

describe('queue mode: the events of one wait reach two webhook processes', () => {
	/** Two webhook processes: two copies of the trigger's module (each with its own memory), one n8n. */
	async function startTwoWebhookProcesses() {
		const waiting = new WaitingExecutions({ checksToken: true });
		let OtherProcessTrigger: typeof CisAutoCallTrigger | undefined;
		jest.isolateModules(() => {
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			OtherProcessTrigger = require('../../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node').CisAutoCallTrigger;
		});
		const start = (node: CisAutoCallTrigger) =>
			startWebhookServer({
				node,
				credentialTypes,
				credentials: { cisAutoCallWebhookSecretApi: { secret: SECRET } },
				parameters: { connectTo: 'existing', events: ['CALL_ENDED', 'CANDIDATE_CHANGED'], options: {} },
				staticData: {},
				otherRoutes: waiting.handle,
			});
		const first = await start(new CisAutoCallTrigger());
		const second = await start(new OtherProcessTrigger!());
		servers.push(first, second);
		waiting.waitingBaseUrl = `${first.baseUrl}-waiting`;
		return { waiting, first: `${first.url}?secret=${SECRET}`, second: `${second.url}?secret=${SECRET}` };
	}

	function eventsOf(phone: string, crmId: string, callId: string, status = 'ANSWERED') {
		const callbackData = { crmId, [WAIT_MARKER_FIELD]: markerSent(phone) };
		return {
			callEnded: { event: 'CALL_ENDED', id: callId, taskId: 't-q', status, result: { heard: crmId }, callbackData },
			personDone: { event: 'CANDIDATE_CHANGED', taskId: 't-q', lastCallId: callId, status: 'SUCCESS', callbackData },
		};
	}

	test('two people in one run, each result at another process: "send again" until one process holds both, then one resume', async () => {
		const { waiting, first, second } = await startTwoWebhookProcesses();
		sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
		const execution = await runWaiting(waiting, [
			{ phone: '79991110201', crmId: 'Q-1' },
			{ phone: '79991110202', crmId: 'Q-2' },
		]);
		expect(execution.status).toBe('waiting');
		const one = eventsOf('79991110201', 'Q-1', 'call-q1');
		const two = eventsOf('79991110202', 'Q-2', 'call-q2');

		expect((await post(first, one.callEnded)).status).toBe(503);
		expect((await post(second, two.callEnded)).status).toBe(503);
		expect(execution.resumes).toBe(0);
		// The service's re-send of the first result reaches the second process, which now holds both.
		expect((await post(second, one.callEnded)).status).toBe(200);
		await finishedWithin(execution);
		// The re-send of the second result at the first process: the execution is done, nothing more.
		expect((await post(first, two.callEnded)).status).toBe(200);

		expect(execution.resumes).toBe(1);
		expect(execution.items!.map((i) => [i.json.status, i.json.callId, i.json.callbackData])).toEqual([
			['Answered', 'call-q1', { crmId: 'Q-1' }],
			['Answered', 'call-q2', { crmId: 'Q-2' }],
		]);
	});

	test('the answered Call Ended at one process and the Person Done at the other at the same moment: "Answered", one resume', async () => {
		const { waiting, first, second } = await startTwoWebhookProcesses();
		sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
		const execution = await runWaiting(waiting, [{ phone: '79991110203', crmId: 'Q-3' }]);
		const { callEnded, personDone } = eventsOf('79991110203', 'Q-3', 'call-q3');

		const [ended, done] = await Promise.all([post(first, callEnded), post(second, personDone)]);
		// The Person Done names a call its process has not seen: held back, for the Call Ended to decide.
		expect(done.status).toBe(503);
		expect(ended.status).toBe(200);
		await finishedWithin(execution);
		expect((await post(second, personDone)).status).toBe(503);
		expect(execution.resumes).toBe(1);
		expect(execution.items!.map((i) => [i.json.status, i.json.callId])).toEqual([['Answered', 'call-q3']]);
	});

	test('never reached, the last call seen by the other process: the Person Done is held back until its re-send reaches that process', async () => {
		const { waiting, first, second } = await startTwoWebhookProcesses();
		sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
		const execution = await runWaiting(waiting, [{ phone: '79991110204', crmId: 'Q-4' }]);
		const { callEnded, personDone } = eventsOf('79991110204', 'Q-4', 'call-q4', 'NOANSWER');

		expect((await post(first, callEnded)).status).toBe(200);
		expect((await post(second, personDone)).status).toBe(503);
		expect(execution.resumes).toBe(0);
		expect((await post(first, personDone)).status).toBe(200);
		await finishedWithin(execution);
		expect(execution.resumes).toBe(1);
		expect(execution.items!.map((i) => [i.json.status, i.json.callId])).toEqual([['Not reached (last call: No answer)', 'call-q4']]);
	});
});
