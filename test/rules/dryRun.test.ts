/**
 * Dry Run: every item is checked as a real run checks it and gives the request
 * it would send; nothing reaches the service and nothing counts against Max Calls per Run. Through
 * n8n-core's engine against the simulator.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { CisAutoCall } from '../../nodes/CisAutoCall/CisAutoCall.node';
import {
	apiRequests,
	byId,
	createAndRunTool,
	createTaskInState,
	jsonOf,
	runAction,
	runTool,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator({}, { settle: true });

const DRY = { dryRun: true };

describe('Dry Run sends nothing and shows what would be sent', () => {
	test('Create and Run: one preview per item, 0 requests, pairedItem kept', async () => {
		const items = [
			{ phone: '+7 999 000-01-01', crm: 'A' },
			{ phone: '79990000102', crm: 'B' },
		];
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				phone: '={{ $json.phone }}',
				options: DRY,
			},
			items,
		);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim)).toEqual([]);
		expect(jsonOf(result)).toEqual([
			{
				dryRun: true,
				sent: false,
				wouldSend: {
					method: 'POST',
					path: '/cis/api/v1/telephony/autoCallCandidate/single',
					body: { phone: ['79990000101'], botSettingsId: 'bot-1' },
				},
			},
			{
				dryRun: true,
				sent: false,
				wouldSend: {
					method: 'POST',
					path: '/cis/api/v1/telephony/autoCallCandidate/single',
					body: { phone: ['79990000102'], botSettingsId: 'bot-1' },
				},
			},
		]);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	test('a bad item still gets the named error before anything, as in a real run', async () => {
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				phone: '={{ $json.phone }}',
				options: DRY,
			},
			[{ phone: '79990000101' }, { phone: 'not a phone' }],
		);
		expect(result.error?.message).toMatch(/\[item 1\]/);
		expect(apiRequests(sim)).toEqual([]);
	});

	test('Allowed Numbers refuses as in a real run (Continue On Fail: an error item), nothing sent', async () => {
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				phone: '={{ $json.phone }}',
				options: { ...DRY, allowedNumbers: '7999' },
			},
			[{ phone: '79990000101' }, { phone: '74950000000' }],
			{ continueOnFail: true },
		);
		const [ok, refused] = jsonOf(result);
		expect(ok.dryRun).toBe(true);
		expect(String(refused.error)).toMatch(/\[item 1\]/);
		expect(apiRequests(sim)).toEqual([]);
	});

	test('Add Many to Task and Create Batch From Template: the batch request each entry would go into, 0 requests', async () => {
		const task = createTaskInState(sim, { name: 'Dry' });
		const many = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'addManyToTask',
				autoCallId: byId(task.id),
				phone: '={{ $json.phone }}',
				options: DRY,
			},
			[{ phone: '79990000201' }],
		);
		expect(many.error).toBeUndefined();
		expect(jsonOf(many)[0]).toMatchObject({
			dryRun: true,
			wouldSend: { method: 'POST', path: '/cis/api/v1/telephony/autoCallCandidate/batch' },
		});
		const batch = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createBatch',
				phone: '={{ $json.phone }}',
				taskSettings: { autoCallTemplateId: 'tpl-1', botSettingsId: 'bot-1' },
				options: DRY,
			},
			[{ phone: '79990000202' }],
		);
		expect(batch.error).toBeUndefined();
		expect(jsonOf(batch)[0]).toMatchObject({
			dryRun: true,
			wouldSend: {
				method: 'POST',
				path: '/cis/api/v1/telephony/autoCallCandidate/single/batch',
				body: { batch: [{ phone: ['79990000202'] }] },
			},
		});
		expect(apiRequests(sim)).toEqual([]);
	});

	test('Call Task → Start: the start request, and the task is not started', async () => {
		const task = createTaskInState(sim, { name: 'Dry start' });
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'start',
			autoCallId: byId(task.id),
			options: DRY,
		});
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0]).toMatchObject({ dryRun: true, wouldSend: { method: 'POST' } });
		expect(apiRequests(sim)).toEqual([]);
	});

	test('an expression cannot turn Dry Run on: only the saved switch counts (a real run is never taken for a dry one by accident, nor the reverse)', async () => {
		const result = await runAction(sim, {
			resource: 'candidate',
			operation: 'createAndRun',
			botSettingsId: 'bot-1',
			phone: '79990000301',
			options: { dryRun: '={{ true }}' } as INodeParameters,
		});
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0].dryRun).toBeUndefined();
		expect(apiRequests(sim)).toHaveLength(1);
	});
});

describe.each(['engineRequest', 'supplyData'] as const)(
	'Dry Run on the AI Agent tool (%s)',
	(via) => {
		const run = async (options: IDataObject, calls: IDataObject[]) =>
			await runTool(sim, createAndRunTool(options), calls, { via });

		test('the tool offers Dry Run, and with it on the agent calls nobody: 0 requests, the model reads that nothing was sent', async () => {
			const option = new CisAutoCall().description.properties
				.filter((property) => property.name === 'options')
				.flatMap(
					(property) =>
						(property.options ?? []) as Array<{ name: string; displayOptions?: IDataObject }>,
				)
				.find((option) => option.name === 'dryRun');
			expect(option?.displayOptions).toBeUndefined();
			const result = await run(DRY, [{ phone: '79990000401' }, { phone: '79990000402' }]);
			expect(result.error).toBeUndefined();
			expect(apiRequests(sim)).toEqual([]);
			const answers = result.observations.map((text) => (JSON.parse(text) as IDataObject[])[0]);
			expect(answers).toEqual([
				{
					dryRun: true,
					sent: false,
					wouldSend: {
						method: 'POST',
						path: '/cis/api/v1/telephony/autoCallCandidate/single',
						body: { phone: ['79990000401'], botSettingsId: 'bot-1' },
					},
				},
				{
					dryRun: true,
					sent: false,
					wouldSend: {
						method: 'POST',
						path: '/cis/api/v1/telephony/autoCallCandidate/single',
						body: { phone: ['79990000402'], botSettingsId: 'bot-1' },
					},
				},
			]);
		});

		test('with Dry Run off the same tool calls really (the check above can fail)', async () => {
			const result = await run({}, [{ phone: '79990000403' }]);
			expect(result.error).toBeUndefined();
			expect(apiRequests(sim)).toHaveLength(1);
		});
	},
);
