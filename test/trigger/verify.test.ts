import {
	BoundedMap,
	buildOutput,
	deliveryKey,
	hashKey,
	isAddressAllowed,
	normalizeCallbackData,
	parseAddressList,
	parseEventBody,
	parseIp,
	RecentKeys,
	secretMatches,
	withoutSecret,
	withSecret,
} from '../../nodes/CisAutoCallTrigger/verify';

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
		const list = parseAddressList('1.2.3.4, 1.2.3.0/33, 300.1.1.1, ::1/129, ::ffff:1.2.3.4/95, abc, 10.0.0.0/8');
		expect(list.ranges.map((r) => r.text)).toEqual(['1.2.3.4', '10.0.0.0/8']);
		expect(list.invalid).toEqual(['1.2.3.0/33', '300.1.1.1', '::1/129', '::ffff:1.2.3.4/95', 'abc']);
	});

	test('parseIp', () => {
		expect(parseIp('1.2.3.4')).toEqual([1, 2, 3, 4]);
		expect(parseIp('::ffff:1.2.3.4')).toEqual([1, 2, 3, 4]);
		expect(parseIp('1:2:3:4:5:6:7:8')).toHaveLength(16);
		expect(parseIp('1::2::3')).toBeUndefined();
		expect(parseIp('1:2:3:4:5:6:7:8:9')).toBeUndefined();
		expect(parseIp('01.2.3')).toBeUndefined();
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
		expect(parseEventBody('{"event":"CALL_ENDED"}')).toMatchObject({ ok: true, event: 'CALL_ENDED' });
		expect(parseEventBody(undefined, Buffer.from('{"event":"CANDIDATE_CHANGED"}'))).toMatchObject({
			ok: true,
			event: 'CANDIDATE_CHANGED',
		});
		expect(parseEventBody({}, Buffer.from('{"event":"CANDIDATE_CHANGED"}'))).toMatchObject({ ok: true });
		expect(parseEventBody(Buffer.from('{"event":"X"}'))).toMatchObject({ ok: true, event: 'X' });
	});

	test('malformed bodies', () => {
		expect(parseEventBody('not json')).toEqual({ ok: false, reason: 'the body is not JSON' });
		expect(parseEventBody(undefined)).toEqual({ ok: false, reason: 'the body is empty' });
		expect(parseEventBody([{ event: 'CALL_ENDED' }])).toEqual({ ok: false, reason: 'the body is not a JSON object' });
		expect(parseEventBody('42')).toEqual({ ok: false, reason: 'the body is not a JSON object' });
		expect(parseEventBody('{"event":"X"}', undefined, true)).toEqual({ ok: false, reason: 'the body is not a JSON object' });
		expect(parseEventBody({})).toEqual({ ok: false, reason: 'the body has no "event" field' });
		expect(parseEventBody({ event: 5 })).toEqual({ ok: false, reason: 'the body has no "event" field' });
		expect(parseEventBody({ event: '  ' })).toEqual({ ok: false, reason: 'the body has no "event" field' });
	});
});

describe('deliveryKey', () => {
	const callEnded = {
		event: 'CALL_ENDED',
		id: 'call-1',
		taskId: 'task-1',
		status: 'ANSWERED',
		startedAt: '2026-11-01T10:00:00Z',
		result: { a: 1 },
		callbackData: { crm: 1 },
	};

	test('event, ids and status; other fields do not count', () => {
		expect(deliveryKey(callEnded)).toBe(
			'CALL_ENDED|id=call-1|taskId=task-1|status=ANSWERED|startedAt=2026-11-01T10:00:00Z',
		);
		expect(deliveryKey({ ...callEnded, result: { a: 2 }, callbackData: [] })).toBe(deliveryKey(callEnded));
	});

	test('different calls, statuses or events give different keys', () => {
		expect(deliveryKey({ ...callEnded, id: 'call-2' })).not.toBe(deliveryKey(callEnded));
		expect(deliveryKey({ ...callEnded, status: 'NOANSWER' })).not.toBe(deliveryKey(callEnded));
		expect(deliveryKey({ ...callEnded, event: 'CALL_REDIRECTED' })).not.toBe(deliveryKey(callEnded));
	});

	test('candidate, task status, identity objects', () => {
		expect(
			deliveryKey({ event: 'CANDIDATE_CHANGED', taskId: 't', candidateId: 'c', lastCallId: 'l', status: 'SUCCESS' }),
		).toBe('CANDIDATE_CHANGED|taskId=t|candidateId=c|lastCallId=l|status=SUCCESS');
		expect(deliveryKey({ event: 'AUTOCALL_STATUS_CHANGED', taskId: 't', status: 'PROCESS', previousStatus: 'PAUSED' })).not.toBe(
			deliveryKey({ event: 'AUTOCALL_STATUS_CHANGED', taskId: 't', status: 'PROCESS', previousStatus: 'READY' }),
		);
		expect(deliveryKey({ event: 'X', autoCallId: { identity: 'abc' } })).toBe('X|autoCallId=abc');
	});

	test('events without ids are keyed by their whole body', () => {
		const a = deliveryKey({ event: 'EFFICIENCY_REACHED', foo: 1, bar: 2 });
		expect(a).toMatch(/^EFFICIENCY_REACHED\|body=[0-9a-f]{64}$/);
		expect(deliveryKey({ bar: 2, foo: 1, event: 'EFFICIENCY_REACHED' })).toBe(a);
		expect(deliveryKey({ event: 'EFFICIENCY_REACHED', foo: 1, bar: 3 })).not.toBe(a);
	});

	test('hashKey is short and stable', () => {
		expect(hashKey('a')).toHaveLength(32);
		expect(hashKey('a')).toBe(hashKey('a'));
		expect(hashKey('a')).not.toBe(hashKey('b'));
	});
});

describe('RecentKeys', () => {
	test('bounded: the oldest is forgotten first', () => {
		const recent = new RecentKeys(3);
		expect(recent.add('a')).toBe(true);
		recent.add('b');
		recent.add('c');
		expect(recent.add('a')).toBe(false); // refreshed: now the newest
		recent.add('d'); // forgets b
		expect(recent.has('b')).toBe(false);
		expect(recent.toArray()).toEqual(['c', 'a', 'd']);
		recent.setCapacity(1);
		expect(recent.toArray()).toEqual(['d']);
	});

	test('from() reads a stored list and ignores junk', () => {
		const recent = RecentKeys.from(['x', 5, 'y', null, 'z'], 2);
		expect(recent.toArray()).toEqual(['y', 'z']);
		expect(RecentKeys.from(undefined, 5).size).toBe(0);
		expect(new RecentKeys(0).add('a')).toBe(true);
		expect(RecentKeys.clampCapacity(Number.NaN)).toBe(1);
	});

	test('BoundedMap keeps the most recently used entries', () => {
		const map = new BoundedMap<number>(2);
		map.set('a', 1);
		map.set('b', 2);
		map.get('a');
		map.set('c', 3);
		expect(map.get('b')).toBeUndefined();
		expect(map.get('a')).toBe(1);
		expect(map.size).toBe(2);
	});
});

describe('callbackData and output', () => {
	test('the three forms the service sends', () => {
		expect(normalizeCallbackData({ crm: '42' })).toEqual({ callbackData: { crm: '42' } });
		expect(normalizeCallbackData([])).toEqual({ callbackData: {} });
		expect(normalizeCallbackData('{"crm":"42"}')).toEqual({ callbackData: { crm: '42' }, raw: '{"crm":"42"}' });
	});

	test('anything else becomes {} and is kept raw', () => {
		expect(normalizeCallbackData(undefined)).toEqual({ callbackData: {} });
		expect(normalizeCallbackData(null)).toEqual({ callbackData: {} });
		expect(normalizeCallbackData('not json')).toEqual({ callbackData: {}, raw: 'not json' });
		expect(normalizeCallbackData('[]')).toEqual({ callbackData: {}, raw: '[]' });
		expect(normalizeCallbackData(['a'])).toEqual({ callbackData: {}, raw: ['a'] });
		expect(normalizeCallbackData(7)).toEqual({ callbackData: {}, raw: 7 });
	});

	test('buildOutput keeps unknown fields and adds event, receivedAt, callbackData', () => {
		expect(buildOutput({ event: 'RECALL_SCHEDULED', surprise: { x: 1 } }, 'RECALL_SCHEDULED', '2026-11-01T00:00:00.000Z')).toEqual({
			event: 'RECALL_SCHEDULED',
			surprise: { x: 1 },
			receivedAt: '2026-11-01T00:00:00.000Z',
			callbackData: {},
		});
		expect(buildOutput({ event: 'CALL_ENDED', callbackData: '{"a":1}' }, 'CALL_ENDED', 't')).toEqual({
			event: 'CALL_ENDED',
			receivedAt: 't',
			callbackData: { a: 1 },
			callbackDataRaw: '{"a":1}',
		});
	});
});
