import { canonicalJson } from '../../nodes/shared/fingerprint';
import {
	DeliveryMemory,
	deliveryIdOf,
	MAX_REMEMBERED_DELIVERIES,
	REPEAT_WINDOW_MS,
} from '../../nodes/CisAutoCallTrigger/deliveries';

describe('deliveryIdOf: the same body, whatever its key order, and nothing else', () => {
	test('key order and spacing do not matter; any other difference does', () => {
		const a = { event: 'CALL_ENDED', id: 'c1', status: 'ANSWERED', result: { x: 1, y: [1, 2] } };
		const b = JSON.parse('{ "result": {"y": [1, 2], "x": 1}, "status": "ANSWERED", "id": "c1", "event": "CALL_ENDED" }');
		expect(canonicalJson(a)).toBe(canonicalJson(b));
		expect(deliveryIdOf(a)).toBe(deliveryIdOf(b));
		expect(deliveryIdOf(a)).toMatch(/^[0-9a-f]{32}$/);
		const changes = [{ status: 'NOANSWER' }, { result: { x: 2, y: [1, 2] } }, { result: { x: 1, y: [2, 1] } }, { extra: null }];
		for (const change of changes) expect([change, deliveryIdOf({ ...a, ...change })]).not.toEqual([change, deliveryIdOf(a)]);
	});

	test('a task status going PROCESS → PAUSED → PROCESS is three deliveries when the bodies differ, one when they do not', () => {
		const status = (status: string, previousStatus: string, changedAt: string) => ({ event: 'AUTOCALL_STATUS_CHANGED', taskId: 't1', status, previousStatus, changedAt });
		const ids = [
			deliveryIdOf(status('PROCESS', 'BLANK', '2026-11-01T10:00:00Z')),
			deliveryIdOf(status('PAUSED', 'PROCESS', '2026-11-01T11:00:00Z')),
			deliveryIdOf(status('PROCESS', 'PAUSED', '2026-11-01T12:00:00Z')),
		];
		expect(new Set(ids).size).toBe(3);
		// Even without any time in the payload, the third change differs from the first by previousStatus.
		expect(deliveryIdOf({ event: 'AUTOCALL_STATUS_CHANGED', taskId: 't1', status: 'PROCESS', previousStatus: 'PAUSED' })).not.toBe(
			deliveryIdOf({ event: 'AUTOCALL_STATUS_CHANGED', taskId: 't1', status: 'PROCESS', previousStatus: 'BLANK' }),
		);
	});

	test('identical in any process: the id depends on the body only', () => {
		// sha256 of {"event":"CALL_ENDED","id":"call-1"}, first 32 hex digits, computed outside this code
		expect(deliveryIdOf({ id: 'call-1', event: 'CALL_ENDED' })).toBe('5be885e91ccca27d644e44325f20f7d7');
	});
});

describe('DeliveryMemory: 24 hours, bounded', () => {
	test('a key is a repeat within the window and new again after it', () => {
		let now = 1_000_000;
		const memory = new DeliveryMemory(REPEAT_WINDOW_MS, 10, () => now);
		expect(memory.seenBefore('a')).toBe(false);
		now += REPEAT_WINDOW_MS - 1;
		expect(memory.seenBefore('a')).toBe(true);
		now += 1;
		expect(memory.seenBefore('a')).toBe(false);
		expect(memory.size).toBe(1);
	});

	test('seeing a repeat does not extend its window (the service re-sends for 24 hours from the first attempt)', () => {
		let now = 0;
		const memory = new DeliveryMemory(1000, 10, () => now);
		memory.seenBefore('a');
		now = 900;
		expect(memory.seenBefore('a')).toBe(true);
		now = 1000;
		expect(memory.seenBefore('a')).toBe(false);
	});

	test('the default window is 24 hours, counted in time and not in deliveries', () => {
		expect(REPEAT_WINDOW_MS).toBe(24 * 60 * 60 * 1000);
		let now = 0;
		const memory = new DeliveryMemory(undefined, undefined, () => now);
		memory.seenBefore('first');
		// 5,000 other deliveries (the old memory kept 1,000) an hour apart would not forget it
		for (let i = 0; i < 5000; i++) {
			now += 10;
			memory.seenBefore(`other-${i}`);
		}
		now = 23 * 60 * 60 * 1000;
		expect(memory.seenBefore('first')).toBe(true);
	});

	test(`past the cap (${MAX_REMEMBERED_DELIVERIES.toLocaleString('en-US')} by default) the oldest are forgotten first`, () => {
		const memory = new DeliveryMemory(REPEAT_WINDOW_MS, 3, () => 0);
		for (const key of ['a', 'b', 'c', 'd']) expect(memory.seenBefore(key)).toBe(false);
		expect(memory.size).toBe(3);
		expect(memory.seenBefore('b')).toBe(true);
		expect(memory.seenBefore('a')).toBe(false);
	});

	test('expired entries are dropped, so memory does not grow past the window', () => {
		let now = 0;
		const memory = new DeliveryMemory(100, 1_000_000, () => now);
		for (let i = 0; i < 1000; i++) {
			now += 1;
			memory.seenBefore(`k${i}`);
		}
		expect(memory.size).toBe(100);
	});
});
