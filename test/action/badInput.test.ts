import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Simulator } from '../simulator';
import { apiRequests, jsonOf, runAction, startSimulator } from './fixtures';

let sim: Simulator;
beforeAll(async () => {
	sim = await startSimulator();
});
afterAll(async () => {
	await sim.close();
});
beforeEach(() => sim.reset());

const createAndRun = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'candidate',
	operation: 'createAndRun',
	botSettingsId: 'bot-1',
	phone: '={{ $json.phone }}',
	...extra,
});

const callTask = (extra: INodeParameters = {}, additionalFields: INodeParameters = {}): INodeParameters => ({
	resource: 'callTask',
	operation: 'create',
	name: 'Task',
	defaultExecData: 'bot-1',
	...extra,
	additionalFields,
});

const good = { phone: '79990000001' };

/** Each case: parameters, items, and what the message must name (field, value); the bad item is the last. */
const cases: Array<[string, INodeParameters, IDataObject[], RegExp]> = [
	['empty phone', createAndRun(), [good, good, good, { phone: '' }], /Invalid phone: "" .*\[item 3\]/],
	['non-string phone', createAndRun(), [good, { phone: [{ number: 1 }] }], /Invalid phone: .*\{"number":1\}.* not a phone number \[item 1\]/],
	[
		'timezone out of range',
		createAndRun({ candidateFields: { timezone: 'custom', timezoneSeconds: '={{ $json.tz }}' } }),
		[{ ...good, tz: 3600 }, { ...good, tz: 50000 }],
		/Invalid timezoneSeconds: 50000 is above 43200 \[item 1\]/,
	],
	[
		'timezone not an integer',
		createAndRun({ candidateFields: { timezone: '={{ $json.tz }}' } }),
		[{ ...good, tz: 3600.5 }],
		/Invalid timezone: 3600.5 is not a whole number \[item 0\]/,
	],
	[
		'variables not an object',
		createAndRun({ candidateFields: { variablesJson: '={{ $json.vars }}' } }),
		[{ ...good, vars: '["a"]' }],
		/Invalid variablesJson: "\[\\"a\\"\]" is not an object.*\[item 0\]/,
	],
	[
		'callbackData invalid JSON',
		createAndRun({ candidateFields: { callbackData: '{crmId: 1' } }),
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
		callTask({ redialStrategyEn: true, redialRules: { busy: { redial: true, time: 60, count: -1 } } }),
		[{}],
		/Invalid busy.count: -1 is below 0 \[item 0\]/,
	],
	['cps out of range', callTask({ cpsMode: 'raw', cps: 3 }), [{}], /Invalid cps: 3 is outside .*\[item 0\]/],
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
		/Invalid detectRobotGreeting: nothing is empty/,
	],
	[
		'phone field missing in the by-field-name mode',
		{ resource: 'candidate', operation: 'createAndRun', botSettingsId: 'bot-1', inputMode: 'fromItems', phoneField: 'mobile' },
		[{ mobile: '79990000001' }, { name: 'no phone' }],
		/Invalid phone \(field "mobile"\): nothing holds no phone number \[item 1\]/,
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
	const result = await runAction(sim, createAndRun(), [good, { phone: 'call me' }, { phone: '79990000003' }], {
		continueOnFail: true,
	});
	expect(result.error).toBeUndefined();
	const outputs = jsonOf(result);
	expect(outputs).toHaveLength(3);
	expect(outputs[0].autoCallCandidateId).toEqual(expect.any(String));
	expect(outputs[1].error).toMatch(/Invalid phone: "call me".*\[item 1\]/);
	expect(outputs[2].autoCallCandidateId).toEqual(expect.any(String));
	expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	expect(apiRequests(sim)).toHaveLength(2);
});
