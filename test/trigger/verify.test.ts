import type { IDataObject } from 'n8n-workflow';

import {
	isAddressAllowed,
	isIpLiteral,
	isLoopbackIp,
	parseAddressList,
	parseIp,
} from '../../nodes/shared/ipAddresses';
import { isLoopbackHost } from '../../nodes/shared/serviceUrl';
import { MAX_NESTING, parseEventBody } from '../../nodes/CisAutoCallTrigger/delivery/body';
import { nestsDeeperThan } from '../../nodes/shared/validation';
import { buildOutput } from '../../nodes/CisAutoCallTrigger/delivery';
import { normalizeCallbackData } from '../../nodes/CisAutoCallTrigger/delivery/verify';
import {
	hashSecret,
	secretMatches,
	secretMatchesHash,
	withoutSecret,
	withSecret,
} from '../../nodes/CisAutoCallTrigger/secret/hashing';

describe('isAddressAllowed', () => {
	const platform = '87.251.83.160/27';

	test('an empty list allows everything', () => {
		expect(isAddressAllowed('1.2.3.4', '')).toBe(true);
		expect(isAddressAllowed(undefined, undefined)).toBe(true);
	});

	test('the documented platform range', () => {
		expect(isAddressAllowed('87.251.83.190', platform)).toBe(true);
		expect(isAddressAllowed('87.251.83.160', platform)).toBe(true);
		expect(isAddressAllowed('87.251.83.191', platform)).toBe(true);
		expect(isAddressAllowed('87.251.83.192', platform)).toBe(false);
		expect(isAddressAllowed('87.251.83.159', platform)).toBe(false);
		expect(isAddressAllowed('10.0.0.1', platform)).toBe(false);
	});

	test('IPv4-mapped IPv6 addresses (as Node reports them) match IPv4 entries', () => {
		expect(isAddressAllowed('::ffff:127.0.0.1', '127.0.0.1')).toBe(true);
		expect(isAddressAllowed('::ffff:87.251.83.190', platform)).toBe(true);
		expect(isAddressAllowed('::FFFF:87.251.83.200', platform)).toBe(false);
		expect(isAddressAllowed('127.0.0.1', '::ffff:127.0.0.0/104')).toBe(true);
		expect(isAddressAllowed('::ffff:7f00:1', '127.0.0.1')).toBe(true);
	});

	test('IPv6 addresses and ranges', () => {
		expect(isAddressAllowed('::1', '::1')).toBe(true);
		expect(isAddressAllowed('::1', '127.0.0.1')).toBe(false);
		expect(isAddressAllowed('2001:db8::5', '2001:db8::/32')).toBe(true);
		expect(isAddressAllowed('2001:db9::5', '2001:db8::/32')).toBe(false);
		expect(isAddressAllowed('[2001:db8::5]', '2001:0db8:0000:0000:0000:0000:0000:0005')).toBe(true);
		expect(isAddressAllowed('fe80::1%eth0', 'fe80::/10')).toBe(true);
	});

	test('several entries, separated by commas, spaces or new lines', () => {
		const list = '10.0.0.0/8, 192.168.1.7\n87.251.83.160/27';
		expect(isAddressAllowed('10.20.30.40', list)).toBe(true);
		expect(isAddressAllowed('192.168.1.7', list)).toBe(true);
		expect(isAddressAllowed('192.168.1.8', list)).toBe(false);
		expect(isAddressAllowed('87.251.83.170', ['87.251.83.160/27'])).toBe(true);
	});

	test('a list without a valid entry allows nothing; an unreadable address is refused', () => {
		expect(isAddressAllowed('1.2.3.4', 'not-an-ip')).toBe(false);
		expect(isAddressAllowed(undefined, '1.2.3.4')).toBe(false);
		expect(isAddressAllowed('garbage', '0.0.0.0/0')).toBe(false);
		expect(isAddressAllowed('8.8.8.8', '0.0.0.0/0')).toBe(true);
	});

	test('parseAddressList reports invalid entries', () => {
		const list = parseAddressList(
			'1.2.3.4, 1.2.3.0/33, 300.1.1.1, ::1/129, ::ffff:1.2.3.4/95, abc, 10.0.0.0/8',
		);
		expect(list.ranges.map((r) => r.text)).toEqual(['1.2.3.4', '10.0.0.0/8']);
		expect(list.invalid).toEqual([
			'1.2.3.0/33',
			'300.1.1.1',
			'::1/129',
			'::ffff:1.2.3.4/95',
			'abc',
		]);
	});

	test('parseIp', () => {
		expect(parseIp('1.2.3.4')).toEqual([1, 2, 3, 4]);
		expect(parseIp('::ffff:1.2.3.4')).toEqual([1, 2, 3, 4]);
		expect(parseIp('1:2:3:4:5:6:7:8')).toHaveLength(16);
		expect(parseIp('1::2::3')).toBeUndefined();
		expect(parseIp('1:2:3:4:5:6:7:8:9')).toBeUndefined();
		expect(parseIp('01.2.3')).toBeUndefined();
	});

	test('the same reader tells an address from a host name, and finds loopback addresses (as URL host names)', () => {
		for (const host of ['1.2.3.4', '[::1]', 'fe80::1', '[::ffff:7f00:1]'])
			expect(isIpLiteral(host)).toBe(true);
		for (const host of ['example.com', 'localhost', 'cafe', ''])
			expect(isIpLiteral(host)).toBe(false);
		for (const host of ['127.0.0.1', '127.8.9.10', '::1']) expect(isLoopbackIp(host)).toBe(true);
		// An IPv4-mapped loopback is not taken for one (http stays refused there, as before the one reader).
		for (const host of ['::ffff:7f00:1', '128.0.0.1', '::2', 'localhost'])
			expect(isLoopbackIp(host)).toBe(false);
		for (const host of ['localhost', 'LOCALHOST', '[::1]', '127.0.0.1'])
			expect(isLoopbackHost(host)).toBe(true);
		expect(isLoopbackHost('[::ffff:7f00:1]')).toBe(false);
	});
});

describe('secretMatches', () => {
	test('only the exact secret matches', () => {
		expect(secretMatches('abc123abc123abc123', 'abc123abc123abc123')).toBe(true);
		expect(secretMatches('abc123abc123abc12', 'abc123abc123abc123')).toBe(false);
		expect(secretMatches('ABC123abc123abc123', 'abc123abc123abc123')).toBe(false);
		expect(secretMatches('', 'abc')).toBe(false);
		expect(secretMatches(undefined, 'abc')).toBe(false);
		expect(secretMatches(['abc'], 'abc')).toBe(false);
	});

	test('no expected secret matches nothing', () => {
		expect(secretMatches('', '')).toBe(false);
		expect(secretMatches('x', undefined)).toBe(false);
	});

	test('a stored hash accepts exactly its secret, and the hash does not contain it', () => {
		const secret = '6f1d0c9e5b3a47f2a8e1d4c7b0a39e5f6d2c1b0a';
		const stored = hashSecret(secret);
		expect(stored).toMatch(/^[0-9a-f]{64}$/);
		expect(stored).not.toContain(secret);
		expect(secretMatchesHash(secret, stored)).toBe(true);
		for (const given of [
			'',
			secret.slice(0, -1),
			`${secret}x`,
			secret.toUpperCase(),
			undefined,
			[secret],
			stored,
		]) {
			expect([given, secretMatchesHash(given, stored)]).toEqual([given, false]);
		}
		for (const bad of [undefined, '', 'zz', stored.slice(1), 42])
			expect(secretMatchesHash(secret, bad)).toBe(false);
	});

	test('withSecret / withoutSecret', () => {
		const url = 'http://127.0.0.1:5678/webhook/abc/webhook';
		const signed = withSecret(url, 's3cret');
		expect(signed).toBe(`${url}?secret=s3cret`);
		expect(withoutSecret(signed)).toBe(url);
		expect(withSecret(`${url}?secret=old`, 'new')).toBe(`${url}?secret=new`);
		expect(withoutSecret('not a url')).toBe('not a url');
	});
});

describe('parseEventBody', () => {
	test('an object with an event', () => {
		expect(parseEventBody({ event: 'CALL_ENDED', id: '1' })).toEqual({
			ok: true,
			event: 'CALL_ENDED',
			payload: { event: 'CALL_ENDED', id: '1' },
		});
	});

	test('JSON text, raw bytes', () => {
		expect(parseEventBody('{"event":"CALL_ENDED"}')).toMatchObject({
			ok: true,
			event: 'CALL_ENDED',
		});
		expect(parseEventBody(undefined, Buffer.from('{"event":"CANDIDATE_CHANGED"}'))).toMatchObject({
			ok: true,
			event: 'CANDIDATE_CHANGED',
		});
		expect(parseEventBody({}, Buffer.from('{"event":"CANDIDATE_CHANGED"}'))).toMatchObject({
			ok: true,
		});
		expect(parseEventBody(Buffer.from('{"event":"X"}'))).toMatchObject({ ok: true, event: 'X' });
	});

	test('malformed bodies', () => {
		expect(parseEventBody('not json')).toEqual({ ok: false, reason: 'the body is not JSON' });
		expect(parseEventBody(undefined)).toEqual({ ok: false, reason: 'the body is empty' });
		expect(parseEventBody([{ event: 'CALL_ENDED' }])).toEqual({
			ok: false,
			reason: 'the body is not a JSON object',
		});
		expect(parseEventBody('42')).toEqual({ ok: false, reason: 'the body is not a JSON object' });
		expect(parseEventBody('{"event":"X"}', undefined, true)).toEqual({
			ok: false,
			reason: 'the body is not a JSON object',
		});
		expect(parseEventBody({})).toEqual({ ok: false, reason: 'the body has no "event" field' });
		expect(parseEventBody({ event: 5 })).toEqual({
			ok: false,
			reason: 'the body has no "event" field',
		});
		expect(parseEventBody({ event: '  ' })).toEqual({
			ok: false,
			reason: 'the body has no "event" field',
		});
	});

	test(`a body nested deeper than ${MAX_NESTING} levels is refused, however deep (no stack overflow)`, () => {
		const nested = (depth: number, leaf: unknown = 1): unknown => {
			let value = leaf;
			for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
			return value;
		};
		// the event object itself is level 1
		expect(parseEventBody({ event: 'CALL_ENDED', x: nested(MAX_NESTING - 1) })).toMatchObject({
			ok: true,
		});
		const deep = `the body is nested deeper than ${MAX_NESTING} levels`;
		expect(parseEventBody({ event: 'CALL_ENDED', x: nested(MAX_NESTING) })).toEqual({
			ok: false,
			reason: deep,
		});
		const text = `{"event":"CALL_ENDED","x":${'['.repeat(200000)}${']'.repeat(200000)}}`;
		expect(parseEventBody(text)).toEqual({ ok: false, reason: deep });
		expect(parseEventBody(JSON.parse(text), undefined, true)).toEqual({ ok: false, reason: deep });
	});

	test('nestsDeeperThan counts objects and arrays, not scalars', () => {
		expect(nestsDeeperThan('text', 0)).toBe(false);
		expect(nestsDeeperThan({}, 0)).toBe(true);
		expect(nestsDeeperThan({}, 1)).toBe(false);
		expect(nestsDeeperThan({ a: { b: [1, 'x', null] } }, 3)).toBe(false);
		expect(nestsDeeperThan({ a: { b: [1, { c: 2 }] } }, 3)).toBe(true);
		expect(nestsDeeperThan({ wide: Array.from({ length: 10000 }, () => ({ x: 1 })) }, 3)).toBe(
			false,
		);
	});
});

describe('callbackData and output', () => {
	test('the three forms the service sends', () => {
		expect(normalizeCallbackData({ crm: '42' })).toEqual({ callbackData: { crm: '42' } });
		expect(normalizeCallbackData([])).toEqual({ callbackData: {} });
		expect(normalizeCallbackData('{"crm":"42"}')).toEqual({
			callbackData: { crm: '42' },
			raw: '{"crm":"42"}',
		});
	});

	test('anything else becomes {} and is kept raw', () => {
		expect(normalizeCallbackData(undefined)).toEqual({ callbackData: {} });
		expect(normalizeCallbackData(null)).toEqual({ callbackData: {} });
		expect(normalizeCallbackData('not json')).toEqual({ callbackData: {}, raw: 'not json' });
		expect(normalizeCallbackData('[]')).toEqual({ callbackData: {}, raw: '[]' });
		expect(normalizeCallbackData(['a'])).toEqual({ callbackData: {}, raw: ['a'] });
		expect(normalizeCallbackData(7)).toEqual({ callbackData: {}, raw: 7 });
	});

	test('buildOutput keeps unknown fields and adds event, receivedAt, deliveryId, callbackData', () => {
		const delivery = (payload: IDataObject, deliveryId: string) => ({
			payload,
			event: String(payload.event),
			deliveryId,
			callback: normalizeCallbackData(payload.callbackData),
		});
		expect(
			buildOutput(
				delivery({ event: 'RECALL_SCHEDULED', surprise: { x: 1 } }, 'd1'),
				'2026-11-01T00:00:00.000Z',
			),
		).toEqual({
			event: 'RECALL_SCHEDULED',
			surprise: { x: 1 },
			receivedAt: '2026-11-01T00:00:00.000Z',
			deliveryId: 'd1',
			callbackData: {},
		});
		expect(
			buildOutput(delivery({ event: 'CALL_ENDED', callbackData: '{"a":1}' }, 'd2'), 't'),
		).toEqual({
			event: 'CALL_ENDED',
			receivedAt: 't',
			deliveryId: 'd2',
			callbackData: { a: 1 },
			callbackDataRaw: '{"a":1}',
		});
	});
});
