/**
 * Publishing the trigger's default mode (New Call Task) on an n8n without a public URL: the "not
 * public" refusal comes first and at once. n8n checks required fields before any hook, so Name and
 * Bot Script ID are checked by the trigger itself; and n8n 2.x tries a failing activation 5 times
 * over about 15 s unless the error is a WebhookPathTakenError, so the trigger's refusals are one
 * (settings.ts ActivationRefusal). The real n8n timing: test/e2e/publishLocal.e2e.js.
 */
import type { INode, INodeParameters } from 'n8n-workflow';
import { NodeHelpers, WebhookPathTakenError } from 'n8n-workflow';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCallWebhookSecretApi } from '../../credentials/CisAutoCallWebhookSecretApi.credentials';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import { LOCAL_URL_MESSAGE } from '../../nodes/CisAutoCallTrigger/registration/publicUrl';
import { ActivationRefusal } from '../../nodes/CisAutoCallTrigger/registration/settings';
import { runWebhookMethod } from '../engine/harness';
import { startQuickSimulator, useSimulator } from '../lib/simulator';

const sim = useSimulator(startQuickSimulator);
const credentialTypes = [
	new CisAutoCallApi(),
	new CisAutoCallLoginApi(),
	new CisAutoCallWebhookSecretApi(),
];
const trigger = new CisAutoCallTrigger();

/** The trigger's parameters as the editor saves a new node (n8n fills in the defaults), with `changes`. */
function savedParameters(typeVersion: number, changes: INodeParameters = {}): INodeParameters {
	const node = {
		name: 'CIS Auto-Call Trigger',
		type: 'cisAutoCallTrigger',
		typeVersion,
		parameters: {},
		position: [0, 0],
	} as unknown as INode;
	const defaults =
		NodeHelpers.getNodeParameters(
			trigger.description.properties,
			{},
			true,
			false,
			node,
			trigger.description,
		) ?? {};
	return { ...defaults, ...changes };
}

/** What n8n's publish check reports for these parameters ("Missing or invalid required parameters: …"). */
function requiredParameterIssues(typeVersion: number, parameters: INodeParameters): string[] {
	const node = {
		name: 'CIS Auto-Call Trigger',
		type: 'cisAutoCallTrigger',
		typeVersion,
		parameters,
		position: [0, 0],
	} as unknown as INode;
	return Object.keys(
		NodeHelpers.getNodeParametersIssues(trigger.description.properties, node, trigger.description)
			?.parameters ?? {},
	);
}

async function create(parameters: INodeParameters, webhookBaseUrl: string, typeVersion = 2) {
	return await runWebhookMethod({
		node: new CisAutoCallTrigger(),
		credentialTypes,
		credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: 'sim-token' } },
		parameters,
		method: 'create',
		staticData: {},
		webhookBaseUrl,
		typeVersion,
	});
}

describe.each([2, 1.1])(
	'version %s: a new trigger left as added (New Call Task, Name and Bot Script ID empty)',
	(typeVersion) => {
		test("n8n's publish check finds no missing parameter: the trigger's own checks come first", () => {
			const parameters = savedParameters(typeVersion);
			expect(parameters.connectTo).toBe('newTask');
			expect([parameters.name, parameters.defaultExecData]).toEqual(['', '']);
			expect(requiredParameterIssues(typeVersion, parameters)).toEqual([]);
		});

		test('on a local n8n: the "not public" refusal, final for n8n 2.x, nothing sent', async () => {
			const result = await create(
				savedParameters(typeVersion),
				'http://localhost:5678/webhook/',
				typeVersion,
			);
			if (typeVersion < 2) {
				// Saved before the guard: the empty Name is what stops it, by name, before any request.
				expect(result.error?.message).toMatch(/^Invalid name: "" is empty/);
			} else {
				expect(result.error?.message).toContain(LOCAL_URL_MESSAGE);
			}
			expect(result.error).toBeInstanceOf(ActivationRefusal);
			expect(result.error).toBeInstanceOf(WebhookPathTakenError);
			expect(sim.requests).toEqual([]);
		});

		test('on a public n8n: the empty Name is refused by name at once, nothing sent', async () => {
			const result = await create(
				savedParameters(typeVersion),
				'https://n8n.example.com/webhook/',
				typeVersion,
			);
			expect(result.error?.message).toMatch(/^Invalid name: "" is empty/);
			expect((result.error as ActivationRefusal).description).toBe(
				'Check the field "name" of the trigger.',
			);
			expect(result.error).toBeInstanceOf(WebhookPathTakenError);
			expect(sim.requests).toEqual([]);
		});

		test('an empty Bot Script ID is refused by name too', async () => {
			const result = await create(
				savedParameters(typeVersion, { name: 'Leads' }),
				'https://n8n.example.com/webhook/',
				typeVersion,
			);
			expect(result.error?.message).toMatch(/^Invalid defaultExecData: "" is empty/);
			expect(sim.requests).toEqual([]);
		});
	},
);

describe('refusals that no retry can change are final for n8n 2.x; failures of the service are not', () => {
	test('the not-public refusal keeps its words and the way out', async () => {
		const result = await create(
			savedParameters(2, { name: 'Leads', defaultExecData: 'bot-1' }),
			'http://192.168.1.20:5678/webhook/',
		);
		const error = result.error as ActivationRefusal;
		expect(error).toBeInstanceOf(WebhookPathTakenError);
		expect(
			error.message.startsWith(`${LOCAL_URL_MESSAGE} (http://192.168.1.20:5678/webhook/`),
		).toBe(true);
		expect(error.message).toMatch(
			/192\.168\.1\.20 is a local or private address\)\. Set n8n's public URL \(N8N_WEBHOOK_URL; WEBHOOK_URL on n8n 1\.x\) or use Connect To "Existing Task or Template"$/,
		);
		expect(error.node?.name).toBe('CIS Auto-Call Trigger');
		expect(sim.requests).toEqual([]);
	});

	test('no event selected: final', async () => {
		const result = await create(
			savedParameters(2, { name: 'Leads', defaultExecData: 'bot-1', events: [] }),
			'https://n8n.example.com/webhook/',
		);
		expect(result.error?.message).toBe('No event is selected');
		expect(result.error).toBeInstanceOf(WebhookPathTakenError);
	});

	test('a 503 to the task creation is an unknown outcome: final, so n8n does not create another campaign; one request sent', async () => {
		sim.injectFault({ path: '/cis/api/v1/telephony/autoCall', status: 503, times: 10 });
		const result = await create(
			savedParameters(2, { name: 'Leads', defaultExecData: 'bot-1' }),
			'https://n8n.example.com/webhook/',
		);
		expect(result.error).toBeInstanceOf(WebhookPathTakenError);
		expect(result.error?.message).toMatch(
			/^Outcome unknown: the call task "Leads" may have been created\. Check the service/,
		);
		expect(
			sim.requests.filter(
				(request) => request.method === 'POST' && request.path === '/cis/api/v1/telephony/autoCall',
			),
		).toHaveLength(1);
	});

	test('the service refusing the task (a 400) proves nothing was created: not final, n8n may try again', async () => {
		sim.injectFault({ path: '/cis/api/v1/telephony/autoCall', status: 400, times: 10 });
		const result = await create(
			savedParameters(2, { name: 'Leads', defaultExecData: 'bot-1' }),
			'https://n8n.example.com/webhook/',
		);
		expect(result.error).toBeDefined();
		expect(result.error).not.toBeInstanceOf(WebhookPathTakenError);
	});
});
