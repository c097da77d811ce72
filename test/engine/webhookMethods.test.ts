/**
 * runWebhookMethod (webhookMethods.ts): a trigger's checkExists / create / delete in n8n-core's
 * HookContext, with the node's static data, against the fake remote.
 */
import { NodeApiError } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_WEBHOOK_ID, runWebhookMethod } from './harness';
import { credentialTypes, FixtureTrigger, useFakeRemote } from './fixtures';

const { remote, tokenCredentials } = useFakeRemote();

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
