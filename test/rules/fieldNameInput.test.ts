import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	apiRequests,
	candidateIdFor,
	createAndRunByExpression,
	createBatch,
	expectInOrder,
	jsonOf,
	runAction,
	useActionSimulator,
} from '../actions/fixtures';

/**
 * "Use Fields of the Input Items": the candidate's fields are read from the item's fields NAMED in
 * the panel. A value dragged in ({{ $json.phone }}) used to give "Invalid phone
 * (field "79990000001"): nothing holds no phone number".
 */
jest.setTimeout(60_000);

const sim = useActionSimulator();

const createAndRun = (options: INodeParameters, extra: INodeParameters) =>
	createAndRunByExpression({ options, ...extra });

const byName = (fields: INodeParameters): INodeParameters => ({
	resource: 'candidate',
	operation: 'createBatch',
	inputMode: 'fromItems',
	phoneField: 'phone',
	...fields,
});

const rows: IDataObject[] = [
	{ phone: '79990000001', name: 'Ann', crm: 'C-1' },
	{ phone: '79990000002', name: 'Bob', crm: 'C-2' },
];

const cases: Array<[string, INodeParameters, RegExp]> = [
	[
		'the phone dragged into Phone Field',
		byName({ phoneField: '={{ $json.phone }}' }),
		/^Invalid phoneField: "79990000001" is a value \(the item's field "phone"\), not a field name\. Enter the name of the field, phone, as plain text, not an expression such as \{\{ \$json\.phone \}\} \[item 0\]$/,
	],
	[
		'a name dragged into Variables Fields',
		byName({ variablesFields: '={{ $json.name }}' }),
		/^Invalid variablesFields: "Ann" is a value \(the item's field "name"\), not a field name\..*\{\{ \$json\.name \}\} \[item 0\]$/,
	],
	[
		'a CRM id dragged into Client External ID Field',
		byName({ clientExternalIdField: '={{ $json.crm }}' }),
		/^Invalid clientExternalIdField: "C-1" is a value \(the item's field "crm"\).*\[item 0\]$/,
	],
];

test.each(cases)('%s: said in plain words, nothing sent', async (_name, parameters, message) => {
	const result = await runAction(sim, parameters, rows);
	expect(result.error).toBeInstanceOf(NodeOperationError);
	expect(result.error?.message).toMatch(message);
	expect(result.error?.message).not.toMatch(/nothing holds/);
	expect(apiRequests(sim)).toHaveLength(0);
});

test('a Phone Field that names no field of an item lists the fields the item has', async () => {
	const result = await runAction(sim, byName({ phoneField: 'mobile' }), [
		{ mobile: '79990000001' },
		{ name: 'no phone', crm: 'C-9' },
	]);
	expect(result.error?.message).toBe(
		'Invalid phoneField: "mobile" names no field of this item (its fields: name, crm); enter the name of the field that holds the phone number(s) [item 1]',
	);
	expect(apiRequests(sim)).toHaveLength(0);
});

test('an empty phone says "is empty", not "nothing holds no phone number"', async () => {
	const result = await runAction(
		sim,
		{
			resource: 'candidate',
			operation: 'createAndRun',
			botSettingsId: 'bot-1',
			phone: '={{ $json.phone }}',
		},
		[{}],
	);
	expect(result.error?.message).toBe(
		'Invalid phone: the field is empty; enter at least one phone number [item 0]',
	);
});

test('field names that are fields still work, including a field that holds a number', async () => {
	const result = await runAction(
		sim,
		byName({ variablesFields: 'name', clientExternalIdField: 'crm' }),
		rows,
	);
	expect(result.error).toBeUndefined();
	expect(apiRequests(sim)).toHaveLength(1);
});

describe('"fromItems" input: candidate fields read by field name', () => {
	const rows = [
		{
			tel: '79990000001',
			name: 'Anna',
			extra: { city: 'Kazan', plan: 'gold' },
			crmId: 'lead-1',
			source: 'web',
			tz: '+03:00',
		},
		{
			tel: ['79990000002', '79990000003'],
			name: 'Boris',
			crmId: 'lead-2',
			source: 'ads',
			tz: 25200,
		},
		{ tel: '79990000004, 79990000005', name: 'Vera', crmId: 'lead-3', tz: '' },
	];

	test('Create and Run: phone, variables, callbackData and time zone come from the named fields', async () => {
		const result = await runAction(
			sim,
			createAndRun(
				{},
				{
					inputMode: 'fromItems',
					phoneField: 'tel',
					variablesFields: 'name, extra',
					callbackDataFields: 'crmId, source',
					timezoneField: 'tz',
				},
			),
			rows,
		);
		expect(result.error).toBeUndefined();
		const bodies = apiRequests(sim).map((request) => request.body);
		expect(bodies).toEqual([
			{
				phone: ['79990000001'],
				botSettingsId: 'bot-1',
				variables: { name: 'Anna', city: 'Kazan', plan: 'gold' },
				callbackData: { crmId: 'lead-1', source: 'web' },
				timezone: 10800,
			},
			{
				phone: ['79990000002', '79990000003'],
				botSettingsId: 'bot-1',
				variables: { name: 'Boris' },
				callbackData: { crmId: 'lead-2', source: 'ads' },
				timezone: 25200,
			},
			{
				phone: ['79990000004', '79990000005'],
				botSettingsId: 'bot-1',
				variables: { name: 'Vera' },
				callbackData: { crmId: 'lead-3' },
			},
		]);
		expectInOrder(result, 3);
		expect(jsonOf(result).map((json) => json.autoCallCandidateId)).toEqual(
			['79990000001', '79990000002', '79990000004'].map((phone) => candidateIdFor(sim, phone)),
		);
	});

	test('Create Batch From Template: the same fields plus Client External ID and the task settings, per entry', async () => {
		const result = await runAction(
			sim,
			createBatch(
				{ batchSize: 2 },
				{
					phoneField: 'tel',
					variablesFields: 'name',
					callbackDataFields: 'crmId',
					timezoneField: 'tz',
					clientExternalIdField: 'crmId',
					taskSettings: { botSettingsId: 'bot-7', checkPhone: true },
					callTasks: 'taskPerBatch',
				},
			),
			rows,
		);
		expect(result.error).toBeUndefined();
		const entries = apiRequests(sim).flatMap((request) => request.body.batch);
		const taskSettings = { botSettingsId: 'bot-7', checkPhone: true };
		expect(entries).toEqual([
			{
				phone: ['79990000001'],
				variables: { name: 'Anna' },
				callbackData: { crmId: 'lead-1' },
				timezone: 10800,
				clientExternalId: 'lead-1',
				...taskSettings,
			},
			{
				phone: ['79990000002', '79990000003'],
				variables: { name: 'Boris' },
				callbackData: { crmId: 'lead-2' },
				timezone: 25200,
				clientExternalId: 'lead-2',
				...taskSettings,
			},
			{
				phone: ['79990000004', '79990000005'],
				variables: { name: 'Vera' },
				callbackData: { crmId: 'lead-3' },
				clientExternalId: 'lead-3',
				...taskSettings,
			},
		]);
		const candidates = jsonOf(result).map((json) =>
			sim.state.candidates.get(json.autoCallCandidateId as string),
		);
		expect(candidates.map((candidate) => candidate?.clientExternalId)).toEqual([
			'lead-1',
			'lead-2',
			'lead-3',
		]);
	});

	test('an item without the phone field fails alone with Continue On Fail, naming the field; the others are sent', async () => {
		const result = await runAction(
			sim,
			createAndRun({}, { inputMode: 'fromItems', phoneField: 'tel' }),
			[rows[0], { name: 'no phone' }, rows[1]],
			{ continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		expectInOrder(result, 3);
		expect(jsonOf(result)[1].error).toMatch(/tel/);
		expect(apiRequests(sim)).toHaveLength(2);
	});
});
