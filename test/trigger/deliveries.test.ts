import * as fs from 'fs';
import * as path from 'path';
import type { IDataObject } from 'n8n-workflow';

import { canonicalJson } from '../../nodes/shared/fingerprint';
import {
	DeliveryMemory,
	deliveryIdOf,
	MAX_REMEMBERED_DELIVERIES,
	REPEAT_WINDOW_MS,
	SUBJECT_IDS,
	subjectOf,
} from '../../nodes/CisAutoCallTrigger/delivery/deliveries';
import { EVENT_NAMES } from '../../nodes/shared/events';
import { ExpiringMap } from '../../nodes/shared/expiringMap';

/** A delivery memory on its own clock (the trigger's is the process's `deliveriesSeen`). */
function memoryOf(windowMs: number, capacity: number, now: () => number): DeliveryMemory {
	return new DeliveryMemory(new ExpiringMap<string>(windowMs, capacity, now));
}

describe('deliveryIdOf: the same body, whatever its key order, and nothing else', () => {
	test('key order and spacing do not matter; any other difference does', () => {
		const a = { event: 'CALL_ENDED', id: 'c1', status: 'ANSWERED', result: { x: 1, y: [1, 2] } };
		const b = JSON.parse(
			'{ "result": {"y": [1, 2], "x": 1}, "status": "ANSWERED", "id": "c1", "event": "CALL_ENDED" }',
		);
		expect(canonicalJson(a)).toBe(canonicalJson(b));
		expect(deliveryIdOf(a)).toBe(deliveryIdOf(b));
		expect(deliveryIdOf(a)).toMatch(/^[0-9a-f]{32}$/);
		const changes = [
			{ status: 'NOANSWER' },
			{ result: { x: 2, y: [1, 2] } },
			{ result: { x: 1, y: [2, 1] } },
			{ extra: null },
		];
		for (const change of changes)
			expect([change, deliveryIdOf({ ...a, ...change })]).not.toEqual([change, deliveryIdOf(a)]);
	});

	test('a task status going PROCESS → PAUSED → PROCESS is three deliveries when the bodies differ, one when they do not', () => {
		const status = (status: string, previousStatus: string, changedAt: string) => ({
			event: 'AUTOCALL_STATUS_CHANGED',
			taskId: 't1',
			status,
			previousStatus,
			changedAt,
		});
		const ids = [
			deliveryIdOf(status('PROCESS', 'BLANK', '2026-11-01T10:00:00Z')),
			deliveryIdOf(status('PAUSED', 'PROCESS', '2026-11-01T11:00:00Z')),
			deliveryIdOf(status('PROCESS', 'PAUSED', '2026-11-01T12:00:00Z')),
		];
		expect(new Set(ids).size).toBe(3);
		// Even without any time in the payload, the third change differs from the first by previousStatus.
		expect(
			deliveryIdOf({
				event: 'AUTOCALL_STATUS_CHANGED',
				taskId: 't1',
				status: 'PROCESS',
				previousStatus: 'PAUSED',
			}),
		).not.toBe(
			deliveryIdOf({
				event: 'AUTOCALL_STATUS_CHANGED',
				taskId: 't1',
				status: 'PROCESS',
				previousStatus: 'BLANK',
			}),
		);
	});

	test('identical in any process: the id depends on the body only', () => {
		// sha256 of {"event":"CALL_ENDED","id":"call-1"}, first 32 hex digits, computed outside this code
		expect(deliveryIdOf({ id: 'call-1', event: 'CALL_ENDED' })).toBe(
			'5be885e91ccca27d644e44325f20f7d7',
		);
	});
});

describe('DeliveryMemory: 24 hours, bounded', () => {
	test('a key is a repeat within the window and new again after it', () => {
		let now = 1_000_000;
		const memory = memoryOf(REPEAT_WINDOW_MS, 10, () => now);
		expect(memory.isRepeat('a', 'body')).toBe(false);
		now += REPEAT_WINDOW_MS - 1;
		expect(memory.isRepeat('a', 'body')).toBe(true);
		now += 1;
		expect(memory.isRepeat('a', 'body')).toBe(false);
		expect(memory.size).toBe(1);
	});

	test('seeing a repeat does not extend its window (the service re-sends for 24 hours from the first attempt)', () => {
		let now = 0;
		const memory = memoryOf(1000, 10, () => now);
		memory.isRepeat('a', 'body');
		now = 900;
		expect(memory.isRepeat('a', 'body')).toBe(true);
		now = 1000;
		expect(memory.isRepeat('a', 'body')).toBe(false);
	});

	test('the default window is 24 hours, counted in time and not in deliveries', () => {
		expect(REPEAT_WINDOW_MS).toBe(24 * 60 * 60 * 1000);
		let now = 0;
		const memory = memoryOf(REPEAT_WINDOW_MS, MAX_REMEMBERED_DELIVERIES, () => now);
		memory.isRepeat('first', 'body');
		// 5,000 other deliveries (the old memory kept 1,000) an hour apart would not forget it
		for (let i = 0; i < 5000; i++) {
			now += 10;
			memory.isRepeat(`other-${i}`, 'body');
		}
		now = 23 * 60 * 60 * 1000;
		expect(memory.isRepeat('first', 'body')).toBe(true);
	});

	test(`past the cap (${MAX_REMEMBERED_DELIVERIES.toLocaleString('en-US')} by default) the oldest are forgotten first`, () => {
		const memory = memoryOf(REPEAT_WINDOW_MS, 3, () => 0);
		for (const key of ['a', 'b', 'c', 'd']) expect(memory.isRepeat(key, 'body')).toBe(false);
		expect(memory.size).toBe(3);
		expect(memory.isRepeat('b', 'body')).toBe(true);
		expect(memory.isRepeat('a', 'body')).toBe(false);
	});

	test('expired entries are dropped, so memory does not grow past the window', () => {
		let now = 0;
		const memory = memoryOf(100, 1_000_000, () => now);
		for (let i = 0; i < 1000; i++) {
			now += 1;
			memory.isRepeat(`k${i}`, 'body');
		}
		expect(memory.size).toBe(100);
	});
});

describe('the latest body per event and task / candidate / call', () => {
	test('PROCESS → PAUSED → PROCESS is news three times; re-sending the latest is a repeat', () => {
		const memory = memoryOf(REPEAT_WINDOW_MS, 10, () => 0);
		const status = (status: string) => ({ event: 'AUTOCALL_STATUS_CHANGED', taskId: 't1', status });
		const seen = (body: IDataObject & { event: string }) =>
			memory.isRepeat(subjectOf(body.event, body), deliveryIdOf(body));
		expect(
			[status('PROCESS'), status('PAUSED'), status('PROCESS'), status('PROCESS')].map(seen),
		).toEqual([false, false, false, true]);
		// another task's status in between does not make the first task's latest body news again
		expect(seen({ event: 'AUTOCALL_STATUS_CHANGED', taskId: 't2', status: 'PROCESS' })).toBe(false);
		expect(seen(status('PROCESS'))).toBe(true);
	});

	test('the subject: event, task id (taskId or autoCallId), candidate id, call id (id, callId or lastCallId)', () => {
		const ended = {
			event: 'CALL_ENDED',
			id: 'c1',
			taskId: 't1',
			candidateId: 'k1',
			status: 'ANSWERED',
		};
		expect(subjectOf('CALL_ENDED', ended)).toBe(
			subjectOf('CALL_ENDED', { ...ended, status: 'NOANSWER' }),
		);
		expect(subjectOf('CALL_ENDED', { ...ended, taskId: undefined, autoCallId: 't1' })).toBe(
			subjectOf('CALL_ENDED', ended),
		);
		expect(subjectOf('CALL_ENDED', { ...ended, id: 7 })).not.toBe(
			subjectOf('CALL_ENDED', { ...ended, id: '8' }),
		);
		for (const change of [{ id: 'c2' }, { taskId: 't2' }, { candidateId: 'k2' }]) {
			expect([change, subjectOf('CALL_ENDED', { ...ended, ...change })]).not.toEqual([
				change,
				subjectOf('CALL_ENDED', ended),
			]);
		}
		expect(subjectOf('CALL_REDIRECTED', ended)).not.toBe(subjectOf('CALL_ENDED', ended));
		const changed = { event: 'CANDIDATE_CHANGED', taskId: 't1', lastCallId: 'c1' };
		expect(subjectOf('CANDIDATE_CHANGED', changed)).not.toBe(
			subjectOf('CANDIDATE_CHANGED', { ...changed, lastCallId: 'c2' }),
		);
		// ids that are objects are not ids: the subject does not depend on them
		expect(subjectOf('CALL_ENDED', { event: 'CALL_ENDED', id: { x: 1 } })).toBe(
			subjectOf('CALL_ENDED', { event: 'CALL_ENDED' }),
		);
	});

	test("every id of every event (the simulator's list) names the subject, or is said not to: an event whose ids are named otherwise", () => {
		// Ids that are not what an event is about: the same for many calls, so they would only merge subjects.
		const NOT_SUBJECTS = {
			botId: 'the bot that called',
			redirectDestinationId: 'where the call was passed',
		};
		const top = fs
			.readFileSync(path.join(__dirname, '..', '..', 'simulator', 'player.js'), 'utf8')
			.split('*/')[0];
		const fields = new Map(
			[...top.matchAll(/^ \*\s+([A-Z_]+)\s+\{([^}]*)\}/gm)].map((match) => [
				match[1],
				match[2].split(',').map((field) => field.trim()),
			]),
		);
		expect([...fields.keys()].sort()).toEqual([...EVENT_NAMES].sort());
		const read = SUBJECT_IDS.flat();
		const unread = [...fields].flatMap(([event, names]) =>
			names
				.filter((name) => /^id$|Id$/.test(name) && !read.includes(name) && !(name in NOT_SUBJECTS))
				.map((name) => `${event}.${name}`),
		);
		expect(unread).toEqual([]);
	});

	test('a subject keeps the window of its latest body only', () => {
		let now = 0;
		const memory = memoryOf(1000, 10, () => now);
		expect(memory.isRepeat('s', 'A')).toBe(false);
		now = 500;
		expect(memory.isRepeat('s', 'B')).toBe(false);
		now = 1400;
		expect(memory.isRepeat('s', 'B')).toBe(true);
		expect(memory.size).toBe(1);
	});
});
