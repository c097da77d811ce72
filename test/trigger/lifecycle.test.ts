// The trigger's checkExists / create / delete, run in n8n-core's real HookContext (engine
// harness) against the service simulator.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCallWebhookSecretApi } from '../../credentials/CisAutoCallWebhookSecretApi.credentials';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import { hashSecret } from '../../nodes/CisAutoCallTrigger/secret/hashing';
import { ActivationRefusal } from '../../nodes/CisAutoCallTrigger/registration/settings';
import { EVENT_NAMES } from '../../nodes/shared/events';
import { DEFAULT_WEBHOOK_ID, runWebhookMethod } from '../engine/harness';
import { startQuickSimulator, useSimulator } from '../lib/simulator';
import { newTaskParameters } from './fixtures';

const CREATE_PATH = '/cis/api/v1/telephony/autoCall';
const BASE = 'http://127.0.0.1:5678/webhook/';
const URL_OF_NODE = `http://127.0.0.1:5678/webhook/${DEFAULT_WEBHOOK_ID}/webhook`;
const ALL_EVENTS = EVENT_NAMES;

const sim = useSimulator(startQuickSimulator, { settle: true, emptyAfter: true });
const node = new CisAutoCallTrigger();
const credentialTypes = [
	new CisAutoCallApi(),
	new CisAutoCallLoginApi(),
	new CisAutoCallWebhookSecretApi(),
];

const campaign = (overrides: INodeParameters = {}) =>
	newTaskParameters('Trigger campaign', { partialResults: true, delay: 2, ...overrides });

/** The trigger activated (one task created), then deactivated: its static data and the registration it had. */
async function activatedThenDeactivated() {
	const staticData: IDataObject = {};
	await run('create', staticData);
	const first = staticData.registration as IDataObject;
	await run('delete', staticData);
	return { staticData, first };
}

function run(
	method: 'checkExists' | 'create' | 'delete',
	staticData: IDataObject,
	parameters: INodeParameters = campaign(),
	extra: {
		webhookBaseUrl?: string;
		webhookId?: string;
		mode?: 'trigger' | 'internal' | 'manual';
	} = {},
) {
	return runWebhookMethod({
		node,
		credentialTypes,
		credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: 'sim-token' } },
		parameters,
		method,
		staticData,
		webhookBaseUrl: extra.webhookBaseUrl ?? BASE,
		webhookId: extra.webhookId,
		mode: extra.mode,
		// Workflows stored with version 1.1 (every field on the panel) register and run unchanged;
		// test/trigger/shortPanel.test.ts holds version 2 to the same requests.
		typeVersion: 1.1,
	});
}

const createRequests = () =>
	sim.requests.filter((r) => r.method === 'POST' && r.path === CREATE_PATH);
/** The secret in the URL a task was registered with (the simulator keeps what it received). */
const registeredSecret = (autoCallId: string): string => {
	const task = sim.state.tasks.get(autoCallId);
	return new URL(task?.body.webhookUrls[0].url as string).searchParams.get('secret') as string;
};

describe('New Call Task: create', () => {
	test('sends exactly one POST telephony/autoCall with this trigger as webhook target, and stores the registration', async () => {
		const staticData: IDataObject = {};
		const created = await run('create', staticData);
		expect(created.error).toBeUndefined();
		expect(created.result).toBe(true);
		expect(created.webhookUrl).toBe(URL_OF_NODE);

		const requests = createRequests();
		expect(requests).toHaveLength(1);
		const body = requests[0].body;
		expect(requests[0].status).toBe(200);
		expect(body).toMatchObject({
			name: 'Trigger campaign',
			defaultExec: 'robot',
			defaultExecData: 'bot-1',
		});
		expect(body.webhookUrls).toHaveLength(1);
		const [target] = body.webhookUrls;
		const registration = staticData.registration as IDataObject;
		const secret = new URL(target.url as string).searchParams.get('secret') as string;
		expect(secret).toMatch(/^[0-9a-f]{48}$/);
		expect(target.url).toBe(`${URL_OF_NODE}?secret=${secret}`);
		// Static data (which exports and the public API show) holds a hash of the secret, not the secret.
		expect(registration.secretHash).toBe(hashSecret(secret));
		expect(JSON.stringify(staticData)).not.toContain(secret);
		expect(target.partialResults).toBe(true);
		expect(target.delay).toBe(2);
		expect(Object.keys(target.events).sort()).toEqual([...ALL_EVENTS].sort());
		for (const name of ALL_EVENTS) {
			expect(target.events[name]).toEqual({
				name,
				value: name === 'CALL_ENDED' || name === 'CANDIDATE_CHANGED',
			});
		}

		const task = sim.state.tasks.get(registration.autoCallId as string);
		expect(task).toBeDefined();
		expect(task?.source).toBe('autoCall');
		expect(registration).toEqual({
			autoCallId: task?.id,
			webhookUrl: URL_OF_NODE,
			fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
			secretHash: hashSecret(secret),
			createdAt: expect.any(String),
		});
	});

	test('the task settings are the ones of Call Task → Create (shared fields)', async () => {
		const staticData: IDataObject = {};
		const created = await run(
			'create',
			staticData,
			campaign({
				secondExec: 'ch',
				secondExecData: 'channel-7',
				cpsMode: 'perSecond',
				callsPerSecond: 3,
				redialStrategyEn: true,
				redialRules: { noAnswer: { redial: true, time: 600, count: 2 } },
				additionalFields: {
					lifetime: 3600,
					useTr: true,
					allowCallTimeFrom: '09:00',
					allowCallTimeTo: '20:00',
				},
			}),
		);
		expect(created.error).toBeUndefined();
		const { body } = createRequests()[0];
		expect(body).toMatchObject({
			secondExec: 'ch',
			secondExecData: 'channel-7',
			cps: 1.03,
			lifetime: 3600,
			additionalOptions: { useTr: true, allowCallTimeFrom: 32400, allowCallTimeTo: 72000 },
			redialStrategyOptions: {
				redialStrategyEn: true,
				noAnswer: { redial: true, time: 600, count: 2 },
			},
		});
	});

	test('a failing create throws and stores nothing; its outcome is unknown, so the refusal is final (n8n does not create again)', async () => {
		sim.injectFault({ method: 'POST', path: CREATE_PATH, status: 500, body: { error: 'boom' } });
		const staticData: IDataObject = {};
		const created = await run('create', staticData);
		expect(created.error).toBeInstanceOf(ActivationRefusal);
		expect(created.error?.message).toMatch(
			/^Outcome unknown: the call task .*may have been created/,
		);
		expect((created.error as ActivationRefusal).description).toMatch(/500/);
		expect(created.result).toBeUndefined();
		expect(staticData.registration).toBeUndefined();
		expect(sim.state.tasks.size).toBe(0);
		// and the next activation tries again
		expect((await run('checkExists', staticData)).result).toBe(false);
	});

	test('an unreachable service throws and stores nothing', async () => {
		const staticData: IDataObject = {};
		const created = await runWebhookMethod({
			node,
			credentialTypes,
			credentials: { cisAutoCallApi: { baseUrl: 'http://127.0.0.1:9', accessToken: 'sim-token' } },
			parameters: campaign(),
			method: 'create',
			staticData,
			webhookBaseUrl: BASE,
		});
		expect(created.error).toBeInstanceOf(NodeApiError);
		expect(staticData.registration).toBeUndefined();
	}, 20000);

	test('a rejected token throws and stores nothing; the error carries no secret', async () => {
		const staticData: IDataObject = {};
		const created = await runWebhookMethod({
			node,
			credentialTypes,
			credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: 'wrong-token' } },
			parameters: campaign(),
			method: 'create',
			staticData,
			webhookBaseUrl: BASE,
		});
		expect(created.error).toBeInstanceOf(NodeApiError);
		expect(created.error?.message).toMatch(/401/);
		expect(JSON.stringify(created.error)).not.toContain('wrong-token');
		const sent = createRequests()[0]?.body?.webhookUrls?.[0]?.url as string;
		const secret = new URL(sent).searchParams.get('secret') as string;
		expect(JSON.stringify(created.error)).not.toContain(secret);
		expect(created.error?.message).not.toContain(secret);
		expect(staticData.registration).toBeUndefined();
	});

	test('bad input is refused before any request, naming the field', async () => {
		const staticData: IDataObject = {};
		const created = await run('create', staticData, campaign({ name: '' }));
		// A refusal n8n 2.x does not try again (settings.ts ActivationRefusal).
		expect(created.error).toBeInstanceOf(ActivationRefusal);
		expect(created.error?.message).toMatch(/name/);
		expect(createRequests()).toHaveLength(0);
		expect(staticData.registration).toBeUndefined();
	});

	test('settings that make the trigger unusable fail the activation', async () => {
		const noEvents = await run('checkExists', {}, campaign({ events: [] }));
		expect(noEvents.error).toBeInstanceOf(ActivationRefusal);
		expect(noEvents.error?.message).toMatch(/No event/);
		const badList = await run(
			'create',
			{},
			campaign({ options: { allowedAddresses: '87.251.83.160/27, nope' } }),
		);
		expect(badList.error?.message).toMatch(/nope/);
		expect(createRequests()).toHaveLength(0);
	});
});

describe('New Call Task: checkExists', () => {
	async function createdRegistration(parameters = campaign()) {
		const staticData: IDataObject = {};
		const created = await run('create', staticData, parameters);
		expect(created.error).toBeUndefined();
		return staticData;
	}

	test('false without a stored registration', async () => {
		expect((await run('checkExists', {})).result).toBe(false);
		expect(createRequests()).toHaveLength(0);
	});

	test('true after create with the same URL and configuration; re-activation creates no second task', async () => {
		const staticData = await createdRegistration();
		const before = JSON.stringify(staticData);
		// n8n's createWebhookIfNotExists: checkExists, and create only when it is false.
		const exists = await run('checkExists', staticData);
		expect(exists.error).toBeUndefined();
		expect(exists.result).toBe(true);
		expect(createRequests()).toHaveLength(1);
		expect(sim.state.tasks.size).toBe(1);
		expect(JSON.stringify(staticData)).toBe(before);
	});

	test('false after a change of the task settings, events, partial results or delay', async () => {
		const staticData = await createdRegistration();
		const changes: INodeParameters[] = [
			{ name: 'Another name' },
			{ defaultExecData: 'bot-2' },
			{ events: ['CALL_ENDED'] },
			{ events: ['CANDIDATE_CHANGED', 'CALL_ENDED', 'CALL_REDIRECTED'] },
			{ partialResults: false },
			{ delay: 5 },
			{ additionalFields: { lifetime: 60 } },
		];
		for (const change of changes) {
			const result = await run('checkExists', { ...staticData }, campaign(change));
			expect([change, result.result]).toEqual([change, false]);
		}
		// the order of the selected events does not matter
		const reordered = await run(
			'checkExists',
			staticData,
			campaign({ events: ['CANDIDATE_CHANGED', 'CALL_ENDED'] }),
		);
		expect(reordered.result).toBe(true);
		// options (allow-list, repeats) are not part of the remote registration
		const optionsOnly = await run(
			'checkExists',
			staticData,
			campaign({ options: { ignoreRepeats: false } }),
		);
		expect(optionsOnly.result).toBe(true);
	});

	test('false when the webhook URL changed (other n8n address or other webhook id)', async () => {
		const staticData = await createdRegistration();
		expect(
			(
				await run('checkExists', staticData, undefined, {
					webhookBaseUrl: 'https://n8n.example.com/webhook/',
				})
			).result,
		).toBe(false);
		expect(
			(await run('checkExists', staticData, undefined, { webhookId: 'another-webhook-id' })).result,
		).toBe(false);
	});

	test('a changed configuration then registers anew: a second task with a new secret', async () => {
		const staticData = await createdRegistration();
		const first = staticData.registration as IDataObject;
		const changed = campaign({ events: ['CALL_ENDED'] });
		expect((await run('checkExists', staticData, changed)).result).toBe(false);
		expect((await run('create', staticData, changed)).error).toBeUndefined();
		const second = staticData.registration as IDataObject;
		expect(second.autoCallId).not.toBe(first.autoCallId);
		expect(second.secretHash).not.toBe(first.secretHash);
		expect(registeredSecret(second.autoCallId as string)).not.toBe(
			registeredSecret(first.autoCallId as string),
		);
		expect(createRequests()).toHaveLength(2);
		expect((await run('checkExists', staticData, changed)).result).toBe(true);
	});
});

describe('New Call Task: delete', () => {
	test('parks the registration; a task that never started is left as it is (only read)', async () => {
		const staticData: IDataObject = {};
		await run('create', staticData);
		const first = staticData.registration as IDataObject;
		const requestsBefore = sim.requests.length;
		const deleted = await run('delete', staticData);
		expect(deleted.error).toBeUndefined();
		expect(deleted.result).toBe(true);
		expect(staticData.registration).toBeUndefined();
		expect(staticData.parkedRegistration).toEqual(first);
		expect(sim.requests.slice(requestsBefore).map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET ${CREATE_PATH}/${first.autoCallId as string}`,
		]);
		expect(sim.state.tasks.get(first.autoCallId as string)?.status).toBe('BLANK');
		expect((await run('checkExists', staticData)).result).toBe(false);
	});

	test('deactivate then re-activate with unchanged settings takes the same task back: no second task', async () => {
		const { staticData, first } = await activatedThenDeactivated();
		expect((await run('checkExists', staticData)).result).toBe(false);
		const again = await run('create', staticData);
		expect(again.error).toBeUndefined();
		expect(createRequests()).toHaveLength(1);
		expect(staticData.registration).toEqual(first);
		expect(staticData.parkedRegistration).toBeUndefined();
		expect((await run('checkExists', staticData)).result).toBe(true);
	});

	test('re-activation with changed settings creates a new task with a new secret', async () => {
		const { staticData, first } = await activatedThenDeactivated();
		await run('create', staticData, campaign({ name: 'Renamed campaign' }));
		expect(createRequests()).toHaveLength(2);
		const second = staticData.registration as IDataObject;
		expect(second.autoCallId).not.toBe(first.autoCallId);
		expect(second.secretHash).not.toBe(first.secretHash);
		expect(staticData.parkedRegistration).toBeUndefined();
	});

	test('succeeds without a registration (n8n calls it after a failed create)', async () => {
		const deleted = await run('delete', {});
		expect(deleted.result).toBe(true);
		expect(deleted.error).toBeUndefined();
		expect(sim.requests).toHaveLength(0);
	});

	test('a registration stored with its secret in clear (earlier versions) is kept as a hash from the next activation on', async () => {
		const staticData: IDataObject = {};
		await run('create', staticData);
		const registration = staticData.registration as IDataObject;
		const secret = registeredSecret(registration.autoCallId as string);
		const legacy: IDataObject = { ...registration, secret };
		delete legacy.secretHash;
		const oldStaticData: IDataObject = { registration: legacy, recentDeliveries: ['k1', 'k2'] };
		const exists = await run('checkExists', oldStaticData);
		expect(exists.result).toBe(true);
		expect(oldStaticData).toEqual({ registration });
		expect(JSON.stringify(oldStaticData)).not.toContain(secret);
	});
});

describe('test listens (manual mode)', () => {
	test('create no task: checkExists false, create true, nothing sent, nothing stored', async () => {
		const staticData: IDataObject = {};
		const exists = await run('checkExists', staticData, undefined, {
			mode: 'manual',
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook-test/',
		});
		expect(exists.result).toBe(false);
		const created = await run('create', staticData, undefined, {
			mode: 'manual',
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook-test/',
		});
		expect(created.error).toBeUndefined();
		expect(created.result).toBe(true);
		expect(sim.requests).toHaveLength(0);
		expect(staticData.registration).toBeUndefined();
	});
});

describe('Existing Task or Template', () => {
	const existing = (overrides: INodeParameters = {}): INodeParameters => ({
		connectTo: 'existing',
		secret: 'a-secret-of-my-own-choice',
		events: ['CALL_ENDED'],
		...overrides,
	});

	test('registers nothing remotely: checkExists true, create true, delete true, no request', async () => {
		const staticData: IDataObject = {};
		expect((await run('checkExists', staticData, existing())).result).toBe(true);
		expect((await run('create', staticData, existing())).result).toBe(true);
		expect((await run('delete', staticData, existing())).result).toBe(true);
		expect(sim.requests).toHaveLength(0);
		expect(staticData).toEqual({});
	});

	test('needs no credentials', async () => {
		const result = await runWebhookMethod({
			node,
			credentialTypes,
			credentials: {},
			parameters: existing(),
			method: 'checkExists',
			staticData: {},
			webhookBaseUrl: BASE,
		});
		expect(result.error).toBeUndefined();
		expect(result.result).toBe(true);
	});

	test('a missing or short secret fails the activation', async () => {
		for (const secret of ['', 'short', '   ']) {
			const result = await run('checkExists', {}, existing({ secret }));
			expect(result.error).toBeInstanceOf(NodeOperationError);
			expect(result.error?.message).toMatch(/secret/);
		}
	});

	const withCredential = (secret: string, method: 'checkExists' | 'create' = 'checkExists') =>
		runWebhookMethod({
			node,
			credentialTypes,
			credentials: { cisAutoCallWebhookSecretApi: { secret } },
			parameters: existing({ secret: '' }),
			method,
			staticData: {},
			webhookBaseUrl: BASE,
		});

	test('the secret can live in a "CIS Auto-Call Webhook Secret API" credential instead of the workflow', async () => {
		const secret = 'a-credential-secret-of-32-chars!';
		for (const method of ['checkExists', 'create'] as const) {
			const result = await withCredential(secret, method);
			expect([method, result.error, result.result]).toEqual([method, undefined, true]);
		}
		const short = await withCredential('short');
		expect(short.error).toBeInstanceOf(NodeOperationError);
		expect(short.error?.message).toMatch(/secret is missing or shorter than 16/);
		expect(sim.requests).toHaveLength(0);
	});

	test("the credential's own test (run by n8n when it is saved) checks the length and sends nothing", async () => {
		const test = node.methods.credentialTest.cisAutoCallWebhookSecretTest;
		const call = (secret: unknown) =>
			test.call({} as never, {
				id: '1',
				name: 'x',
				type: 'cisAutoCallWebhookSecretApi',
				data: { secret } as never,
			});
		expect(await call('a-credential-secret-of-32-chars!')).toMatchObject({ status: 'OK' });
		expect(await call('too-short')).toEqual({
			status: 'Error',
			message: 'The secret has 9 characters; use at least 16',
		});
		expect(await call(undefined)).toMatchObject({ status: 'Error' });
		// the node declares it for its credential, so n8n finds it
		const declared = node.description.credentials?.find(
			(c) => c.name === 'cisAutoCallWebhookSecretApi',
		);
		expect(declared).toMatchObject({
			testedBy: 'cisAutoCallWebhookSecretTest',
			displayOptions: { show: { connectTo: ['existing'] } },
		});
	});
});
