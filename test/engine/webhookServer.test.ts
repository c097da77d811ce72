/**
 * startWebhookServer (webhookServer.ts): the fixture trigger's production webhook over real HTTP,
 * webhook() in n8n-core's WebhookContext, answered like n8n's live webhooks.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	DEFAULT_WEBHOOK_ID,
	runWebhookMethod,
	startWebhookServer,
	type WebhookServer,
} from './harness';
import { credentialTypes, FixtureTrigger, useFakeRemote } from './fixtures';

const { remote, tokenCredentials } = useFakeRemote();

let server: WebhookServer | undefined;

afterEach(async () => {
	await server?.close();
	server = undefined;
});

const start = async (
	staticData: IDataObject,
	extra: { persistStaticData?: boolean; checkSecret?: boolean } = {},
) =>
	(server = await startWebhookServer({
		node: new FixtureTrigger(),
		credentialTypes,
		credentials: tokenCredentials(),
		parameters: { events: 'CALL_ENDED', checkSecret: extra.checkSecret ?? true },
		staticData,
		persistStaticData: extra.persistStaticData,
	}));

const post = async (
	url: string,
	body: string | undefined,
	headers: Record<string, string> = {},
) => {
	const response = await fetch(url, { method: 'POST', body, headers });
	const text = await response.text();
	return { status: response.status, text, headers: response.headers };
};

test('a JSON request reaches webhook() and starts the workflow', async () => {
	const s = await start({ secret: 's3' });
	expect(s.url).toBe(`${s.baseUrl}/${DEFAULT_WEBHOOK_ID}/webhook`);

	const response = await post(
		`${s.url}?source=test`,
		JSON.stringify({ event: 'CALL_ENDED', id: 7 }),
		{ 'content-type': 'application/json', 'x-fixture-secret': 's3', 'x-custom': 'hello' },
	);

	expect(response.status).toBe(200);
	expect(JSON.parse(response.text)).toEqual({ message: 'Workflow was started' });
	expect(s.calls).toBe(1);
	expect(s.started).toHaveLength(1);
	const [item] = s.started[0][0];
	expect(item.json).toMatchObject({
		body: { event: 'CALL_ENDED', id: 7 },
		bodyType: 'object',
		query: { source: 'test' },
		rawBody: '{"event":"CALL_ENDED","id":7}',
		ip: '127.0.0.1',
		remoteAddress: '127.0.0.1',
		contentType: 'application/json',
		customHeader: 'hello',
		webhookUrl: s.url,
		webhookName: 'default',
	});
});

test('a 401 written by the node reaches the client and nothing starts', async () => {
	const s = await start({ secret: 's3' });
	const response = await post(s.url, JSON.stringify({ event: 'CALL_ENDED' }), {
		'content-type': 'application/json',
		'x-fixture-secret': 'wrong',
	});
	expect(response.status).toBe(401);
	expect(response.text).toBe('Unauthorized');
	expect(s.calls).toBe(1);
	expect(s.started).toHaveLength(0);
});

test('webhookResponse, {} and a throwing webhook() answer like n8n', async () => {
	const s = await start({}, { checkSecret: false });
	const json = { 'content-type': 'application/json' };

	const ping = await post(s.url, JSON.stringify({ event: 'ping' }), json);
	expect(ping).toMatchObject({ status: 200, text: 'pong' });
	expect(ping.headers.get('content-security-policy')).toContain('sandbox');

	const ignored = await post(s.url, JSON.stringify({ event: 'ignored' }), json);
	expect(ignored.status).toBe(200);
	expect(JSON.parse(ignored.text)).toEqual({ message: 'Webhook call received' });

	const boom = await post(s.url, JSON.stringify({ event: 'explode' }), json);
	expect(boom.status).toBe(500);
	expect(JSON.parse(boom.text)).toEqual({
		code: 0,
		message: 'Workflow Webhook Error: Workflow could not be started!',
	});
	expect(s.log.at(-1)?.error?.message).toBe('webhook() failed on purpose');

	expect(s.calls).toBe(3);
	expect(s.started).toHaveLength(0);
});

test('non-JSON bodies: text/plain arrives as a string, other types only as rawBody', async () => {
	const s = await start({}, { checkSecret: false });

	await post(s.url, 'hello', { 'content-type': 'text/plain' });
	expect(s.started[0][0][0].json).toMatchObject({
		body: 'hello',
		bodyType: 'string',
		rawBody: 'hello',
	});

	await post(s.url, 'a=1&b=2', { 'content-type': 'application/x-www-form-urlencoded' });
	expect(s.started[1][0][0].json).toMatchObject({ body: { a: '1', b: '2' }, bodyType: 'object' });

	await post(s.url, 'binary-ish', { 'content-type': 'application/octet-stream' });
	expect(s.started[2][0][0].json).toMatchObject({ bodyType: 'undefined', rawBody: 'binary-ish' });
});

test('an invalid JSON body is refused with 422 before webhook() runs', async () => {
	const s = await start({}, { checkSecret: false });
	const response = await post(s.url, '{not json', { 'content-type': 'application/json' });
	expect(response.status).toBe(422);
	expect(JSON.parse(response.text)).toMatchObject({
		code: 422,
		message: 'Failed to parse request body',
	});
	expect(s.calls).toBe(0);
});

test('req.ip is the socket address unless proxyHops trusts X-Forwarded-For (N8N_PROXY_HOPS)', async () => {
	const direct = await start({}, { checkSecret: false });
	const forwarded = { 'content-type': 'application/json', 'x-forwarded-for': '87.251.83.190' };
	await post(direct.url, '{}', forwarded);
	expect(direct.started[0][0][0].json).toMatchObject({
		ip: '127.0.0.1',
		remoteAddress: '127.0.0.1',
	});
	await direct.close();

	server = await startWebhookServer({
		node: new FixtureTrigger(),
		credentialTypes,
		credentials: tokenCredentials(),
		parameters: { checkSecret: false },
		staticData: {},
		proxyHops: 1,
	});
	await post(server.url, '{}', { ...forwarded, 'x-forwarded-for': '10.0.0.9, 87.251.83.190' });
	expect(server.started[0][0][0].json).toMatchObject({
		ip: '87.251.83.190',
		remoteAddress: '127.0.0.1',
	});
});

test('unknown path or method gets 404', async () => {
	const s = await start({}, { checkSecret: false });
	expect((await post(`${s.baseUrl}/nope/webhook`, '{}')).status).toBe(404);
	const get = await fetch(s.url);
	await get.text();
	expect(get.status).toBe(404);
	expect(s.calls).toBe(0);
});

test('static data written in webhook() is dropped by default (n8n 2.x)', async () => {
	const staticData: IDataObject = {};
	const s = await start(staticData, { checkSecret: false });
	const json = { 'content-type': 'application/json' };
	await post(s.url, JSON.stringify({ event: 'A' }), json);
	await post(s.url, JSON.stringify({ event: 'B' }), json);
	expect(s.started.map((w) => w[0][0].json.seen)).toEqual([1, 1]);
	expect(staticData).toEqual({});
});

test('persistStaticData: true keeps what webhook() wrote (n8n 1.x)', async () => {
	const staticData: IDataObject = {};
	const s = await start(staticData, { persistStaticData: true, checkSecret: false });
	const json = { 'content-type': 'application/json' };
	await post(s.url, JSON.stringify({ event: 'A' }), json);
	await post(s.url, JSON.stringify({ event: 'B' }), json);
	expect(s.started.map((w) => w[0][0].json.seen)).toEqual([1, 2]);
	expect(staticData).toEqual({ seen: 2 });
});

test('full lifecycle: create registers the served URL, the remote delivers with the secret', async () => {
	const staticData: IDataObject = {};
	const s = await start(staticData);
	const created = await runWebhookMethod({
		node: new FixtureTrigger(),
		credentialTypes,
		credentials: tokenCredentials(),
		parameters: { events: 'CALL_ENDED' },
		staticData,
		webhookBaseUrl: s.baseUrl,
		method: 'create',
	});
	expect(created.result).toBe(true);
	const hook = remote.hooks.get(staticData.hookId as string)!;
	expect(hook.url).toBe(s.url);

	const response = await post(hook.url, JSON.stringify({ event: 'CALL_ENDED' }), {
		'content-type': 'application/json',
		'x-fixture-secret': hook.secret,
	});
	expect(response.status).toBe(200);
	expect(s.started).toHaveLength(1);
});
