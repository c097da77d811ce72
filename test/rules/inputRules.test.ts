// What reaches the service for inputs that are valid but written in
// another form (phones with +, repeated numbers) and for webhook targets given in two places.
// Runs the nodes through n8n-core's engine against the simulator over HTTP.
import type { IDataObject } from 'n8n-workflow';

import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { runWebhookMethod } from '../engine/harness';
import {
	apiRequests,
	byId,
	callTaskCreate,
	candidate,
	createTaskInState,
	jsonOf,
	runAction,
	TOKEN,
	useActionSimulator,
} from '../actions/fixtures';

const sim = useActionSimulator({}, { settle: true });

describe('phones reach the service as digits, the + dropped, each number once', () => {
	test('Define Each Field: "+7 (999) ..." and the same number without + are one number', async () => {
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				phone: '={{ $json.phones }}',
			},
			[
				{ phones: '+7 (999) 000-00-01, 79990000001, +7 999 000 00 02' },
				{ phones: ['+79990000003'] },
			],
		);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.body.phone)).toEqual([
			['79990000001', '79990000002'],
			['79990000003'],
		]);
		expect(jsonOf(result).map((output) => output.phone)).toEqual([
			['79990000001', '79990000002'],
			['79990000003'],
		]);
	});

	test('Use Fields of the Input Items: the same rule', async () => {
		const task = createTaskInState(sim, { name: 'Existing' });
		const result = await runAction(
			sim,
			candidate('addManyToTask', {
				autoCallId: byId(task.id),
				inputMode: 'fromItems',
				phoneField: 'contact.mobile',
			}),
			[
				{ contact: { mobile: '+7 999 000-00-11' } },
				{ contact: { mobile: ['+79990000012', '7 (999) 000-00-12'] } },
			],
		);
		expect(result.error).toBeUndefined();
		const [request] = apiRequests(sim);
		expect(request.body.batch.map((entry: IDataObject) => entry.phone)).toEqual([
			['79990000011'],
			['79990000012'],
		]);
	});

	test('Cancel by a number written with + finds the candidate added without it', async () => {
		const task = createTaskInState(sim, { name: 'Existing' });
		await runAction(
			sim,
			candidate('addToTask', { autoCallId: byId(task.id), phone: '79990000021' }),
		);
		sim.requests.length = 0;
		const result = await runAction(
			sim,
			candidate('cancel', { autoCallId: byId(task.id), phone: '+7 999 000-00-21' }),
		);
		expect(result.error).toBeUndefined();
		expect(
			apiRequests(sim).map((request) => [request.path, request.query.phone, request.status]),
		).toEqual([['/cis/api/v1/telephony/autoCallCandidate/cancel', '79990000021', 200]]);
	});
});

describe('webhook targets given in the form and in Extra Body Fields are all sent (one rule)', () => {
	const extraTarget = {
		url: 'https://audit.example.com/in',
		events: { CANDIDATE_CHANGED: { name: 'CANDIDATE_CHANGED', value: true } },
	};

	test("Call Task → Create keeps the form's targets next to those of Extra Body Fields", async () => {
		const result = await runAction(
			sim,
			callTaskCreate(
				{ webhookUrls: { target: [{ url: 'https://crm.example.com/hooks', CALL_ENDED: true }] } },
				{ extraFields: JSON.stringify({ webhookUrls: [extraTarget] }) },
			),
		);
		expect(result.error).toBeUndefined();
		const [request] = apiRequests(sim);
		expect(request.status).toBe(200);
		expect(request.body.webhookUrls.map((target: IDataObject) => target.url)).toEqual([
			'https://audit.example.com/in',
			'https://crm.example.com/hooks',
		]);
		expect(request.body.webhookUrls[0]).toEqual(extraTarget);
		expect(request.body.webhookUrls[1].events.CALL_ENDED).toEqual({
			name: 'CALL_ENDED',
			value: true,
		});
	});

	test('the trigger registers itself next to the targets of Extra Body Fields', async () => {
		const staticData: IDataObject = {};
		const created = await runWebhookMethod({
			node: new CisAutoCallTrigger(),
			credentialTypes: [new CisAutoCallApi(), new CisAutoCallLoginApi()],
			credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: TOKEN } },
			parameters: {
				connectTo: 'newTask',
				authentication: 'accessToken',
				events: ['CALL_ENDED'],
				name: 'Trigger campaign',
				defaultExecData: 'bot-1',
				additionalFields: { extraFields: JSON.stringify({ webhookUrls: [extraTarget] }) },
				// The test's n8n answers on 127.0.0.1, which the simulator reaches.
				options: { allowLocalUrl: true },
			},
			method: 'create',
			staticData,
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook/',
			// Stored with version 1.1 (Extra Body Fields under Additional Fields; version 2 keeps it under Advanced).
			typeVersion: 1.1,
		});
		expect(created.error).toBeUndefined();
		const [request] = apiRequests(sim).filter(
			(entry) => entry.path === '/cis/api/v1/telephony/autoCall',
		);
		expect(request.body.webhookUrls).toHaveLength(2);
		expect(request.body.webhookUrls[0]).toEqual(extraTarget);
		expect(request.body.webhookUrls[1].url).toMatch(
			/^http:\/\/127\.0\.0\.1:5678\/webhook\/.+\?secret=/,
		);
	});
});
