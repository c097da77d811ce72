import {
	parseTimezone,
	timeOfDayToSeconds,
	toCps,
	toStartMoment,
} from '../../nodes/shared/convert';
import { toVariables } from '../../nodes/shared/validation';
import { readPhones as readPhoneList } from '../../nodes/shared/phones';
import { parseRetryAfter } from '../../nodes/shared/transport/failure';
import { backoffDelay } from '../../nodes/shared/transport/retryPolicy';

const readPhones = (field: string, value: unknown) => readPhoneList(field, value).phones;

test('cps: the platform formula', () => {
	expect(toCps('perSecond', 3)).toBe(1.03);
	expect(toCps('perSecond', 100)).toBe(2);
	expect(toCps('everyNSeconds', 3)).toBe(0.97);
	expect(toCps('raw', 1.5)).toBe(1.5);
	expect(() => toCps('perSecond', 0)).toThrow(/callsPerSecond: 0 is outside 1..100/);
	expect(() => toCps('everyNSeconds', 100)).toThrow(/secondsBetweenCalls/);
	expect(() => toCps('raw', 0)).toThrow(/cps: 0/);
});

test('time of day to seconds', () => {
	expect(timeOfDayToSeconds('from', '09:00')).toBe(32400);
	expect(timeOfDayToSeconds('from', '23:59:59')).toBe(86399);
	expect(timeOfDayToSeconds('from', 3600)).toBe(3600);
	expect(() => timeOfDayToSeconds('from', '24:00')).toThrow(/from: "24:00" is not a time of day/);
	expect(() => timeOfDayToSeconds('from', 'noon')).toThrow(/from: "noon"/);
});

test('timezone: seconds or UTC offsets, within ±43200', () => {
	expect(parseTimezone('timezone', 25200)).toBe(25200);
	expect(parseTimezone('timezone', '+03:00')).toBe(10800);
	expect(parseTimezone('timezone', 'UTC-5:30')).toBe(-19800);
	expect(parseTimezone('timezone', '-10800')).toBe(-10800);
	expect(() => parseTimezone('timezone', '+14:00')).toThrow(
		/"\+14:00" is 50400 seconds, outside -43200 to 43200/,
	);
	expect(() => parseTimezone('timezone', 50400)).toThrow(/50400 is above 43200/);
	expect(() => parseTimezone('timezone', 1.5)).toThrow(/not a whole number/);
});

test('startMoment: wall time kept, instants shown in the workflow time zone', () => {
	expect(toStartMoment('startMoment', '2026-12-01T09:30:00', 'Europe/Moscow')).toBe(
		'2026-12-01 09:30',
	);
	expect(toStartMoment('startMoment', '2026-12-01 09:30', 'UTC')).toBe('2026-12-01 09:30');
	expect(toStartMoment('startMoment', '2026-12-01T06:30:00.000Z', 'Europe/Moscow')).toBe(
		'2026-12-01 09:30',
	);
	expect(toStartMoment('startMoment', '2026-12-01T09:30:00+07:00', 'Asia/Novosibirsk')).toBe(
		'2026-12-01 09:30',
	);
	expect(() => toStartMoment('startMoment', '2026-13-01T09:30:00', 'UTC')).toThrow(
		/"2026-13-01T09:30:00" has the month 13/,
	);
});

test('phones and variables', () => {
	expect(readPhones('phone', '79990000001, +7 (999) 000-00-02')).toEqual([
		'79990000001',
		'79990000002',
	]);
	expect(readPhones('phone', '+7 999 123 45 67')).toEqual(['79991234567']);
	expect(readPhones('phone', '79990000001;79990000002\n79990000003')).toEqual([
		'79990000001',
		'79990000002',
		'79990000003',
	]);
	expect(() => readPhones('phone', 'not a phone')).toThrow(
		/Invalid phone: "not a phone" is not a phone number/,
	);
	expect(() => readPhones('phone', '79990000001, call me')).toThrow(
		/has "call me", which is not a phone number/,
	);
	expect(readPhones('phone', ['79990000001', 79990000002])).toEqual(['79990000001', '79990000002']);
	expect(() => readPhones('phone', [])).toThrow(/holds no phone number/);
	expect(toVariables('variables', { name: 'Ann', age: 30, vip: true })).toEqual({
		name: 'Ann',
		age: '30',
		vip: 'true',
	});
	expect(() => toVariables('variables', { nested: { a: 1 } })).toThrow(/variables.nested/);
});

test('Retry-After in seconds or as an HTTP date; zero, negative, past or unreadable → normal backoff', () => {
	expect(parseRetryAfter('2')).toBe(2000);
	const now = Date.parse('2026-11-22T10:00:00Z');
	expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:03 GMT', now)).toBe(3000);
	expect(parseRetryAfter('soon')).toBeUndefined();
	expect(parseRetryAfter('0')).toBeUndefined();
	expect(parseRetryAfter('-5')).toBeUndefined();
	expect(parseRetryAfter('Sun, 22 Nov 2026 09:59:00 GMT', now)).toBeUndefined();
});

test('backoff grows exponentially with jitter, capped', () => {
	expect(backoffDelay(0, () => 0)).toBe(250);
	expect(backoffDelay(0, () => 1)).toBe(500);
	expect(backoffDelay(3, () => 1)).toBe(4000);
	expect(backoffDelay(20, () => 1)).toBe(30000);
});
