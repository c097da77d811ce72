import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCallWebhookSecretApi } from '../../credentials/CisAutoCallWebhookSecretApi.credentials';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import {
	LOCAL_URL_MESSAGE,
	whyNotPublic,
} from '../../nodes/CisAutoCallTrigger/registration/publicUrl';
import { runWebhookMethod } from '../engine/harness';
import { startQuickSimulator, useSimulator } from '../lib/simulator';

/**
 * The guard where money is spent: New Call Task creates no campaign whose webhook URL the
 * internet cannot reach, unless the user turned on "Allow a Local Webhook URL" (saved, not an
 * expression). The refusal comes before any request, old tasks included.
 */

const credentialTypes = [
	new CisAutoCallApi(),
	new CisAutoCallLoginApi(),
	new CisAutoCallWebhookSecretApi(),
];
const sim = useSimulator(startQuickSimulator);

const parameters = (extra: INodeParameters = {}): INodeParameters => ({
	connectTo: 'newTask',
	authentication: 'accessToken',
	events: ['CALL_ENDED'],
	name: 'Guarded campaign',
	defaultExecData: 'bot-1',
	...extra,
});

async function create(
	webhookBaseUrl: string,
	params: INodeParameters,
	typeVersion?: number,
	staticData: IDataObject = {},
) {
	return await runWebhookMethod({
		node: new CisAutoCallTrigger(),
		credentialTypes,
		credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: 'sim-token' } },
		parameters: params,
		method: 'create',
		staticData,
		webhookBaseUrl,
		...(typeVersion === undefined ? {} : { typeVersion }),
	});
}

describe('which webhook URLs the internet cannot reach', () => {
	test.each([
		'http://localhost:5678/webhook/x',
		'http://n8n.localhost/webhook/x',
		'http://127.0.0.1:5678/webhook/x',
		'http://127.8.9.10/webhook/x',
		'http://[::1]:5678/webhook/x',
		'http://[::ffff:127.0.0.1]/webhook/x',
		'http://10.1.2.3/webhook/x',
		'http://172.16.0.1/webhook/x',
		'http://172.31.255.254/webhook/x',
		'http://192.168.1.20:5678/webhook/x',
		'http://169.254.10.10/webhook/x',
		'http://[fe80::1]/webhook/x',
		'http://[fd12:3456::1]/webhook/x',
		'http://n8n.local/webhook/x',
		'http://n8n:5678/webhook/x',
		'http://0.0.0.0:5678/webhook/x',
	])('%s is local', (url) => {
		expect(whyNotPublic(url)).toEqual(expect.any(String));
	});

	test.each([
		'https://n8n.example.com/webhook/x',
		'http://172.32.0.1/webhook/x',
		'http://172.15.255.255/webhook/x',
		'http://8.8.8.8/webhook/x',
		'http://[2001:db8::1]/webhook/x',
		'https://local.example.com/webhook/x',
	])('%s may be public', (url) => {
		expect(whyNotPublic(url)).toBeUndefined();
	});
});

describe('New Call Task on a local webhook URL', () => {
	test.each([
		['version 1.1', 1.1, 'http://192.168.1.20:5678/webhook/'],
		['version 1', 1, 'http://n8n.local/webhook/'],
	])(
		'%s (saved before the guard): registers as it did, so stored workflows run unchanged',
		async (_label, typeVersion, base) => {
			const staticData: IDataObject = {};
			const result = await create(base, parameters(), typeVersion, staticData);
			expect(result.error).toBeUndefined();
			expect(sim.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
		},
	);

	test.each([
		['localhost', 2, 'http://localhost:5678/webhook/'],
		['192.168.1.20', 2, 'http://192.168.1.20:5678/webhook/'],
		['n8n.local', 2, 'http://n8n.local/webhook/'],
	])(
		'version 2 at %s: refused with the documented message, nothing sent to the service',
		async (_label, typeVersion, base) => {
			const staticData: IDataObject = {};
			const result = await create(base, parameters(), typeVersion, staticData);
			expect(result.error?.message).toContain(LOCAL_URL_MESSAGE);
			expect(result.error?.message).toContain(new URL(base).hostname);
			const { description } = result.error as Error & { description?: string };
			expect(description).toContain('N8N_WEBHOOK_URL');
			expect(result.error?.message).toContain('N8N_WEBHOOK_URL');
			expect(description).toContain('Existing Task or Template');
			expect(description).toContain('Allow a Local Webhook URL');
			expect(sim.requests).toEqual([]);
			expect(staticData).toEqual({});
		},
	);

	test('refused before an old task is paused: nothing at all is sent', async () => {
		const staticData: IDataObject = {
			registration: {
				autoCallId: 'old-task',
				webhookUrl: 'https://n8n.example.com/webhook/x/webhook',
				fingerprint: 'f'.repeat(64),
				secretHash: 'a'.repeat(64),
				createdAt: '2026-01-01T00:00:00.000Z',
			},
		};
		const result = await create(
			'http://127.0.0.1:5678/webhook/',
			parameters(),
			undefined,
			staticData,
		);
		expect(result.error?.message).toContain(LOCAL_URL_MESSAGE);
		expect(sim.requests).toEqual([]);
		expect((staticData.registration as IDataObject).autoCallId).toBe('old-task');
	});

	test('"Allow a Local Webhook URL" lets the user go on: the task is created', async () => {
		const staticData: IDataObject = {};
		const result = await create(
			'http://127.0.0.1:5678/webhook/',
			parameters({ options: { allowLocalUrl: true } }),
			undefined,
			staticData,
		);
		expect(result.error).toBeUndefined();
		expect(sim.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
		expect(staticData.registration).toMatchObject({ autoCallId: expect.any(String) });
	});

	test('the override is not taken from an expression', async () => {
		const result = await create(
			'http://127.0.0.1:5678/webhook/',
			parameters({ options: { allowLocalUrl: '={{ true }}' } }),
		);
		expect(result.error?.message).toContain(LOCAL_URL_MESSAGE);
		expect(sim.requests).toEqual([]);
	});

	test('a public webhook URL needs no override (the request goes out)', async () => {
		const result = await create('https://n8n.example.com/webhook/', parameters());
		expect(result.error).toBeUndefined();
		expect(sim.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
	});

	test('a test listen and Existing Task mode create nothing and are not refused', async () => {
		const listen = await runWebhookMethod({
			node: new CisAutoCallTrigger(),
			credentialTypes,
			credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: 'sim-token' } },
			parameters: parameters(),
			method: 'create',
			staticData: {},
			webhookBaseUrl: 'http://localhost:5678/webhook-test/',
			mode: 'manual',
		});
		expect(listen.error).toBeUndefined();
		expect(sim.requests).toEqual([]);
	});
});
