/**
 * An expression typed into a Fixed field (nodes/shared/validation.ts
 * refuseExpressionTypedAsText): n8n evaluates `{{ … }}` only in a field switched to Expression
 * (its saved value starts with `=`). A Fixed value holding `{{ … }}` is refused by name, with the
 * item, before any request, saying to switch the field to Expression, for every parameter the
 * action node reads; the trigger refuses it before it creates a task. Through n8n-core's engine
 * against the simulator.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCallWebhookSecretApi } from '../../credentials/CisAutoCallWebhookSecretApi.credentials';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import {
	apiRequests,
	byId,
	createTaskInState,
	jsonOf,
	runAction,
	useActionSimulator,
} from '../actions/fixtures';
import { runWebhookMethod } from '../engine/harness';

jest.setTimeout(120_000);

const sim = useActionSimulator();
const SWITCH =
	'is an expression typed as text, and n8n does not fill it in: switch the field from Fixed to Expression';

describe('the action node: a Fixed field holding {{ … }} is refused by name before any request', () => {
	test.each<[string, string, INodeParameters]>([
		[
			'Phone Numbers (the README line typed as text)',
			'phone',
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				phone: '{{ $json.body.phone }}',
			},
		],
		[
			'Bot Script ID',
			'botSettingsId',
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: '{{ $json.bot }}',
				phone: '79990005501',
			},
		],
		[
			'a call id',
			'callId',
			{ resource: 'call', operation: 'deleteRecording', callId: '{{ $json.callId }}' },
		],
		[
			'the task, By ID',
			'autoCallId',
			{
				resource: 'candidate',
				operation: 'cancel',
				autoCallId: byId('{{ $json.taskId }}'),
				phone: '79990005502',
			},
		],
		[
			'Callback Data inside Additional Fields',
			'candidateFields.callbackData',
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				phone: '79990005503',
				candidateFields: { callbackData: '{"crmId": "{{ $json.id }}"}' },
			},
		],
		[
			'a task name with text around it',
			'name',
			{
				resource: 'callTask',
				operation: 'create',
				name: 'Leads of {{ $now.toISODate() }}',
				defaultExecData: 'bot-1',
			},
		],
	])('%s', async (_label, field, parameters) => {
		const result = await runAction(sim, parameters, [
			{ body: { phone: '79990005509' } },
			{ body: { phone: '79990005510' } },
		]);
		const error = result.error as Error & { description?: string };
		expect(error.message).toMatch(
			new RegExp(`^Invalid ${field.replace(/[.[\]]/g, '\\$&')}: ".*\\{\\{.*\\}\\}.*" ${SWITCH}`),
		);
		expect(error.message).toMatch(/\[item 0\]$/);
		expect(apiRequests(sim)).toEqual([]);
	});

	test('Continue On Fail: every item gets the refusal as its error item, nothing is sent', async () => {
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				phone: '{{ $json.phone }}',
			},
			[{ phone: '79990005511' }, { phone: '79990005512' }],
			{ continueOnFail: true },
		);
		expect(jsonOf(result).map((json) => json.error)).toEqual([
			expect.stringMatching(
				/^Invalid phone: "\{\{ \$json\.phone \}\}" is an expression typed as text.*\[item 0\]$/,
			),
			expect.stringMatching(/\[item 1\]$/),
		]);
		expect(apiRequests(sim)).toEqual([]);
	});

	test('a field that wants a field NAME says to type the name, not to switch to Expression', async () => {
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				inputMode: 'fromItems',
				phoneField: '{{ $json.mobile }}',
			},
			[{ mobile: '79990005521' }],
		);
		expect((result.error as Error).message).toBe(
			'Invalid phoneField: "{{ $json.mobile }}" is an expression typed as text; this field wants the name of a field of the item: enter mobile as plain text, without {{ }} [item 0]',
		);
		expect(apiRequests(sim)).toEqual([]);
	});

	test('the same text switched to Expression works: the rule is about Fixed fields only', async () => {
		const task = createTaskInState(sim, { name: 'Expression' });
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'addToTask',
				autoCallId: byId('={{ $json.taskId }}'),
				phone: '={{ $json.body.phone }}',
			},
			[{ taskId: task.id, body: { phone: '79990005531' } }],
		);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.body.phone)).toEqual([['79990005531']]);
	});

	test('braces that are not an expression pass (a name with a single brace)', async () => {
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'create',
			name: 'Leads {north}',
			defaultExecData: 'bot-1',
		});
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.body.name)).toEqual(['Leads {north}']);
	});

	test("double braces that read no n8n data pass as they are (a template of the bot's own, as earlier releases sent it)", async () => {
		const callbackData = '{"greeting": "Hi {{name}}"}';
		const result = await runAction(sim, {
			resource: 'candidate',
			operation: 'createAndRun',
			botSettingsId: 'bot-1',
			phone: '79990005541',
			candidateFields: { callbackData },
		});
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim)).toHaveLength(1);
		expect(JSON.stringify(apiRequests(sim)[0].body)).toContain('Hi {{name}}');
	});
});

describe('the trigger (New Call Task): refused before a task is created', () => {
	const credentialTypes = [
		new CisAutoCallApi(),
		new CisAutoCallLoginApi(),
		new CisAutoCallWebhookSecretApi(),
	];
	const create = (parameters: INodeParameters, staticData: IDataObject = {}) =>
		runWebhookMethod({
			node: new CisAutoCallTrigger(),
			credentialTypes,
			credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: 'sim-token-7f3a9c' } },
			parameters: {
				connectTo: 'newTask',
				authentication: 'accessToken',
				events: ['CALL_ENDED'],
				defaultExecData: 'bot-1',
				...parameters,
			},
			method: 'create',
			staticData,
			webhookBaseUrl: 'https://n8n.example.com/webhook/',
		});

	test('a Name typed as {{ $json.name }}: the refusal names the field, no task is created', async () => {
		const staticData: IDataObject = {};
		const result = await create({ name: '{{ $json.name }}' }, staticData);
		const error = result.error as Error & { description?: string };
		expect(error.message).toBe(
			`Invalid name: "{{ $json.name }}" ${SWITCH} (hover over the field to see the switch)`,
		);
		expect(error.description).toBe('Check the field "name" of the trigger.');
		expect(sim.requests.filter((request) => request.method === 'POST')).toEqual([]);
		expect(staticData.registration).toBeUndefined();
	});

	test('the same Name as an expression creates the task with its value', async () => {
		const result = await create({ name: '={{ "Leads " + 7 }}' });
		expect(result.error).toBeUndefined();
		expect(
			apiRequests(sim)
				.filter((request) => request.method === 'POST')
				.map((request) => request.body.name),
		).toEqual(['Leads 7']);
	});
});
