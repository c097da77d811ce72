// The trigger's webhook(): real HTTP requests to the harness's webhook server, which calls
// webhook() in n8n-core's WebhookContext and answers like n8n's live webhooks (onReceived).
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { Agent, request } from 'undici';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import { startWebhookServer, type WebhookServer } from '../engine/harness';

const SECRET = '6f1d0c9e5b3a47f2a8e1d4c7b0a39e5f6d2c1b0a';
const ALL_EVENTS = [
	'CALL_ENDED',
	'CANDIDATE_CHANGED',
	'CALL_REDIRECTED',
	'RECALL_SCHEDULED',
	'EFFICIENCY_REACHED',
	'AUTOCALL_STATUS_CHANGED',
];

const agent = new Agent({ keepAliveTimeout: 1000 });
const servers: WebhookServer[] = [];
let counter = 0;
/** A fresh id per event, so that no two tests send the "same" delivery. */
const nextId = () => `call-${process.pid}-${Date.now()}-${++counter}`;

afterEach(async () => {
	while (servers.length > 0) await servers.pop()?.close();
});
afterAll(async () => {
	await agent.close();
});

const registrationData = (): IDataObject => ({
	registration: {
		autoCallId: 'task-1',
		webhookUrl: 'set-by-create',
		fingerprint: 'f'.repeat(64),
		secret: SECRET,
		createdAt: '2026-11-01T00:00:00.000Z',
	},
});

async function serve(
	parameters: INodeParameters = {},
	{ staticData = registrationData(), persistStaticData = false, node = new CisAutoCallTrigger() } = {},
): Promise<WebhookServer> {
	const server = await startWebhookServer({
		node,
		credentialTypes: [new CisAutoCallApi(), new CisAutoCallLoginApi()],
		credentials: {},
		parameters: { connectTo: 'newTask', events: ['CALL_ENDED', 'CANDIDATE_CHANGED'], ...parameters },
		staticData,
		persistStaticData,
	});
	servers.push(server);
	return server;
}

interface Answer {
	status: number;
	body: any;
}

async function post(
	url: string,
	body: unknown,
	{ secret = SECRET as string | null, contentType = 'application/json', raw = false } = {},
): Promise<Answer> {
	const target = new URL(url);
	if (secret !== null) target.searchParams.set('secret', secret);
	const answer = await request(target, {
		method: 'POST',
		dispatcher: agent,
		headers: { 'content-type': contentType },
		body: raw ? (body as string) : JSON.stringify(body),
	});
	const text = await answer.body.text();
	let parsed: unknown = text;
	try {
		parsed = JSON.parse(text);
	} catch {
		// not JSON: keep the text
	}
	return { status: answer.statusCode, body: parsed };
}

const callEnded = (extra: IDataObject = {}): IDataObject => ({
	event: 'CALL_ENDED',
	type: 'OUTGOING',
	botId: 'bot-1',
	id: nextId(),
	taskId: 'task-1',
	status: 'ANSWERED',
	callFrom: '74950000000',
	callTo: '79990000001',
	startedAt: '2026-11-01T10:00:00.000Z',
	variables: { name: 'Ann' },
	result: { interested: true },
	callbackData: { crmId: '42' },
	...extra,
});

const startedItems = (server: WebhookServer): IDataObject[] => server.started.flatMap((run) => run[0].map((item) => item.json));

describe('accepted events', () => {
	test('the right secret starts the workflow with one item: payload + event, receivedAt, callbackData', async () => {
		const server = await serve();
		const payload = callEnded();
		const before = Date.now();
		const answer = await post(server.url, payload);
		expect(answer.status).toBe(200);
		expect(server.started).toHaveLength(1);
		expect(server.started[0]).toHaveLength(1);
		expect(server.started[0][0]).toHaveLength(1);
		const item = server.started[0][0][0].json;
		expect(item).toEqual({ ...payload, receivedAt: expect.any(String) });
		expect(Date.parse(item.receivedAt as string)).toBeGreaterThanOrEqual(before - 1000);
		expect(JSON.stringify(item)).not.toContain(SECRET);
	});

	test('unknown fields pass through; events without a documented payload are accepted', async () => {
		const server = await serve({ events: ALL_EVENTS });
		const payloads: IDataObject[] = [
			{ event: 'RECALL_SCHEDULED', taskId: 'task-1', candidateId: nextId(), scheduledAt: '2026-11-02T10:00:00Z', extra: { deep: [1] } },
			{ event: 'EFFICIENCY_REACHED', id: nextId(), whatever: true },
			{ event: 'AUTOCALL_STATUS_CHANGED', taskId: nextId(), status: 'PROCESS', previousStatus: 'BLANK' },
			{ event: 'CALL_REDIRECTED', id: nextId(), redirectDestination: 'ch', redirectDestinationId: 'op-1', callbackData: [] },
		];
		for (const payload of payloads) expect((await post(server.url, payload)).status).toBe(200);
		expect(startedItems(server)).toEqual(
			payloads.map((payload) => ({ ...payload, receivedAt: expect.any(String), callbackData: {} })),
		);
	});

	test('callbackData is always an object: {}, [] and a JSON string', async () => {
		const server = await serve();
		await post(server.url, callEnded({ callbackData: {} }));
		await post(server.url, callEnded({ callbackData: [] }));
		await post(server.url, callEnded({ callbackData: '{"crmId":"42","lead":7}' }));
		await post(server.url, callEnded({ callbackData: undefined }));
		const items = startedItems(server);
		expect(items.map((item) => item.callbackData)).toEqual([{}, {}, { crmId: '42', lead: 7 }, {}]);
		expect(items.map((item) => item.callbackDataRaw)).toEqual([undefined, undefined, '{"crmId":"42","lead":7}', undefined]);
	});

	test('a JSON body sent as text/plain is read too', async () => {
		const server = await serve();
		const payload = callEnded();
		const answer = await post(server.url, JSON.stringify(payload), { contentType: 'text/plain', raw: true });
		expect(answer.status).toBe(200);
		expect(startedItems(server)).toEqual([{ ...payload, receivedAt: expect.any(String) }]);
	});

	test('Existing Task or Template: the secret set by the user', async () => {
		const userSecret = 'my-own-secret-of-16+chars';
		const server = await serve({ connectTo: 'existing', secret: userSecret }, { staticData: {} });
		expect((await post(server.url, callEnded(), { secret: userSecret })).status).toBe(200);
		expect((await post(server.url, callEnded(), { secret: SECRET })).status).toBe(401);
		expect((await post(server.url, callEnded(), { secret: null })).status).toBe(401);
		expect(server.started).toHaveLength(1);
	});
});

describe('refused requests start nothing', () => {
	test('a wrong or missing secret gets 401', async () => {
		const server = await serve();
		for (const secret of [null, '', 'wrong', `${SECRET}x`, SECRET.slice(0, -1), SECRET.toUpperCase()]) {
			const answer = await post(server.url, callEnded(), { secret });
			expect([secret, answer.status]).toEqual([secret, 401]);
			expect(answer.body).toEqual({ received: false, error: 'Missing or wrong secret' });
		}
		expect(server.calls).toBe(6);
		expect(server.started).toHaveLength(0);
	});

	test('New Call Task without a stored registration (e.g. after delete) refuses everything', async () => {
		const server = await serve({}, { staticData: {} });
		expect((await post(server.url, callEnded())).status).toBe(401);
		expect((await post(server.url, callEnded(), { secret: '' })).status).toBe(401);
		expect(server.started).toHaveLength(0);
	});

	test('an address outside the allow-list gets 403 (before the secret is looked at)', async () => {
		const server = await serve({ options: { allowedAddresses: '87.251.83.160/27, 10.0.0.0/8' } });
		const answer = await post(server.url, callEnded());
		expect(answer.status).toBe(403);
		expect(answer.body).toEqual({ received: false, error: 'This address may not send events to this trigger' });
		expect((await post(server.url, callEnded(), { secret: 'wrong' })).status).toBe(403);
		expect(server.started).toHaveLength(0);
	});

	test('an address inside the allow-list passes (loopback as IPv4 or IPv4-mapped IPv6)', async () => {
		for (const allowedAddresses of ['127.0.0.1', '127.0.0.0/8, 87.251.83.160/27', '::ffff:127.0.0.1']) {
			const server = await serve({ options: { allowedAddresses } });
			expect((await post(server.url, callEnded())).status).toBe(200);
			expect(server.started).toHaveLength(1);
		}
	});

	test('malformed bodies get 400: not JSON, an array, no event', async () => {
		const server = await serve();
		const cases: Array<[unknown, { contentType?: string; raw?: boolean }, string]> = [
			['this is not JSON', { contentType: 'text/plain', raw: true }, 'Not an event: the body is not JSON'],
			[[callEnded()], {}, 'Not an event: the body is not a JSON object'],
			['"CALL_ENDED"', { raw: true }, 'Not an event: the body is not a JSON object'],
			[{ id: 'x', status: 'ANSWERED' }, {}, 'Not an event: the body has no "event" field'],
			[{}, {}, 'Not an event: the body has no "event" field'],
			['', { contentType: 'text/plain', raw: true }, 'Not an event: the body is empty'],
		];
		for (const [body, options, error] of cases) {
			const answer = await post(server.url, body, options);
			expect([body, answer.status, answer.body]).toEqual([body, 400, { received: false, error }]);
		}
		expect(server.started).toHaveLength(0);
	});

	test('broken JSON declared as application/json is refused by n8n itself (422) before the node', async () => {
		const server = await serve();
		const answer = await post(server.url, '{"event": ', { raw: true });
		expect(answer.status).toBe(422);
		expect(server.calls).toBe(0);
		expect(server.started).toHaveLength(0);
	});
});

describe('filtered and repeated events: 200, nothing started', () => {
	test('an event that is not selected gets 200 (so the service does not re-send it)', async () => {
		const server = await serve({ events: ['CANDIDATE_CHANGED'] });
		const answer = await post(server.url, callEnded());
		expect(answer.status).toBe(200);
		expect(answer.body).toEqual({ received: true, ignored: 'event not selected' });
		const unknownEvent = await post(server.url, { event: 'SOMETHING_NEW', id: nextId() });
		expect(unknownEvent.status).toBe(200);
		expect(server.started).toHaveLength(0);
	});

	test('a repeated delivery gets 200 and starts nothing (n8n 2.x: static data written in webhook() is dropped)', async () => {
		const staticData = registrationData();
		const server = await serve({}, { staticData, persistStaticData: false });
		const payload = callEnded();
		expect((await post(server.url, payload)).status).toBe(200);
		const repeat = await post(server.url, { ...payload, receivedBy: 'another attempt' });
		expect(repeat.status).toBe(200);
		expect(repeat.body).toEqual({ received: true, ignored: 'repeated delivery' });
		expect(server.started).toHaveLength(1);
		// the saved static data never changed: the in-memory keys did the work
		expect(staticData.recentDeliveries).toBeUndefined();
		// another call, or the same call with another status, is not a repeat
		expect((await post(server.url, { ...payload, id: nextId() })).status).toBe(200);
		expect((await post(server.url, { ...payload, status: 'NOANSWER' })).status).toBe(200);
		expect(server.started).toHaveLength(3);
	});

	test('n8n 1.x: the keys are also saved in static data and survive a restart of n8n', async () => {
		const staticData = registrationData();
		const server = await serve({}, { staticData, persistStaticData: true });
		const payload = callEnded();
		expect((await post(server.url, payload)).status).toBe(200);
		expect(staticData.recentDeliveries).toHaveLength(1);
		await server.close();

		// A fresh module = a fresh process: nothing in memory, only the saved static data.
		let FreshTrigger: typeof CisAutoCallTrigger | undefined;
		jest.isolateModules(() => {
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			FreshTrigger = require('../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node').CisAutoCallTrigger;
		});
		const restarted = await serve({}, { staticData, persistStaticData: true, node: new FreshTrigger!() });
		const repeat = await post(restarted.url, payload);
		expect(repeat.body).toEqual({ received: true, ignored: 'repeated delivery' });
		expect(restarted.started).toHaveLength(0);
	});

	test('the remembered keys are bounded by "Deliveries to Remember"', async () => {
		const staticData = registrationData();
		const server = await serve({ options: { rememberDeliveries: 2 } }, { staticData, persistStaticData: true });
		const first = callEnded();
		await post(server.url, first);
		await post(server.url, callEnded());
		await post(server.url, callEnded());
		expect(staticData.recentDeliveries).toHaveLength(2);
		// the first one has been forgotten: it starts the workflow again
		expect((await post(server.url, first)).status).toBe(200);
		expect(server.started).toHaveLength(4);
	});

	test('with "Ignore Repeated Deliveries" off, every delivery starts the workflow', async () => {
		const server = await serve({ options: { ignoreRepeats: false } });
		const payload = callEnded();
		await post(server.url, payload);
		await post(server.url, payload);
		expect(server.started).toHaveLength(2);
	});

	test('concurrent identical deliveries start the workflow once', async () => {
		const server = await serve();
		const payload = callEnded();
		const answers = await Promise.all(Array.from({ length: 5 }, () => post(server.url, payload)));
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
		expect(server.started).toHaveLength(1);
	});
});
