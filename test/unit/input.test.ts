import type { IDataObject } from 'n8n-workflow';

import {
	addWebhookTargets,
	buildCallTaskBody,
	mergeExtraFields,
} from '../../nodes/shared/callTaskBody';
import { readPhones as readPhoneList } from '../../nodes/shared/phones';
import { parseTimezone, toCps, toInstant, toStartMoment } from '../../nodes/shared/convert';
import {
	describeValue,
	optionalString,
	requireInteger,
	requireOption,
	requireString,
	toVariables,
} from '../../nodes/shared/validation';

const readPhones = (field: string, value: unknown) => readPhoneList(field, value).phones;

describe('dates: only moments that exist on the calendar and the clock', () => {
	test.each([
		[
			'2026-02-30T09:30:00',
			/"2026-02-30T09:30:00" is not a day of the calendar: 2026-02 has 28 days/,
		],
		['2026-02-30 09:30', /2026-02 has 28 days/],
		['2026-02-30T09:30:00Z', /2026-02 has 28 days/],
		['2026-04-31T10:00', /2026-04 has 30 days/],
		['2026-02-29T10:00', /2026-02 has 28 days/],
		['2026-12-01T24:00:00', /has a time that is not on the clock/],
		['2026-12-01T09:60', /has a time that is not on the clock/],
		['2026-12-01T09:30:60', /has a time that is not on the clock/],
		[
			'2026-12-01T09:30:00+03:60',
			/"2026-12-01T09:30:00\+03:60" has the offset minutes 60; minutes go from 00 to 59/,
		],
		['2026-12-01T09:30:00+0360', /has the offset minutes 60/],
		['2026-12-01T09:30:00+15:00', /has the offset \+15:00; offsets go from -12:00 to \+14:00/],
		['0026-12-01T09:30:00', /has the year 0026/],
	])('start moment %s is refused', (value, message) => {
		expect(() => toStartMoment('startMoment', value, 'Europe/Moscow')).toThrow(message);
		expect(() => toInstant('createdFrom', value, 'Europe/Moscow')).toThrow(message);
	});

	test('real moments still convert', () => {
		expect(toStartMoment('startMoment', '2028-02-29T10:00', 'UTC')).toBe('2028-02-29 10:00');
		expect(toStartMoment('startMoment', '2026-12-01T23:59:59', 'UTC')).toBe('2026-12-01 23:59');
		expect(toStartMoment('startMoment', '2026-12-01T09:30:00+05:30', 'UTC')).toBe(
			'2026-12-01 04:00',
		);
		expect(toStartMoment('startMoment', '2026-12-01T09:30:00.123456-0300', 'UTC')).toBe(
			'2026-12-01 12:30',
		);
		expect(toStartMoment('startMoment', new Date('2026-12-01T06:30:00Z'), 'Europe/Moscow')).toBe(
			'2026-12-01 09:30',
		);
		expect(toInstant('createdFrom', '2026-12-01', 'Europe/Moscow')).toBe(
			'2026-11-30T21:00:00.000Z',
		);
		expect(toInstant('createdFrom', '2026-12-01T09:30:00+14:00', 'UTC')).toBe(
			'2026-11-30T19:30:00.000Z',
		);
	});

	test('an invalid Date object gets the same named error, not a RangeError', () => {
		expect(() => toStartMoment('startMoment', new Date(NaN), 'UTC')).toThrow(
			/Invalid startMoment: an invalid Date is not a valid date and time/,
		);
	});

	test('a start moment needs a time of day', () => {
		expect(() => toStartMoment('startMoment', '2026-12-01', 'UTC')).toThrow(
			/"2026-12-01" has no time of day; use the form 2026-12-31 09:00/,
		);
	});
});

test('time zone offsets: minutes past 59 are refused, not carried into the hour', () => {
	expect(parseTimezone('timezone', '+0530')).toBe(19800);
	expect(() => parseTimezone('timezone', '+03:60')).toThrow(
		/Invalid timezone: "\+03:60" has the offset minutes 60/,
	);
	expect(() => parseTimezone('timezone', 'Europe/Moscow')).toThrow(
		/"Europe\/Moscow" is not a time zone; use seconds from UTC \(10800\) or an offset such as \+03:00/,
	);
});

test('call intensity: the message names the field of the chosen mode, and NaN as NaN', () => {
	expect(() => toCps('perSecond', 'fast')).toThrow(
		/Invalid callsPerSecond: "fast" is not a number/,
	);
	expect(() => toCps('everyNSeconds', NaN)).toThrow(
		/Invalid secondsBetweenCalls: NaN is not a number/,
	);
	expect(() => toCps('raw', Infinity)).toThrow(/Invalid cps: Infinity is not a number/);
	expect(() => toCps('perSecond', 1e9)).toThrow(/callsPerSecond: 1000000000 is outside 1..100/);
	expect(() => toCps('perSecond', undefined)).toThrow(
		/Invalid callsPerSecond: the field is empty; enter a number/,
	);
});

test('whole numbers: decimal only, bounded, and empty is said to be empty', () => {
	expect(requireInteger('lifetime', ' 12 ')).toBe(12);
	expect(requireInteger('lifetime', '12.0')).toBe(12);
	expect(() => requireInteger('lifetime', '0x10')).toThrow(
		/Invalid lifetime: "0x10" is not a whole number/,
	);
	expect(() => requireInteger('lifetime', '1e3')).toThrow(/"1e3" is not a whole number/);
	expect(() => requireInteger('lifetime', 1e300)).toThrow(
		/Invalid lifetime: 1e\+300 is above 2147483647/,
	);
	expect(() => requireInteger('lifetime', 2147483648)).toThrow(/is above 2147483647/);
	expect(() => requireInteger('count', undefined)).toThrow(
		/Invalid count: the field is empty; enter a whole number/,
	);
	expect(() => requireInteger('count', NaN)).toThrow(/Invalid count: NaN is not a whole number/);
	expect(requireInteger('timeout', 99999, { max: 100000 })).toBe(99999);
});

test('text: NaN, Infinity and objects are refused instead of sent as "NaN" or "[object Object]"', () => {
	expect(describeValue(NaN)).toBe('NaN');
	expect(describeValue(-Infinity)).toBe('-Infinity');
	expect(requireString('name', 42)).toBe('42');
	expect(() => requireString('name', NaN)).toThrow(/Invalid name: NaN is not a finite number/);
	expect(() => requireString('name', { first: 'Ann' })).toThrow(
		/Invalid name: \{"first":"Ann"\} is not a text/,
	);
	expect(() => optionalString(['a', 'b'], 'clientExternalId')).toThrow(
		/Invalid clientExternalId: \["a","b"\] is not a text/,
	);
	expect(optionalString('  ', 'clientExternalId')).toBeUndefined();
	expect(() => toVariables('variables', { age: NaN })).toThrow(
		/Invalid variables.age: NaN is not a text value/,
	);
	expect(() => requireOption('startType', 'Time', ['manual', 'time'])).toThrow(
		/Invalid startType: "Time" is not one of "manual", "time"/,
	);
});

describe('phones: digits only, as the platform writes them', () => {
	test('a leading + is dropped and the same number is sent once', () => {
		expect(readPhones('phone', '+7 (999) 000-00-01')).toEqual(['79990000001']);
		expect(readPhones('phone', ['+79990000001', '79990000001', '7 999 000 00 02'])).toEqual([
			'79990000001',
			'79990000002',
		]);
		expect(readPhones('phone', 79990000001)).toEqual(['79990000001']);
	});

	test.each([
		[1e21, /Invalid phone: 1e\+21 is not a phone number/],
		[7999.5, /Invalid phone: 7999.5 is not a phone number/],
		[NaN, /Invalid phone: NaN is not a phone number/],
		['7999 0000 0001 0002', /"7999 0000 0001 0002" is longer than 15 digits/],
		['79990000001 79990000002', /is longer than 15 digits/],
		['7+9990000001', /is not a phone number/],
	])('%p is refused', (value, message) => {
		expect(() => readPhones('phone', value)).toThrow(message);
	});
});

describe('webhook targets: one rule, targets are added', () => {
	const formTarget = {
		url: 'https://crm.example.com/hooks',
		events: { CALL_ENDED: { name: 'CALL_ENDED', value: true } },
	};
	const extraTarget = {
		url: 'https://audit.example.com/in',
		events: { CANDIDATE_CHANGED: { name: 'CANDIDATE_CHANGED', value: true } },
	};

	test('Extra Body Fields targets and the form targets are all kept', () => {
		const body = mergeExtraFields(
			{ name: 'Task' },
			{ webhookUrls: [extraTarget], taskComment: 'x' },
		);
		addWebhookTargets(body, [formTarget]);
		expect(body).toEqual({
			name: 'Task',
			taskComment: 'x',
			webhookUrls: [extraTarget, formTarget],
		});
	});

	test("the platform's older plain-URL form is kept as given", () => {
		const body = mergeExtraFields({}, { webhookUrls: ['https://old.example.com/hook'] });
		addWebhookTargets(body, [formTarget]);
		expect(body.webhookUrls).toEqual(['https://old.example.com/hook', formTarget]);
	});

	test('no targets: no webhookUrls field', () => {
		expect(addWebhookTargets({ name: 'Task' }, [])).toEqual({ name: 'Task' });
	});

	test('a URL given twice is refused, its query (a secret) not shown', () => {
		const body = mergeExtraFields(
			{},
			{ webhookUrls: [{ url: 'https://crm.example.com/hooks?token=s3cr3t' }] },
		);
		const twice = () =>
			addWebhookTargets(body, [{ url: 'https://crm.example.com/hooks?token=s3cr3t' }]);
		expect(twice).toThrow(
			/Invalid webhookUrls: "https:\/\/crm.example.com\/hooks\?…" is a webhook target already/,
		);
		expect(twice).not.toThrow(/s3cr3t/);
	});

	test('something that is not a list of targets is refused', () => {
		expect(() => mergeExtraFields({}, { webhookUrls: 42 })).toThrow(
			/Invalid extraFields.webhookUrls: 42 is not a list of webhook targets/,
		);
		expect(() => mergeExtraFields({}, { webhookUrls: [7] })).toThrow(
			/Invalid extraFields.webhookUrls: 7 is not a webhook target/,
		);
	});
});

describe('call task body', () => {
	const base: IDataObject = { name: 'Task', defaultExecData: 'bot-1', callsPerSecond: 1 };
	const build = (parameters: IDataObject) =>
		buildCallTaskBody(
			(name, fallback) => (name in parameters ? parameters[name] : fallback),
			'UTC',
		);

	test('an overnight window is refused, saying how to call overnight', () => {
		const overnight = () =>
			build({
				...base,
				additionalFields: { useTr: true, allowCallTimeFrom: '22:00', allowCallTimeTo: '06:00' },
			});
		expect(overnight).toThrow(
			/Invalid allowCallTimeTo: "06:00" is not after the window start \("22:00"\)/,
		);
		expect(overnight).toThrow(/cannot cross midnight; for calls overnight .* give a Schedule ID/);
		expect(() =>
			build({
				...base,
				additionalFields: { useTr: true, allowCallTimeFrom: '10:00', allowCallTimeTo: '10:00' },
			}),
		).toThrow(/"10:00" is the window start \("10:00"\): the window would be empty/);
	});

	test('PARALLEL needs more than one call per second', () => {
		const parallel = { callStrategy: 'PARALLEL' };
		expect(() =>
			build({
				...base,
				cpsMode: 'everyNSeconds',
				secondsBetweenCalls: 3,
				additionalFields: parallel,
			}),
		).toThrow(
			/Invalid callStrategy: "PARALLEL" needs more than one call per second .* cps 0.97 \(one call every 3 seconds\)/,
		);
		expect(() => build({ ...base, cpsMode: 'raw', cps: 1, additionalFields: parallel })).toThrow(
			/cps 1;/,
		);
		expect(() =>
			build({
				...base,
				callsPerSecond: 2,
				additionalFields: { extraFields: '{"callStrategy": "PARALLEL", "cps": 0.9}' },
			}),
		).toThrow(/Invalid callStrategy: "PARALLEL"/);
		expect(build({ ...base, callsPerSecond: 2, additionalFields: parallel })).toMatchObject({
			callStrategy: 'PARALLEL',
			cps: 1.02,
		});
	});

	test('option values from expressions are checked', () => {
		expect(() => build({ ...base, startType: 'Time' })).toThrow(
			/Invalid startType: "Time" is not one of "manual", "time"/,
		);
		expect(() => build({ ...base, additionalFields: { callStrategy: 'parallel' } })).toThrow(
			/Invalid callStrategy: "parallel"/,
		);
	});
});
