// The whole loop in one process: the trigger creates its call task on the simulator (engine
// harness, HookContext), a candidate is added to that task, the simulator plays the call and
// POSTs the events to the trigger's URL (harness webhook server, WebhookContext).
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { Agent, request } from 'undici';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import { runWebhookMethod, startWebhookServer, type WebhookServer } from '../engine/harness';
import { startQuickSimulator, useSimulator } from '../lib/simulator';
import { newTaskParameters } from './fixtures';
import { EVENT_NAMES } from '../../nodes/shared/events';

const TOKEN = 'sim-token';
const credentialTypes = [new CisAutoCallApi(), new CisAutoCallLoginApi()];

let server: WebhookServer | undefined;
const agent = new Agent({ keepAliveTimeout: 1000 });
const sim = useSimulator(startQuickSimulator, {
	settle: true,
	emptyAfter: true,
	closeAfterAll: () => agent.close(),
});
afterEach(async () => {
	await server?.close();
	server = undefined;
});

async function addCandidate(body: IDataObject): Promise<IDataObject> {
	const answer = await request(`${sim.url}/cis/api/v1/telephony/autoCallCandidate`, {
		method: 'POST',
		dispatcher: agent,
		headers: {
			authorization: `Bearer ${TOKEN}`,
			'content-type': 'application/json',
			accept: 'application/json',
		},
		body: JSON.stringify(body),
	});
	const text = await answer.body.text();
	expect(answer.statusCode).toBe(200);
	return JSON.parse(text) as IDataObject;
}

/**
 * Adds a candidate to a manual task and starts the task. (Two calls rather than `forceStart`:
 * the simulator dials a candidate added with forceStart to a stopped task twice.)
 */
async function addAndPlay(body: IDataObject): Promise<IDataObject> {
	const added = await addCandidate(body);
	const answer = await request(
		`${sim.url}/cis/api/v1/telephony/autoCall/${body.autoCallId as string}/play`,
		{
			method: 'POST',
			dispatcher: agent,
			headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
		},
	);
	await answer.body.text();
	expect(answer.statusCode).toBe(200);
	return added;
}

async function activate(
	parameters: INodeParameters,
	staticData: IDataObject,
	{ persistStaticData = false } = {},
) {
	server = await startWebhookServer({
		node: new CisAutoCallTrigger(),
		credentialTypes,
		credentials: {},
		parameters,
		staticData,
		persistStaticData,
	});
	const common = {
		node: new CisAutoCallTrigger(),
		credentialTypes,
		credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: TOKEN } },
		parameters,
		staticData,
		webhookBaseUrl: server.baseUrl,
	};
	// n8n's createWebhookIfNotExists
	const exists = await runWebhookMethod({ ...common, method: 'checkExists' });
	expect(exists.error).toBeUndefined();
	if (!exists.result) {
		const created = await runWebhookMethod({ ...common, method: 'create' });
		expect(created.error).toBeUndefined();
		expect(created.webhookUrl).toBe(server.url);
	}
	return { server, common };
}

const parameters = newTaskParameters('Loop campaign', {
	defaultExecData: 'bot-loop',
	startType: 'manual',
});

test('create → candidate added → call played → CALL_ENDED and CANDIDATE_CHANGED start the workflow with callbackData intact', async () => {
	const staticData: IDataObject = {};
	const { server } = await activate(parameters, staticData);
	const registration = staticData.registration as IDataObject;
	const taskId = registration.autoCallId as string;
	expect(sim.state.tasks.get(taskId)?.status).toBe('BLANK');

	const phone = '79990001122';
	sim.setOutcome(phone, { attempts: ['ANSWERED'], result: { interested: 'yes' } });
	const callbackData = { crmId: 'lead-42', source: 'n8n' };
	const added = await addAndPlay({ autoCallId: taskId, phone: [phone], callbackData });
	const candidateId = (added.id as IDataObject).identity as string;
	await sim.idle();

	// Every delivery went to the registered URL with its secret, and was answered 200.
	const deliveries = sim.webhookDeliveries;
	expect(deliveries.map((d) => d.event).sort()).toEqual(['CALL_ENDED', 'CANDIDATE_CHANGED']);
	for (const delivery of deliveries) {
		expect(delivery.url).toBe(sim.state.tasks.get(taskId)?.body.webhookUrls[0].url);
		expect(delivery.url).toMatch(
			new RegExp(`^${server.url.replace(/[.?*+^$[\]\\(){}|-]/g, '\\$&')}\\?secret=[0-9a-f]{48}$`),
		);
		expect(delivery.status).toBe(200);
		expect(delivery.attempt).toBe(1);
	}
	// The task's status changes were not asked for, so the service did not send them.
	expect(sim.events.some((e) => e.event === 'AUTOCALL_STATUS_CHANGED')).toBe(true);
	expect(deliveries.some((d) => d.event === 'AUTOCALL_STATUS_CHANGED')).toBe(false);

	const items = server.started.map((run) => run[0][0].json);
	expect(items).toHaveLength(2);
	const ended = items.find((item) => item.event === 'CALL_ENDED');
	const changed = items.find((item) => item.event === 'CANDIDATE_CHANGED');
	expect(ended).toMatchObject({
		event: 'CALL_ENDED',
		taskId,
		status: 'ANSWERED',
		callTo: phone,
		result: { interested: 'yes' },
		callbackData,
		receivedAt: expect.any(String),
	});
	expect(changed).toMatchObject({
		event: 'CANDIDATE_CHANGED',
		taskId,
		lastCallId: ended?.id,
		callbackData,
	});
	expect(changed?.candidateId ?? candidateId).toBe(candidateId);
});

test('all six events selected: a redial, a transfer and an efficiency mark all reach the workflow', async () => {
	const staticData: IDataObject = {};
	const { server } = await activate(
		{
			...parameters,
			events: [...EVENT_NAMES],
			// Version 2 keeps the redial rules under Campaign Settings.
			campaignSettings: {
				redialStrategyEn: true,
				redialRules: { noAnswer: { redial: true, time: 5, count: 1 } },
			},
		},
		staticData,
	);
	const taskId = (staticData.registration as IDataObject).autoCallId as string;
	const phone = '79990007788';
	sim.setOutcome(phone, {
		attempts: ['NOANSWER', 'ANSWERED'],
		redirect: true,
		efficiency: true,
		redirectDestination: 'ch',
		redirectDestinationId: 'op-1',
	});
	const callbackData = { crmId: 'lead-7' };
	await addAndPlay({ autoCallId: taskId, phone: [phone], callbackData });
	await sim.idle();

	expect(sim.webhookDeliveries.every((d) => d.status === 200)).toBe(true);
	const items = server.started.map((run) => run[0][0].json);
	expect(items.map((item) => item.event)).toEqual([
		'AUTOCALL_STATUS_CHANGED',
		'CALL_ENDED',
		'RECALL_SCHEDULED',
		'CALL_REDIRECTED',
		'CALL_ENDED',
		'EFFICIENCY_REACHED',
		'CANDIDATE_CHANGED',
	]);
	expect(items[0]).toMatchObject({ taskId, status: 'PROCESS', callbackData: {} });
	for (const item of items.slice(1)) expect(item.callbackData).toEqual(callbackData);
	expect(items[1]).toMatchObject({ status: 'NOANSWER' });
	expect(items[4]).toMatchObject({ status: 'ANSWERED' });
	expect(items[3]).toMatchObject({ redirectDestination: 'ch', redirectDestinationId: 'op-1' });
});

test('a candidate without callbackData (the service sends []) arrives with callbackData {}', async () => {
	const staticData: IDataObject = {};
	const { server } = await activate({ ...parameters, events: ['CALL_ENDED'] }, staticData);
	const taskId = (staticData.registration as IDataObject).autoCallId as string;
	const phone = '79990003344';
	sim.setOutcome(phone, { attempts: ['ANSWERED'] });
	await addAndPlay({ autoCallId: taskId, phone: [phone] });
	await sim.idle();
	const items = server.started.map((run) => run[0][0].json);
	expect(items).toHaveLength(1);
	expect(items[0]).toMatchObject({ event: 'CALL_ENDED', callbackData: {} });
	expect(sim.webhookDeliveries.find((d) => d.event === 'CALL_ENDED')?.body.callbackData).toEqual(
		[],
	);
});

test('re-activation (n8n restart) with the same settings and URL reuses the task: no second task', async () => {
	const staticData: IDataObject = {};
	await activate(parameters, staticData);
	const first = { ...(staticData.registration as IDataObject) };
	await server?.close();
	// "n8n restarts": the webhook server comes back on another port, so the URL differs; use
	// the same base URL to model a restart behind the same public address.
	const restartedServer = await startWebhookServer({
		node: new CisAutoCallTrigger(),
		credentialTypes,
		credentials: {},
		parameters,
		staticData,
	});
	server = restartedServer;
	const exists = await runWebhookMethod({
		node: new CisAutoCallTrigger(),
		credentialTypes,
		credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: TOKEN } },
		parameters,
		staticData,
		method: 'checkExists',
		webhookBaseUrl: new URL(first.webhookUrl as string).origin + '/webhook',
	});
	expect(exists.result).toBe(true);
	expect(
		sim.requests.filter((r) => r.method === 'POST' && r.path === '/cis/api/v1/telephony/autoCall'),
	).toHaveLength(1);
	expect(staticData.registration).toEqual(first);
});

test('the old task of a replaced registration is refused (401); the service keeps re-sending it', async () => {
	const staticData: IDataObject = {};
	const { common } = await activate(parameters, staticData);
	const oldTaskId = (staticData.registration as IDataObject).autoCallId as string;
	// deactivate (delete) and activate with other settings: a new task, a new secret
	expect((await runWebhookMethod({ ...common, method: 'delete' })).result).toBe(true);
	const changed = { ...parameters, name: 'Loop campaign v2' };
	const created = await runWebhookMethod({ ...common, parameters: changed, method: 'create' });
	expect(created.error).toBeUndefined();
	const newTaskId = (staticData.registration as IDataObject).autoCallId as string;
	expect(newTaskId).not.toBe(oldTaskId);

	const phone = '79990005566';
	sim.setOutcome(phone, { attempts: ['ANSWERED'] });
	await addAndPlay({ autoCallId: oldTaskId, phone: [phone] });
	await sim.idle();
	const toOld = sim.webhookDeliveries.filter((d) => d.event === 'CALL_ENDED');
	expect(toOld.length).toBeGreaterThan(1);
	expect(toOld.every((d) => d.status === 401)).toBe(true);
	expect(server?.started).toHaveLength(0);
});
