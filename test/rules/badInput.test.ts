import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	apiRequests,
	callTaskCreate,
	createAndRunByExpression,
	depersonalizeCall,
	jsonOf,
	runAction,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator();

const callTask = (extra: INodeParameters = {}, additionalFields: INodeParameters = {}) =>
	callTaskCreate(extra, additionalFields);

const good = { phone: '79990000001' };

/** Each case: parameters, items, and what the message must name (field, value); the bad item is the last. */
const cases: Array<[string, INodeParameters, IDataObject[], RegExp]> = [
	[
		'empty phone',
		createAndRunByExpression(),
		[good, good, good, { phone: '' }],
		/Invalid phone: "" .*\[item 3\]/,
	],
	[
		'non-string phone',
		createAndRunByExpression(),
		[good, { phone: [{ number: 1 }] }],
		/Invalid phone: .*\{"number":1\}.* not a phone number; pick the field that holds the number, or a CRM.s phone list .*\[item 1\]/,
	],
	[
		'timezone out of range',
		createAndRunByExpression({
			candidateFields: { timezone: 'custom', timezoneSeconds: '={{ $json.tz }}' },
		}),
		[
			{ ...good, tz: 3600 },
			{ ...good, tz: 50000 },
		],
		/Invalid timezoneSeconds: 50000 is above 43200 \[item 1\]/,
	],
	[
		'timezone not an integer',
		createAndRunByExpression({ candidateFields: { timezone: '={{ $json.tz }}' } }),
		[{ ...good, tz: 3600.5 }],
		/Invalid timezone: 3600.5 is not a whole number \[item 0\]/,
	],
	[
		'variables not an object',
		createAndRunByExpression({ candidateFields: { variablesJson: '={{ $json.vars }}' } }),
		[{ ...good, vars: '["a"]' }],
		/Invalid variablesJson: "\[\\"a\\"\]" is not an object.*\[item 0\]/,
	],
	[
		'callbackData invalid JSON',
		createAndRunByExpression({ candidateFields: { callbackData: '{crmId: 1' } }),
		[good],
		/Invalid callbackData: "\{crmId: 1" is not valid JSON.*\[item 0\]/,
	],
	[
		'missing cidData for gornum',
		callTask({ cidType: 'gornum', cidData: '={{ $json.cid }}' }),
		[{ cid: 'number-1' }, {}],
		/Invalid cidData: .* is empty.*\[item 1\]/,
	],
	[
		'startMoment not a date',
		callTask({ startType: 'time', startMoment: 'next tuesday' }),
		[{}],
		/Invalid startMoment: "next tuesday" is not a valid date.*\[item 0\]/,
	],
	[
		'negative count',
		callTask({
			redialStrategyEn: true,
			redialRules: { busy: { redial: true, time: 60, count: -1 } },
		}),
		[{}],
		/Invalid busy.count: -1 is below 0 \[item 0\]/,
	],
	[
		'cps out of range',
		callTask({ cpsMode: 'raw', cps: 3 }),
		[{}],
		/Invalid cps: 3 is outside .*\[item 0\]/,
	],
	[
		'webhook URL not http(s)',
		callTask({ webhookUrls: { target: [{ url: 'ftp://example.com/x', CALL_ENDED: true }] } }),
		[{}],
		/Invalid webhookUrls\[0\].url: "ftp:\/\/example.com\/x" is not an http\(s\) URL \[item 0\]/,
	],
	[
		'call window end before start',
		callTask({}, { useTr: true, allowCallTimeFrom: '18:00', allowCallTimeTo: '09:00' }),
		[{}],
		/Invalid allowCallTimeTo: "09:00" is not after the window start/,
	],
	[
		'detectRobotGreeting missing in block mode',
		callTask({}, { detectRobot: true, detectRobotMode: 'block' }),
		[{}],
		/Invalid detectRobotGreeting: the field is empty/,
	],
	[
		'phone field missing in the by-field-name mode',
		{
			resource: 'candidate',
			operation: 'createAndRun',
			botSettingsId: 'bot-1',
			inputMode: 'fromItems',
			phoneField: 'mobile',
		},
		[{ mobile: '79990000001' }, { name: 'no phone' }],
		/Invalid phoneField: "mobile" names no field of this item \(its fields: name\).*\[item 1\]/,
	],
	// Dates that do not exist, offsets past 59 minutes, overnight windows, PARALLEL too slow.
	[
		'startMoment on a day that does not exist',
		callTask({ startType: 'time', startMoment: '={{ $json.start }}' }),
		[{ start: '2026-12-01T09:30:00' }, { start: '2026-02-30T09:30:00' }],
		/Invalid startMoment: "2026-02-30T09:30:00" is not a day of the calendar: 2026-02 has 28 days \[item 1\]/,
	],
	[
		'startMoment with an offset of 60 minutes',
		callTask({ startType: 'time', startMoment: '={{ $json.start }}' }),
		[
			{ start: '2026-12-01T09:30:00+03:00' },
			{ start: '2026-12-01T09:30:00+03:00' },
			{ start: '2026-12-01T09:30:00+03:60' },
		],
		/Invalid startMoment: "2026-12-01T09:30:00\+03:60" has the offset minutes 60; minutes go from 00 to 59 \[item 2\]/,
	],
	[
		'startMoment at 24:00',
		callTask({ startType: 'time', startMoment: '2026-12-01T24:00:00' }),
		[{}],
		/Invalid startMoment: "2026-12-01T24:00:00" has a time that is not on the clock.*\[item 0\]/,
	],
	[
		'overnight call window',
		callTask({}, { useTr: true, allowCallTimeFrom: '22:00', allowCallTimeTo: '={{ $json.to }}' }),
		[{ to: '23:30' }, { to: '06:00' }],
		/Invalid allowCallTimeTo: "06:00" is not after the window start \("22:00"\).*cannot cross midnight.*Schedule ID.*\[item 1\]/,
	],
	[
		'PARALLEL with one call every few seconds',
		callTask(
			{ cpsMode: 'everyNSeconds', secondsBetweenCalls: '={{ $json.every }}' },
			{ callStrategy: 'PARALLEL' },
		),
		[{ every: 5 }],
		/Invalid callStrategy: "PARALLEL" needs more than one call per second.*cps 0.95 \(one call every 5 seconds\).*\[item 0\]/,
	],
	[
		'calls per second that is not a number',
		callTask({ callsPerSecond: '={{ $json.cps }}' }),
		[{ cps: 2 }, { cps: 'fast' }],
		/Invalid callsPerSecond: "fast" is not a number \[item 1\]/,
	],
	[
		'lifetime too large for the service',
		callTask({}, { lifetime: '={{ $json.lifetime }}' }),
		[{ lifetime: 1e12 }],
		/Invalid lifetime: 1000000000000 is above 2147483647 \[item 0\]/,
	],
	[
		'candidate time zone offset with 60 minutes',
		createAndRunByExpression({ candidateFields: { timezone: '={{ $json.tz }}' } }),
		[
			{ ...good, tz: '+03:00' },
			{ ...good, tz: '+03:00' },
			{ ...good, tz: '+03:60' },
		],
		/Invalid timezone: "\+03:60" has the offset minutes 60.*\[item 2\]/,
	],
	[
		'phone as a number too large to be exact',
		{ ...createAndRunByExpression(), inputMode: 'fromItems', phoneField: 'phone' },
		[good, { phone: 1e21 }],
		/Invalid phone \(field "phone"\): 1e\+21 is not a phone number \[item 1\]/,
	],
	[
		'phone as a fraction',
		createAndRunByExpression(),
		[{ phone: 7999.5 }],
		/Invalid phone: 7999.5 is not a phone number \[item 0\]/,
	],
	[
		'two numbers without a separator',
		createAndRunByExpression(),
		[good, { phone: '79990000001 79990000002' }],
		/Invalid phone: "79990000001 79990000002" is longer than 15 digits.*\[item 1\]/,
	],
	[
		'variable value without a name',
		createAndRunByExpression({
			candidateFields: {
				variables: {
					variable: [
						{ name: 'first', value: 'Ann' },
						{ name: '', value: '={{ $json.city }}' },
					],
				},
			},
		}),
		[{ ...good, city: 'Kazan' }],
		/Invalid variables\[1\].name: "" is empty while the value is "Kazan"; enter the variable's name \[item 0\]/,
	],
	[
		'client external id that is an object',
		{
			...createAndRunByExpression(),
			operation: 'createBatch',
			inputMode: 'fromItems',
			phoneField: 'phone',
			clientExternalIdField: 'crm',
		},
		[
			{ ...good, crm: 'C-1' },
			{ ...good, crm: { id: 7 } },
		],
		/Invalid clientExternalId \(field "crm"\): \{"id":7\} is not a text.*\[item 1\]/,
	],
	[
		'empty phone field name in the by-field-name mode',
		{ ...createAndRunByExpression(), inputMode: 'fromItems', phoneField: ' ' },
		[good],
		/Invalid phoneField: " " is empty; enter a value \[item 0\]/,
	],
	[
		'webhook URL given in the form and in Extra Body Fields',
		callTask(
			{ webhookUrls: { target: [{ url: 'https://crm.example.com/hooks', CALL_ENDED: true }] } },
			{ extraFields: '{"webhookUrls": [{"url": "https://crm.example.com/hooks"}]}' },
		),
		[{}],
		/Invalid webhookUrls: "https:\/\/crm.example.com\/hooks" is a webhook target already.*\[item 0\]/,
	],
];

describe('bad input is refused before any request, naming the field, the value and the item', () => {
	test.each(cases)('%s', async (_name, parameters, items, message) => {
		const result = await runAction(sim, parameters, items);
		expect(result.error).toBeInstanceOf(NodeOperationError);
		expect(result.error?.message).toMatch(message);
		expect(apiRequests(sim)).toHaveLength(0);
	});
});

test('with Continue On Fail, bad items become error items and good ones are still sent', async () => {
	const result = await runAction(
		sim,
		createAndRunByExpression(),
		[good, { phone: 'call me' }, { phone: '79990000003' }],
		{
			continueOnFail: true,
		},
	);
	expect(result.error).toBeUndefined();
	const outputs = jsonOf(result);
	expect(outputs).toHaveLength(3);
	expect(outputs[0].autoCallCandidateId).toEqual(expect.any(String));
	expect(outputs[1].error).toMatch(/Invalid phone: "call me".*\[item 1\]/);
	expect(outputs[2].autoCallCandidateId).toEqual(expect.any(String));
	expect(result.items.map((item) => item.pairedItem)).toEqual([
		{ item: 0 },
		{ item: 1 },
		{ item: 2 },
	]);
	expect(apiRequests(sim)).toHaveLength(2);
});

describe('options are checked before anything is sent', () => {
	test.each([
		[
			'Max Requests per Second',
			{ maxRequestsPerSecond: '={{ 1/0 }}' },
			/Invalid Max Requests per Second: .* is not a number from 0 \(no limit\) to 1000 \[item 0\]/,
		],
		[
			'Max Requests per Second',
			{ maxRequestsPerSecond: 1e9 },
			/Invalid Max Requests per Second: 1000000000 is not a number from 0 \(no limit\) to 1000 \[item 0\]/,
		],
		[
			'Max Requests per Second',
			{ maxRequestsPerSecond: -1 },
			/Invalid Max Requests per Second: -1 is not/,
		],
		[
			'Timeout (Seconds)',
			{ timeout: 'abc' },
			/Invalid Timeout \(Seconds\): "abc" is not a number of seconds from 1 to 3600 \[item 0\]/,
		],
		[
			'Timeout (Seconds)',
			{ timeout: 0 },
			/Invalid Timeout \(Seconds\): 0 is not a number of seconds/,
		],
		[
			'Max Retries',
			{ maxRetries: 2.5 },
			/Invalid Max Retries: 2.5 is not a whole number \[item 0\]/,
		],
	])('%s %j: a named error, 0 requests', async (field, options, message) => {
		const result = await runAction(sim, depersonalizeCall(options as INodeParameters), [
			{ callId: 'c-1' },
		]);
		expect(result.error?.message).toMatch(message);
		expect((result.error as NodeApiError).description).toContain(`Field "${field}"`);
		expect(apiRequests(sim)).toHaveLength(0);
	});

	test('a fractional rate (2.5 per second) is accepted', async () => {
		const calls = [sim.addCall(), sim.addCall()];
		const result = await runAction(
			sim,
			depersonalizeCall({ maxRequestsPerSecond: 2.5 }),
			calls.map((call) => ({ callId: call.id })),
		);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim)).toHaveLength(2);
	});
});
