import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import {
	CredentialStore,
	DEFAULT_WEBHOOK_ID,
	runCredentialTest,
	runNode,
	runWebhookMethod,
	startWebhookServer,
	type WebhookServer,
} from './harness';
import { FixtureAction } from './fixtures/FixtureAction.node';
import { FixtureApi } from './fixtures/FixtureApi.credentials';
import { FixtureFnApi } from './fixtures/FixtureFnApi.credentials';
import { FixtureLoginApi } from './fixtures/FixtureLoginApi.credentials';
import { FixtureTrigger } from './fixtures/FixtureTrigger.node';
import { startFakeRemote, type FakeRemote } from './fixtures/fakeRemote';

const credentialTypes = [new FixtureApi(), new FixtureLoginApi(), new FixtureFnApi()];

let remote: FakeRemote;

beforeEach(async () => {
	remote = await startFakeRemote();
});

afterEach(async () => {
	await remote.close();
});

const tokenCredentials = () => ({ fixtureApi: { baseUrl: remote.baseUrl, accessToken: 'tok-1' } });
const loginCredentials = () => ({
	fixtureLoginApi: { baseUrl: remote.baseUrl, email: 'user@example.com', password: 'secret' },
});
const callRequests = () => remote.requests.filter((r) => r.path === '/calls');

describe('runNode', () => {
	test('resolves expression parameters per item and keeps pairedItem', async () => {
		const result = await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { phone: '={{ $json.phone }}', path: '={{ "/calls" }}' },
			credentials: tokenCredentials(),
			items: [{ phone: '79000000001' }, { phone: '79000000002' }],
		});

		expect(result.error).toBeUndefined();
		expect(callRequests().map((r) => (r.body as IDataObject).phone)).toEqual([
			'79000000001',
			'79000000002',
		]);
		expect(result.items).toHaveLength(2);
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(result.items[1].json.received).toEqual({ phone: '79000000002', note: 'default-note' });
		expect(result.outputs).toHaveLength(1);
		expect(result.executionTimeMs).toBeGreaterThanOrEqual(0);
		expect(result.runData[result.nodeName][0].executionStatus).toBe('success');
	});

	test('uses the given typeVersion (parameter defaults follow displayOptions @version)', async () => {
		await runNode({
			node: new FixtureAction(),
			credentialTypes,
			typeVersion: 1,
			parameters: { phone: '1' },
			credentials: tokenCredentials(),
		});
		expect(callRequests()[0].body).toEqual({ phone: '1' });
	});

	test('generic authenticate puts the Bearer header and qs on the wire', async () => {
		await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { phone: '1' },
			credentials: { fixtureApi: { baseUrl: remote.baseUrl, accessToken: 'tok-1', region: 'ru' } },
		});
		const [request] = callRequests();
		expect(request.headers.authorization).toBe('Bearer tok-1');
		expect(request.query).toEqual({ region: 'ru' });
	});

	test('credential defaults apply to generic authenticate (region default "eu")', async () => {
		await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { phone: '1' },
			credentials: tokenCredentials(),
		});
		expect(callRequests()[0].query).toEqual({ region: 'eu' });
	});

	test('function authenticate is applied', async () => {
		const result = await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { authentication: 'function', phone: '1' },
			credentials: { fixtureFnApi: { baseUrl: remote.baseUrl, apiKey: 'key-1' } },
		});
		expect(result.error).toBeUndefined();
		expect(callRequests()[0].headers['x-api-key']).toBe('key-1');
	});

	test('a wrong token surfaces as the node error (401, no preAuthentication on a static credential)', async () => {
		const result = await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { phone: '1' },
			credentials: { fixtureApi: { baseUrl: remote.baseUrl, accessToken: 'wrong' } },
		});
		expect(result.error).toBeInstanceOf(NodeApiError);
		expect((result.error as NodeApiError).httpCode).toBe('401');
		expect(result.credentialStore.preAuthCalls).toBe(0);
	});

	test('login credential: preAuthentication runs once, the token is saved and reused', async () => {
		const result = await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { authentication: 'login', phone: '={{ $json.phone }}' },
			credentials: loginCredentials(),
			items: [{ phone: '1' }, { phone: '2' }, { phone: '3' }],
		});

		expect(result.error).toBeUndefined();
		expect(remote.logins).toBe(1);
		expect(result.credentialStore.preAuthCalls).toBe(1);
		expect(result.credentialStore.preAuthCallsByType).toEqual({ fixtureLoginApi: 1 });
		expect(callRequests().map((r) => r.headers.authorization)).toEqual([
			'Bearer session-1',
			'Bearer session-1',
			'Bearer session-1',
		]);
		expect(result.credentialStore.get('fixtureLoginApi')?.sessionToken).toBe('session-1');
		expect(result.credentialStore.updates).toHaveLength(1);

		// A second execution with the same store reuses the saved token: no login.
		const again = await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { authentication: 'login', phone: '4' },
			credentialStore: result.credentialStore,
		});
		expect(again.error).toBeUndefined();
		expect(remote.logins).toBe(1);
		expect(again.credentialStore.preAuthCalls).toBe(1);
	});

	test('login credential: on a 401 the token is renewed and the request retried once', async () => {
		const store = new CredentialStore(credentialTypes, {
			fixtureLoginApi: { ...loginCredentials().fixtureLoginApi, sessionToken: 'stale-token' },
		});
		const result = await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { authentication: 'login', phone: '={{ $json.phone }}' },
			credentialStore: store,
			items: [{ phone: '1' }, { phone: '2' }],
		});

		expect(result.error).toBeUndefined();
		expect(store.preAuthCalls).toBe(1);
		expect(store.preAuthForcedCalls).toBe(1);
		expect(callRequests().map((r) => r.headers.authorization)).toEqual([
			'Bearer stale-token',
			'Bearer session-1',
			'Bearer session-1',
		]);
		expect(result.items.map((i) => i.json.token)).toEqual(['session-1', 'session-1']);
		expect(store.get('fixtureLoginApi')?.sessionToken).toBe('session-1');
	});

	test('continueOnFail: failing items become error items with pairedItem', async () => {
		const result = await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { phone: '={{ $json.phone }}' },
			credentials: tokenCredentials(),
			items: [{ phone: '1' }, { phone: 'fail' }, { phone: 'invalid' }, { phone: '4' }],
			continueOnFail: true,
		});

		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(4);
		expect(result.items.map((i) => i.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
		expect(result.items[0].json.ok).toBe(true);
		expect(result.items[1].json.error).toEqual(expect.any(String));
		expect(result.items[2].json.error).toBe('The phone number is invalid');
		expect(result.items[3].json.ok).toBe(true);
	});

	test('onError continueErrorOutput: the engine routes error items to the error output', async () => {
		const result = await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { phone: '={{ $json.phone }}' },
			credentials: tokenCredentials(),
			items: [{ phone: '1' }, { phone: 'fail' }],
			onError: 'continueErrorOutput',
		});
		expect(result.error).toBeUndefined();
		expect(result.outputs).toHaveLength(2);
		expect(result.outputs[0].map((i) => i.pairedItem)).toEqual([{ item: 0 }]);
		expect(result.outputs[1]).toHaveLength(1);
		expect(result.outputs[1][0].pairedItem).toEqual({ item: 1 });
		expect(result.outputs[1][0].json.error).toEqual(expect.any(String));
	});

	test('an error without continueOnFail is reported in `error`', async () => {
		const result = await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { phone: '={{ $json.phone }}' },
			credentials: tokenCredentials(),
			items: [{ phone: '1' }, { phone: 'fail' }, { phone: '3' }],
		});
		expect(result.items).toEqual([]);
		expect(result.error).toBeInstanceOf(NodeApiError);
		expect((result.error as NodeApiError).httpCode).toBe('400');
		expect(result.error?.message).toBe(result.recordedError?.message);
		expect(result.recordedError).toMatchObject({ httpCode: '400' });
		expect(result.runData[result.nodeName][0].executionStatus).toBe('error');
		expect(callRequests()).toHaveLength(2); // the third item never ran
	});

	test('a NodeOperationError keeps its message', async () => {
		const result = await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { phone: 'invalid' },
			credentials: tokenCredentials(),
		});
		expect(result.error).toBeInstanceOf(NodeOperationError);
		expect(result.error?.message).toBe('The phone number is invalid');
	});

	test('binary data: prepareBinaryData works (inline, like n8n without a binary data manager)', async () => {
		const result = await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { path: '/recording', binaryProperty: 'data' },
			credentials: tokenCredentials(),
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toEqual({ bytes: 6 });
		const binary = result.items[0].binary!.data;
		expect(binary).toMatchObject({ mimeType: 'audio/mpeg', fileName: 'recording.mp3', fileExtension: 'mp3' });
		expect(Buffer.from(binary.data, 'base64')).toEqual(Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0xff]));
		expect(remote.requests[0].headers.authorization).toBe('Bearer tok-1');
	});

	test('an empty required parameter is refused by the engine before the node runs', async () => {
		const result = await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { path: '' },
			credentials: tokenCredentials(),
		});
		expect(result.error?.name).toBe('WorkflowHasIssuesError');
		expect(result.items).toEqual([]);
		expect(remote.requests).toHaveLength(0);
	});

	test('missing credential data is an error, not a silent pass', async () => {
		const result = await runNode({
			node: new FixtureAction(),
			credentialTypes,
			parameters: { phone: '1' },
		});
		expect(result.error).toBeDefined();
		expect(callRequests()).toHaveLength(0);
	});
});

describe('runCredentialTest', () => {
	test('OK when the declarative test request succeeds (with the credential auth applied)', async () => {
		const result = await runCredentialTest(new FixtureApi(), tokenCredentials().fixtureApi);
		expect(result).toMatchObject({ status: 'OK', message: 'Connection successful!' });
		const [request] = remote.requests;
		expect(request.path).toBe('/me');
		expect(request.headers.authorization).toBe('Bearer tok-1');
	});

	test('Error from a responseSuccessBody rule (2xx body describing a failure)', async () => {
		remote.disabledTokens.add('tok-1');
		const result = await runCredentialTest(new FixtureApi(), tokenCredentials().fixtureApi);
		expect(result).toMatchObject({
			status: 'Error',
			message: 'The service says the token is disabled',
		});
	});

	test('Error on an HTTP error status', async () => {
		const result = await runCredentialTest(new FixtureApi(), {
			baseUrl: remote.baseUrl,
			accessToken: 'wrong',
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/Unauthorized|401/);
	});

	test('Error when nothing listens', async () => {
		const closed = remote.baseUrl;
		await remote.close();
		const result = await runCredentialTest(new FixtureApi(), { baseUrl: closed, accessToken: 'x' });
		remote = await startFakeRemote();
		expect(result).toMatchObject({ status: 'Error', message: 'ECONNREFUSED' });
	});

	test('login credential: the test always logs in (like n8n), then calls /me', async () => {
		const ok = await runCredentialTest(new FixtureLoginApi(), {
			...loginCredentials().fixtureLoginApi,
			sessionToken: 'old-token',
		});
		expect(ok.status).toBe('OK');
		expect(remote.logins).toBe(1);
		expect(remote.requests.find((r) => r.path === '/me')?.headers.authorization).toBe(
			'Bearer session-1',
		);

		const bad = await runCredentialTest(new FixtureLoginApi(), {
			...loginCredentials().fixtureLoginApi,
			password: 'wrong',
		});
		expect(bad.status).toBe('Error');
	});
});

describe('runWebhookMethod', () => {
	const hookBase = {
		node: new FixtureTrigger(),
		credentialTypes,
		parameters: { events: 'CALL_ENDED' },
	};

	test('checkExists / create / checkExists / delete with node static data', async () => {
		const staticData: IDataObject = {};
		const common = {
			...hookBase,
			credentials: tokenCredentials(),
			staticData,
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook/',
		};
		const expectedUrl = `http://127.0.0.1:5678/webhook/${DEFAULT_WEBHOOK_ID}/webhook`;

		expect(await runWebhookMethod({ ...common, method: 'checkExists' })).toMatchObject({
			result: false,
		});

		const created = await runWebhookMethod({ ...common, method: 'create' });
		expect(created.error).toBeUndefined();
		expect(created.result).toBe(true);
		expect(created.webhookUrl).toBe(expectedUrl);
		expect(staticData).toEqual({ hookId: 'hook-1', secret: 'secret-1' });
		const createRequest = remote.requests.find((r) => r.method === 'POST' && r.path === '/hooks');
		expect(createRequest?.headers.authorization).toBe('Bearer tok-1');
		expect(createRequest?.body).toEqual({
			url: expectedUrl,
			events: 'CALL_ENDED',
			activation: 'activate',
			mode: 'trigger',
		});

		expect(await runWebhookMethod({ ...common, method: 'checkExists' })).toMatchObject({
			result: true,
		});

		const deleted = await runWebhookMethod({ ...common, method: 'delete' });
		expect(deleted.result).toBe(true);
		expect(staticData).toEqual({});
		expect(remote.hooks.size).toBe(0);
	});

	test('checkExists clears static data when the remote hook is gone (404 from the real helper)', async () => {
		const staticData: IDataObject = { hookId: 'hook-404', secret: 's' };
		const result = await runWebhookMethod({
			...hookBase,
			credentials: tokenCredentials(),
			staticData,
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
			method: 'checkExists',
		});
		expect(result).toMatchObject({ result: false });
		expect(staticData).toEqual({});
	});

	test('manual (test) mode builds the URL from the given test base and a custom webhookId', async () => {
		const staticData: IDataObject = {};
		const result = await runWebhookMethod({
			...hookBase,
			credentials: tokenCredentials(),
			staticData,
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook-test/',
			webhookId: 'abc',
			mode: 'manual',
			method: 'create',
		});
		expect(result.result).toBe(true);
		const hook = [...remote.hooks.values()][0];
		expect(hook.url).toBe('http://127.0.0.1:5678/webhook-test/abc/webhook');
		expect(remote.requests.at(-1)?.body).toMatchObject({ activation: 'manual', mode: 'manual' });
	});

	test('an error thrown by the method is returned, static data untouched', async () => {
		const staticData: IDataObject = {};
		const result = await runWebhookMethod({
			...hookBase,
			credentials: { fixtureApi: { baseUrl: remote.baseUrl, accessToken: 'wrong' } },
			staticData,
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
			method: 'create',
		});
		expect(result.result).toBeUndefined();
		expect(result.error).toBeInstanceOf(NodeApiError);
		expect(staticData).toEqual({});
	});
});

describe('startWebhookServer', () => {
	let server: WebhookServer | undefined;

	afterEach(async () => {
		await server?.close();
		server = undefined;
	});

	const start = async (staticData: IDataObject, extra: { persistStaticData?: boolean; checkSecret?: boolean } = {}) =>
		(server = await startWebhookServer({
			node: new FixtureTrigger(),
			credentialTypes,
			credentials: tokenCredentials(),
			parameters: { events: 'CALL_ENDED', checkSecret: extra.checkSecret ?? true },
			staticData,
			persistStaticData: extra.persistStaticData,
		}));

	const post = async (url: string, body: string | undefined, headers: Record<string, string> = {}) => {
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
		expect(s.started[0][0][0].json).toMatchObject({ body: 'hello', bodyType: 'string', rawBody: 'hello' });

		await post(s.url, 'a=1&b=2', { 'content-type': 'application/x-www-form-urlencoded' });
		expect(s.started[1][0][0].json).toMatchObject({ body: { a: '1', b: '2' }, bodyType: 'object' });

		await post(s.url, 'binary-ish', { 'content-type': 'application/octet-stream' });
		expect(s.started[2][0][0].json).toMatchObject({ bodyType: 'undefined', rawBody: 'binary-ish' });
	});

	test('an invalid JSON body is refused with 422 before webhook() runs', async () => {
		const s = await start({}, { checkSecret: false });
		const response = await post(s.url, '{not json', { 'content-type': 'application/json' });
		expect(response.status).toBe(422);
		expect(JSON.parse(response.text)).toMatchObject({ code: 422, message: 'Failed to parse request body' });
		expect(s.calls).toBe(0);
	});

	test('req.ip is the socket address unless proxyHops trusts X-Forwarded-For (N8N_PROXY_HOPS)', async () => {
		const direct = await start({}, { checkSecret: false });
		const forwarded = { 'content-type': 'application/json', 'x-forwarded-for': '87.251.83.190' };
		await post(direct.url, '{}', forwarded);
		expect(direct.started[0][0][0].json).toMatchObject({ ip: '127.0.0.1', remoteAddress: '127.0.0.1' });
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
});
