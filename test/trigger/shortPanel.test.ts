import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCallWebhookSecretApi } from '../../credentials/CisAutoCallWebhookSecretApi.credentials';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import { runWebhookMethod } from '../engine/harness';
import { startQuickSimulator, useSimulator } from '../lib/simulator';
import { newTaskParameters } from './fixtures';

/**
 * Version 2 of the trigger shows a short panel (most settings in "Campaign Settings" and
 * "Advanced"); versions 1 and 1.1 keep every field on the panel. The same settings, in either
 * layout, register the same call task (request body and webhook target), so stored workflows and
 * new ones behave alike.
 */

const BASE = 'http://127.0.0.1:5678/webhook/';
const CREATE_PATH = '/cis/api/v1/telephony/autoCall';
const credentialTypes = [
	new CisAutoCallApi(),
	new CisAutoCallLoginApi(),
	new CisAutoCallWebhookSecretApi(),
];
const sim = useSimulator(startQuickSimulator);

const common = newTaskParameters('Layout campaign', { startType: 'manual' });

/** The campaign settings both layouts hold: on the panel (versions 1 and 1.1) or in Campaign Settings (version 2). */
const campaign: INodeParameters = {
	secondExec: 'ch',
	secondExecData: 'channel-7',
	cidType: 'pool',
	cidData: 'pool-3',
	callWindow: 'candidateTime',
	allowCallTimeFrom: '10:00',
	allowCallTimeTo: '19:30',
	cpsMode: 'everyNSeconds',
	secondsBetweenCalls: 4,
	fullListTime: 45,
	recordCall: true,
	recTrimLeft: 2,
	redialStrategyEn: true,
	redialRules: { busy: { redial: true, time: 300, count: 1 } },
};

/** Settings as versions 1 and 1.1 store them: everything at the top level. */
const fullPanel: INodeParameters = {
	...common,
	...campaign,
	partialResults: true,
	delay: 3,
	oldTask: 'leave',
	additionalFields: {
		lifetime: 3600,
		candidateLimit: 2,
		taskComment: 'from n8n',
		detectRobot: true,
		checkPhone: true,
	},
};

/** The same settings as version 2 stores them. */
const shortPanel: INodeParameters = {
	...common,
	campaignSettings: {
		...campaign,
		lifetime: 3600,
		candidateLimit: 2,
		taskComment: 'from n8n',
	},
	advanced: {
		partialResults: true,
		delay: 3,
		oldTask: 'leave',
		detectRobot: true,
		checkPhone: true,
	},
};

/** Activates the trigger and returns the body of the one task it created, its target without the secret, and the registration. */
async function register(parameters: INodeParameters, typeVersion: number) {
	const staticData: IDataObject = {};
	const created = await runWebhookMethod({
		node: new CisAutoCallTrigger(),
		credentialTypes,
		credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: 'sim-token' } },
		parameters,
		method: 'create',
		staticData,
		webhookBaseUrl: BASE,
		typeVersion,
	});
	expect(created.error).toBeUndefined();
	const creates = sim.requests.filter((r) => r.method === 'POST' && r.path === CREATE_PATH);
	expect(creates).toHaveLength(1);
	const { webhookUrls, ...body } = creates[0].body as IDataObject & { webhookUrls: IDataObject[] };
	const { url, ...target } = webhookUrls[0];
	sim.requests.length = 0;
	return {
		body,
		target,
		url: String(url).replace(/\?.*$/, ''),
		registration: staticData.registration as IDataObject,
	};
}

test('version 2 is the default, with the short panel', () => {
	expect(new CisAutoCallTrigger().description.defaultVersion).toBe(2);
});

test('the same settings register the same task in version 1.1 (full panel) and version 2 (short panel)', async () => {
	const stored = await register(fullPanel, 1.1);
	const current = await register(shortPanel, 2);
	expect(current.body).toEqual(stored.body);
	expect(current.target).toEqual(stored.target);
	expect(current.url).toBe(stored.url);
	expect(current.registration.fingerprint).toBe(stored.registration.fingerprint);
	// The settings arrived, in both layouts.
	expect(stored.body).toMatchObject({
		secondExecData: 'channel-7',
		cidData: 'pool-3',
		cps: 0.96,
		lifetime: 3600,
		taskComment: 'from n8n',
	});
	expect(stored.target).toMatchObject({ partialResults: true, delay: 3 });
});

test.each([1, 1.1])(
	'a workflow stored with version %p registers with its saved settings, as before',
	async (typeVersion) => {
		const stored = await register(fullPanel, typeVersion);
		expect(stored.body).toMatchObject({
			name: 'Layout campaign',
			secondExec: 'ch',
			cidType: 'pool',
			cps: 0.96,
			additionalOptions: {
				recordCall: true,
				recTrimLeft: 2,
				useTr: true,
				fullListTime: 45,
				detectRobot: true,
			},
		});
	},
);

test('version 2 with only the required fields registers the defaults of version 1.1', async () => {
	const stored = await register({ ...common }, 1.1);
	const current = await register({ ...common }, 2);
	expect(current.body).toEqual(stored.body);
	expect(current.target).toEqual(stored.target);
});
