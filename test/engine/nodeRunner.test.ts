/**
 * runNode (nodeRunner.ts, here through runFixtureAction): the fixture action node through n8n-core's
 * WorkflowExecute: expressions per item, pairedItem, type versions, both kinds of authenticate, a login credential's
 * preAuthentication, Continue On Fail and the error output, binary data, required parameters.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import { CredentialStore } from './harness';
import { credentialTypes, runFixtureAction, useFakeRemote } from './fixtures';

const { remote, tokenCredentials, loginCredentials, callRequests } = useFakeRemote();

test('resolves expression parameters per item and keeps pairedItem', async () => {
	const result = await runFixtureAction({
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
	await runFixtureAction({
		typeVersion: 1,
		parameters: { phone: '1' },
		credentials: tokenCredentials(),
	});
	expect(callRequests()[0].body).toEqual({ phone: '1' });
});

test('generic authenticate puts the Bearer header and qs on the wire', async () => {
	await runFixtureAction({
		parameters: { phone: '1' },
		credentials: { fixtureApi: { baseUrl: remote.baseUrl, accessToken: 'tok-1', region: 'ru' } },
	});
	const [request] = callRequests();
	expect(request.headers.authorization).toBe('Bearer tok-1');
	expect(request.query).toEqual({ region: 'ru' });
});

test('credential defaults apply to generic authenticate (region default "eu")', async () => {
	await runFixtureAction({
		parameters: { phone: '1' },
		credentials: tokenCredentials(),
	});
	expect(callRequests()[0].query).toEqual({ region: 'eu' });
});

test('function authenticate is applied', async () => {
	const result = await runFixtureAction({
		parameters: { authentication: 'function', phone: '1' },
		credentials: { fixtureFnApi: { baseUrl: remote.baseUrl, apiKey: 'key-1' } },
	});
	expect(result.error).toBeUndefined();
	expect(callRequests()[0].headers['x-api-key']).toBe('key-1');
});

test('a wrong token surfaces as the node error (401, no preAuthentication on a static credential)', async () => {
	const result = await runFixtureAction({
		parameters: { phone: '1' },
		credentials: { fixtureApi: { baseUrl: remote.baseUrl, accessToken: 'wrong' } },
	});
	expect(result.error).toBeInstanceOf(NodeApiError);
	expect((result.error as NodeApiError).httpCode).toBe('401');
	expect(result.credentialStore.preAuthCalls).toBe(0);
});

test('login credential: preAuthentication runs once, the token is saved and reused', async () => {
	const result = await runFixtureAction({
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
	const again = await runFixtureAction({
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
	const result = await runFixtureAction({
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
	const result = await runFixtureAction({
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
	const result = await runFixtureAction({
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
	const result = await runFixtureAction({
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
	const result = await runFixtureAction({
		parameters: { phone: 'invalid' },
		credentials: tokenCredentials(),
	});
	expect(result.error).toBeInstanceOf(NodeOperationError);
	expect(result.error?.message).toBe('The phone number is invalid');
});

test('binary data: prepareBinaryData works (inline, like n8n without a binary data manager)', async () => {
	const result = await runFixtureAction({
		parameters: { path: '/recording', binaryProperty: 'data' },
		credentials: tokenCredentials(),
	});
	expect(result.error).toBeUndefined();
	expect(result.items[0].json).toEqual({ bytes: 6 });
	const binary = result.items[0].binary!.data;
	expect(binary).toMatchObject({
		mimeType: 'audio/mpeg',
		fileName: 'recording.mp3',
		fileExtension: 'mp3',
	});
	expect(Buffer.from(binary.data, 'base64')).toEqual(
		Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0xff]),
	);
	expect(remote.requests[0].headers.authorization).toBe('Bearer tok-1');
});

test('an empty required parameter is refused by the engine before the node runs', async () => {
	const result = await runFixtureAction({
		parameters: { path: '' },
		credentials: tokenCredentials(),
	});
	expect(result.error?.name).toBe('WorkflowHasIssuesError');
	expect(result.items).toEqual([]);
	expect(remote.requests).toHaveLength(0);
});

test('missing credential data is an error, not a silent pass', async () => {
	const result = await runFixtureAction({
		parameters: { phone: '1' },
	});
	expect(result.error).toBeDefined();
	expect(callRequests()).toHaveLength(0);
});
