// The trigger's webhook(): real HTTP requests to the harness's webhook server, which calls
// webhook() in n8n-core's WebhookContext and answers like n8n's live webhooks (onReceived).
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';
import { Agent, request } from 'undici';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCallWebhookSecretApi } from '../../credentials/CisAutoCallWebhookSecretApi.credentials';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import { deliveryIdOf } from '../../nodes/CisAutoCallTrigger/delivery/deliveries';
import { hashSecret } from '../../nodes/CisAutoCallTrigger/secret/hashing';
import { EVENT_NAMES } from '../../nodes/shared/events';
import { startWebhookServer, type WebhookServer } from '../engine/harness';

const SECRET = '6f1d0c9e5b3a47f2a8e1d4c7b0a39e5f6d2c1b0a';
const ALL_EVENTS = [...EVENT_NAMES];

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
		secretHash: hashSecret(SECRET),
		createdAt: '2026-11-01T00:00:00.000Z',
	},
});

async function serve(
	parameters: INodeParameters = {},
	{
		staticData = registrationData(),
		persistStaticData = false,
		node = new CisAutoCallTrigger(),
		credentials = {} as Record<string, ICredentialDataDecryptedObject>,
	} = {},
): Promise<WebhookServer> {
	const server = await startWebhookServer({
		node,
		credentialTypes: [
			new CisAutoCallApi(),
			new CisAutoCallLoginApi(),
			new CisAutoCallWebhookSecretApi(),
		],
		credentials,
		parameters: {
			connectTo: 'newTask',
			events: ['CALL_ENDED', 'CANDIDATE_CHANGED'],
			...parameters,
		},
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

const startedItems = (server: WebhookServer): IDataObject[] =>
	server.started.flatMap((run) => run[0].map((item) => item.json));

describe('accepted events', () => {
	test('the right secret starts the workflow with one item (payload + event, receivedAt, deliveryId, callbackData) and gets {received, deliveryId}', async () => {
		const server = await serve();
		const payload = callEnded();
		const before = Date.now();
		const answer = await post(server.url, payload);
		expect(answer.status).toBe(200);
		expect(server.started).toHaveLength(1);
		expect(server.started[0]).toHaveLength(1);
		expect(server.started[0][0]).toHaveLength(1);
		const item = server.started[0][0][0].json;
		expect(item).toEqual({
			...payload,
			receivedAt: expect.any(String),
			deliveryId: deliveryIdOf(payload),
		});
		expect(Date.parse(item.receivedAt as string)).toBeGreaterThanOrEqual(before - 1000);
		expect(JSON.stringify(item)).not.toContain(SECRET);
		// A small JSON answer on purpose, with the id the item carries.
		expect(answer.body).toEqual({ received: true, deliveryId: item.deliveryId });
	});

	test('unknown fields pass through; events without a documented payload are accepted', async () => {
		const server = await serve({ events: ALL_EVENTS });
		const payloads: IDataObject[] = [
			{
				event: 'RECALL_SCHEDULED',
				taskId: 'task-1',
				candidateId: nextId(),
				scheduledAt: '2026-11-02T10:00:00Z',
				extra: { deep: [1] },
			},
			{ event: 'EFFICIENCY_REACHED', id: nextId(), whatever: true },
			{
				event: 'AUTOCALL_STATUS_CHANGED',
				taskId: nextId(),
				status: 'PROCESS',
				previousStatus: 'BLANK',
			},
			{
				event: 'CALL_REDIRECTED',
				id: nextId(),
				redirectDestination: 'ch',
				redirectDestinationId: 'op-1',
				callbackData: [],
			},
		];
		for (const payload of payloads) expect((await post(server.url, payload)).status).toBe(200);
		expect(startedItems(server)).toEqual(
			payloads.map((payload) => ({
				...payload,
				receivedAt: expect.any(String),
				deliveryId: deliveryIdOf(payload),
				callbackData: {},
			})),
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
		expect(items.map((item) => item.callbackDataRaw)).toEqual([
			undefined,
			undefined,
			'{"crmId":"42","lead":7}',
			undefined,
		]);
	});

	test('a JSON body sent as text/plain is read too', async () => {
		const server = await serve();
		const payload = callEnded();
		const answer = await post(server.url, JSON.stringify(payload), {
			contentType: 'text/plain',
			raw: true,
		});
		expect(answer.status).toBe(200);
		expect(startedItems(server)).toEqual([
			{ ...payload, receivedAt: expect.any(String), deliveryId: deliveryIdOf(payload) },
		]);
	});

	test('a registration stored by an earlier version (secret in clear) keeps being verified', async () => {
		const staticData = registrationData();
		const registration = staticData.registration as IDataObject;
		delete registration.secretHash;
		registration.secret = SECRET;
		const server = await serve({}, { staticData });
		expect((await post(server.url, callEnded())).status).toBe(200);
		expect((await post(server.url, callEnded(), { secret: `${SECRET}x` })).status).toBe(401);
		expect(server.started).toHaveLength(1);
	});
});

describe('Existing Task or Template: the secret lives in a credential', () => {
	const credentialSecret = 'a-credential-secret-of-32-chars!';

	test("the credential's secret is the one accepted; it appears in no item and no answer", async () => {
		const server = await serve(
			{ connectTo: 'existing' },
			{
				staticData: {},
				credentials: { cisAutoCallWebhookSecretApi: { secret: credentialSecret } },
			},
		);
		const accepted = await post(server.url, callEnded(), { secret: credentialSecret });
		expect(accepted.status).toBe(200);
		const refused = [
			await post(server.url, callEnded(), { secret: SECRET }),
			await post(server.url, callEnded(), { secret: null }),
		];
		expect(refused.map((a) => a.status)).toEqual([401, 401]);
		expect(server.started).toHaveLength(1);
		const everything = JSON.stringify([
			startedItems(server),
			accepted.body,
			refused.map((a) => a.body),
			server.log,
		]);
		expect(everything).not.toContain(credentialSecret);
	});

	test('an earlier workflow with the secret typed into the node keeps working with it', async () => {
		const userSecret = 'my-own-secret-of-16+chars';
		const server = await serve({ connectTo: 'existing', secret: userSecret }, { staticData: {} });
		expect((await post(server.url, callEnded(), { secret: userSecret })).status).toBe(200);
		expect((await post(server.url, callEnded(), { secret: SECRET })).status).toBe(401);
		expect((await post(server.url, callEnded(), { secret: null })).status).toBe(401);
		expect(server.started).toHaveLength(1);
	});

	test("while the legacy field holds a value it is the secret used (as the panel says), not the credential's", async () => {
		const userSecret = 'my-own-secret-of-16+chars';
		const server = await serve(
			{ connectTo: 'existing', secret: userSecret },
			{
				staticData: {},
				credentials: { cisAutoCallWebhookSecretApi: { secret: credentialSecret } },
			},
		);
		expect((await post(server.url, callEnded(), { secret: userSecret })).status).toBe(200);
		expect((await post(server.url, callEnded(), { secret: credentialSecret })).status).toBe(401);
	});

	test('neither a credential nor a legacy secret: everything is refused', async () => {
		const server = await serve({ connectTo: 'existing' }, { staticData: {} });
		expect((await post(server.url, callEnded(), { secret: '' })).status).toBe(401);
		expect((await post(server.url, callEnded(), { secret: null })).status).toBe(401);
		expect(server.started).toHaveLength(0);
	});
});

describe('refused requests start nothing', () => {
	test('a wrong or missing secret gets 401', async () => {
		const server = await serve();
		for (const secret of [
			null,
			'',
			'wrong',
			`${SECRET}x`,
			SECRET.slice(0, -1),
			SECRET.toUpperCase(),
		]) {
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
		expect(answer.body).toEqual({
			received: false,
			error: 'This address may not send events to this trigger',
		});
		expect((await post(server.url, callEnded(), { secret: 'wrong' })).status).toBe(403);
		expect(server.started).toHaveLength(0);
	});

	test('an address inside the allow-list passes (loopback as IPv4 or IPv4-mapped IPv6)', async () => {
		for (const allowedAddresses of [
			'127.0.0.1',
			'127.0.0.0/8, 87.251.83.160/27',
			'::ffff:127.0.0.1',
		]) {
			const server = await serve({ options: { allowedAddresses } });
			expect((await post(server.url, callEnded())).status).toBe(200);
			expect(server.started).toHaveLength(1);
		}
	});

	test('malformed bodies get 400: not JSON, an array, no event', async () => {
		const server = await serve();
		const cases: Array<[unknown, { contentType?: string; raw?: boolean }, string]> = [
			[
				'this is not JSON',
				{ contentType: 'text/plain', raw: true },
				'Not an event: the body is not JSON',
			],
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

	test('a body nested thousands of levels deep gets 400, not 500; nothing is started', async () => {
		const server = await serve({ events: ALL_EVENTS });
		const depth = 20000;
		for (const head of [
			'{"event":"EFFICIENCY_REACHED","data":',
			`{"event":"CALL_ENDED","id":"${nextId()}","data":`,
		]) {
			const body = `${head}${'['.repeat(depth)}${']'.repeat(depth)}}`;
			const answer = await post(server.url, body, { raw: true });
			expect([answer.status, answer.body]).toEqual([
				400,
				{ received: false, error: 'Not an event: the body is nested deeper than 100 levels' },
			]);
		}
		expect(server.log.map((call) => call.error)).toEqual([undefined, undefined]);
		expect(server.started).toHaveLength(0);
		// and the trigger goes on working
		expect((await post(server.url, callEnded())).status).toBe(200);
	});
});

describe('filtered and repeated events: 200, nothing started', () => {
	test('an event that is not selected gets 200 (so the service does not re-send it)', async () => {
		const server = await serve({ events: ['CANDIDATE_CHANGED'] });
		const answer = await post(server.url, callEnded());
		expect(answer.status).toBe(200);
		expect(answer.body).toEqual({
			received: true,
			deliveryId: expect.stringMatching(/^[0-9a-f]{32}$/),
			ignored: 'event not selected',
		});
		const unknownEvent = await post(server.url, { event: 'SOMETHING_NEW', id: nextId() });
		expect(unknownEvent.status).toBe(200);
		expect(server.started).toHaveLength(0);
	});

	test('a repeat is the same body (whatever its key order): 200 and nothing started', async () => {
		const server = await serve();
		const payload = callEnded();
		expect((await post(server.url, payload)).status).toBe(200);
		const reordered = Object.fromEntries(Object.entries(payload).reverse());
		const repeat = await post(server.url, reordered);
		expect(repeat.status).toBe(200);
		expect(repeat.body).toEqual({
			received: true,
			deliveryId: deliveryIdOf(payload),
			ignored: 'repeated delivery',
		});
		expect(server.started).toHaveLength(1);
		// another call, the same call with another status, or any other difference is not a repeat
		expect((await post(server.url, { ...payload, id: nextId() })).status).toBe(200);
		expect((await post(server.url, { ...payload, status: 'NOANSWER' })).status).toBe(200);
		expect((await post(server.url, { ...payload, nps: 9 })).status).toBe(200);
		expect(server.started).toHaveLength(4);
	});

	test('genuine events are not dropped: PROCESS → PAUSED → PROCESS gives three executions', async () => {
		const server = await serve({ events: ['AUTOCALL_STATUS_CHANGED'] });
		const taskId = nextId();
		const change = (status: string, timestamp: string) => ({
			event: 'AUTOCALL_STATUS_CHANGED',
			taskId,
			status,
			timestamp,
		});
		for (const [status, at] of [
			['PROCESS', '10:00'],
			['PAUSED', '11:00'],
			['PROCESS', '12:00'],
		]) {
			expect((await post(server.url, change(status, `2026-11-01T${at}:00Z`))).status).toBe(200);
		}
		expect(startedItems(server).map((item) => item.status)).toEqual([
			'PROCESS',
			'PAUSED',
			'PROCESS',
		]);
	});

	test('an older state coming back is news: PROCESS, PAUSED, PROCESS (bodies without time) → 3 executions; the last again → still 3', async () => {
		const server = await serve({ events: ['AUTOCALL_STATUS_CHANGED'] });
		const taskId = nextId();
		const change = (status: string) => ({ event: 'AUTOCALL_STATUS_CHANGED', taskId, status });
		for (const status of ['PROCESS', 'PAUSED', 'PROCESS'])
			expect((await post(server.url, change(status))).body).toEqual({
				received: true,
				deliveryId: deliveryIdOf(change(status)),
			});
		const resent = await post(server.url, change('PROCESS'));
		expect(resent.body).toEqual({
			received: true,
			deliveryId: deliveryIdOf(change('PROCESS')),
			ignored: 'repeated delivery',
		});
		expect(startedItems(server).map((item) => item.status)).toEqual([
			'PROCESS',
			'PAUSED',
			'PROCESS',
		]);
	});

	test('genuine events are not dropped: two recalls of one call at different times give two executions', async () => {
		const server = await serve({ events: ['RECALL_SCHEDULED'] });
		const call = {
			event: 'RECALL_SCHEDULED',
			id: nextId(),
			taskId: 'task-1',
			candidateId: 'cand-1',
		};
		expect((await post(server.url, { ...call, recallAt: '2026-11-02T10:00:00Z' })).status).toBe(
			200,
		);
		expect((await post(server.url, { ...call, recallAt: '2026-11-02T15:00:00Z' })).status).toBe(
			200,
		);
		expect(startedItems(server).map((item) => item.recallAt)).toEqual([
			'2026-11-02T10:00:00Z',
			'2026-11-02T15:00:00Z',
		]);
	});

	test('webhook() writes nothing into static data (queue mode: a webhook process would save it over the registration)', async () => {
		// persistStaticData: one shared object, as when n8n saves what webhook() wrote
		const staticData = registrationData();
		const before = JSON.stringify(staticData);
		const server = await serve({}, { staticData, persistStaticData: true });
		const payload = callEnded();
		for (const body of [
			payload,
			payload,
			callEnded(),
			{ event: 'CANDIDATE_CHANGED', taskId: 'task-1' },
			{ nope: 1 },
		])
			await post(server.url, body);
		await post(server.url, payload, { secret: 'wrong' });
		expect(server.started).toHaveLength(3);
		expect(JSON.stringify(staticData)).toBe(before);
	});

	test('every item carries a deliveryId that another process computes the same, so a downstream node can drop repeats', async () => {
		const server = await serve();
		const payload = callEnded();
		await post(server.url, payload);
		await server.close();

		// A fresh module = another n8n process (a second webhook process, or after a restart):
		// it does not remember the delivery, but gives it the same deliveryId.
		let FreshTrigger: typeof CisAutoCallTrigger | undefined;
		jest.isolateModules(() => {
			FreshTrigger =
				// eslint-disable-next-line @typescript-eslint/no-require-imports
				require('../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node').CisAutoCallTrigger;
		});
		const other = await serve({}, { node: new FreshTrigger!() });
		const again = await post(other.url, Object.fromEntries(Object.entries(payload).reverse()));
		expect(again.body).toEqual({ received: true, deliveryId: deliveryIdOf(payload) });
		const ids = [...startedItems(server), ...startedItems(other)].map((item) => item.deliveryId);
		expect(ids).toEqual([deliveryIdOf(payload), deliveryIdOf(payload)]);
	});

	test('a workflow saved with the former "Deliveries to Remember" option still works', async () => {
		const server = await serve({ options: { rememberDeliveries: 2 } });
		const first = callEnded();
		await post(server.url, first);
		await post(server.url, callEnded());
		await post(server.url, callEnded());
		// remembered by time now, not by count: the first one is still a repeat
		expect((await post(server.url, first)).body).toMatchObject({ ignored: 'repeated delivery' });
		expect(server.started).toHaveLength(3);
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
