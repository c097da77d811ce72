/**
 * The pure parts of "a success means the service said so" and "no person dialled twice": the
 * per-endpoint answer checks (nodes/shared/answerShapes.ts), the batch answer mapping, and the memory
 * that n8n's Retry On Fail reads.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

import {
	expectAcknowledgement,
	expectAddedCandidate,
	expectAddedCandidates,
	expectBatchAnswer,
	expectCandidateId,
	expectNoBody,
	expectTask,
	expectTaskId,
	expectTaskList,
	shapeOf,
} from '../../nodes/shared/answerShapes';
import { mapBatchResponse } from '../../nodes/CisAutoCall/actions/candidate/batchResponse';
import { RetryMemory } from '../../nodes/CisAutoCall/actions/pipeline/earlierTries';
import { ExpiringMap } from '../../nodes/shared/expiringMap';
import { mayHaveCreated, NotSentError } from '../../nodes/CisAutoCall/actions/itemErrors';

const id = (identity: string) => ({ identity });
const entry = (task: string, candidate: string) => ({
	autoCallId: id(task),
	autoCallCandidateId: id(candidate),
});
const HTML = '<!DOCTYPE html><html><body>Maintenance</body></html>';

describe('answer checks (undefined = the answer is what the API promises)', () => {
	test('4.1 / 4.2 / 4.3 "200 with no body": empty text, nothing, null or {} pass; anything else does not', () => {
		for (const empty of ['', '  \n', undefined, null, {}])
			expect(expectNoBody(empty)).toBeUndefined();
		expect(expectNoBody(HTML)).toMatch(/empty answer.*HTML/);
		expect(expectNoBody({ error: 'Call not found' })).toMatch(/empty answer.*the field error/);
		expect(expectNoBody([])).toMatch(/list of 0 elements/);
	});

	test('4.6 task id: {id: {identity}} only', () => {
		expect(expectTaskId({ id: id('task-1') })).toBeUndefined();
		expect(expectTaskId({ id: id('task-1'), name: 'extra fields pass' })).toBeUndefined();
		for (const wrong of [
			HTML,
			'',
			{},
			{ id: 'task-1' },
			{ id: id('') },
			{ id: { identity: 7 } },
			{ error: 'Validation failed' },
			[{ id: id('t') }],
		]) {
			expect(expectTaskId(wrong)).toMatch(/task id as \{"id": \{"identity"/);
		}
		expect(expectTaskId({ id: id('t'), error: 'but failed' })).toBeDefined();
	});

	test('4.4 candidate id: {id: {identity}} (or the 4.5 entry form autoCallCandidateId); an HTML page or {error} is not an id', () => {
		expect(expectCandidateId({ id: id('cand-1') })).toBeUndefined();
		expect(expectCandidateId(entry('task-1', 'cand-1'))).toBeUndefined();
		expect(expectCandidateId(HTML)).toMatch(/HTML or XML page/);
		expect(expectCandidateId({ error: 'No default template', details: null })).toMatch(
			/the fields error, details/,
		);
		expect(expectCandidateId({ id: 'cand-1' })).toBeDefined();
		expect(expectCandidateId({})).toMatch(/an empty object/);
	});

	test('4.5 batch: a non-empty list of non-empty lists of {autoCallId, autoCallCandidateId} as {identity}', () => {
		expect(expectBatchAnswer([[entry('t', 'a')], [entry('t', 'b')]])).toBeUndefined();
		expect(expectBatchAnswer([[entry('t', 'a'), entry('t', 'b')]])).toBeUndefined();
		expect(expectBatchAnswer({ accepted: 2 })).toMatch(/list of lists.*the field accepted/);
		expect(expectBatchAnswer([])).toMatch(/list of 0 elements/);
		expect(expectBatchAnswer([entry('t', 'a')])).toMatch(/element 0 of the answer is an object/);
		expect(expectBatchAnswer([[]])).toMatch(/element 0 of the answer is a list of 0/);
		expect(expectBatchAnswer([[entry('t', 'a')], [{ autoCallId: id('t') }]])).toMatch(
			/entry 0 of element 1/,
		);
		expect(expectBatchAnswer(HTML)).toMatch(/HTML/);
	});

	test('beyond the spec, tolerant: added candidate(s) with the id wrapped or plain, nested or flat', () => {
		expect(expectAddedCandidate({ id: id('c') })).toBeUndefined();
		expect(expectAddedCandidate({ id: 'c', status: 'NEW' })).toBeUndefined();
		expect(expectAddedCandidate({ autoCallCandidateId: id('c') })).toBeUndefined();
		expect(expectAddedCandidate(HTML)).toBeDefined();
		expect(expectAddedCandidate({ error: 'Task is halted' })).toBeDefined();
		expect(expectAddedCandidates([[entry('t', 'a')], [entry('t', 'b')]])).toBeUndefined();
		expect(expectAddedCandidates([[entry('t', 'a'), entry('t', 'b')]])).toBeUndefined();
		expect(expectAddedCandidates([{ id: 'a' }, { autoCallCandidateId: 'b' }])).toBeUndefined();
		expect(expectAddedCandidates({ error: 'x' })).toBeDefined();
		expect(expectAddedCandidates([[entry('t', 'a')], [{ status: 'queued' }]])).toMatch(/entry 1/);
	});

	test('task list {items: [...]} or a bare list; task object, possibly {item}; acknowledgements empty or an object without error', () => {
		expect(expectTaskList({ items: [], total: 0 })).toBeUndefined();
		expect(expectTaskList([{ id: 't' }])).toBeUndefined();
		expect(expectTaskList({ total: 3 })).toMatch(/"items"/);
		expect(expectTaskList({ items: ['t'] })).toMatch(/element 0/);
		expect(expectTaskList(HTML)).toBeDefined();
		expect(expectTask({ id: 't', status: 'PROCESS' })).toBeUndefined();
		expect(expectTask({ item: { id: 't' } })).toBeUndefined();
		expect(expectTask({})).toBeDefined();
		expect(expectTask({ error: 'Not found' })).toBeDefined();
		expect(expectTask(HTML)).toBeDefined();
		for (const fine of ['', undefined, { success: true }, { id: 't', status: 'PAUSED' }])
			expect(expectAcknowledgement(fine)).toBeUndefined();
		expect(expectAcknowledgement({ error: 'Call task is halted' })).toBeDefined();
		expect(expectAcknowledgement(HTML)).toBeDefined();
		expect(expectAcknowledgement(['x'])).toBeDefined();
	});

	test('a problem text names the shape and field names, never a value', () => {
		const secretish = { error: 'token sk-live-123 rejected', token: 'sk-live-123' };
		const problem = expectTaskId(secretish) as string;
		expect(problem).toContain('error, token');
		expect(problem).not.toContain('sk-live-123');
		expect(shapeOf('plain words')).toBe('a text, not a JSON object');
		expect(shapeOf({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 })).toBe(
			'an object with the fields a, b, c, d, e, f, ...',
		);
	});
});

/** Sent entries of one task (the answer is matched by task, then in the order sent). */
const sentTo = (task: string | undefined, count: number) =>
	Array.from({ length: count }, (_, index) => ({ taskId: task, phones: [`7999${index}`] }));

describe('mapBatchResponse: answers to items, for both readings of "an array of arrays"', () => {
	test('[[A], [B], [C]] and [[A, B, C]] give each item its own ids', () => {
		const expected = [
			{ autoCallId: 't', autoCallCandidateId: 'a' },
			{ autoCallId: 't', autoCallCandidateId: 'b' },
			{ autoCallId: 't', autoCallCandidateId: 'c' },
		];
		expect(
			mapBatchResponse(
				[[entry('t', 'a')], [entry('t', 'b')], [entry('t', 'c')]],
				[4, 5, 6],
				sentTo('t', 3),
			),
		).toEqual(expected);
		expect(
			mapBatchResponse(
				[[entry('t', 'a'), entry('t', 'b'), entry('t', 'c')]],
				[4, 5, 6],
				sentTo(undefined, 3),
			),
		).toEqual(expected);
	});

	test('a count that does not match: every item says so, the one task id is kept, the raw answer is in the first item only', () => {
		const answer = [[entry('t', 'a'), entry('t', 'b')]];
		const results = mapBatchResponse(answer, [7, 8, 9], sentTo(undefined, 3));
		expect(results).toHaveLength(3);
		results.forEach((result) => {
			expect(result.autoCallId).toBe('t');
			expect(result).not.toHaveProperty('autoCallCandidateId');
			expect(result.candidateIdUnknown).toMatch(/2 entries for the 3 candidates.*output of item 7/);
		});
		expect(results[0].unmappedResponse).toBe(answer);
		expect(results.slice(1).every((result) => !('unmappedResponse' in result))).toBe(true);
	});

	test('run data stays linear: 1,000 items with an unmappable answer carry the answer once', () => {
		const answer = [Array.from({ length: 999 }, (_, index) => entry('t', `c-${index}`))];
		const itemIndexes = Array.from({ length: 1000 }, (_, index) => index);
		const size = JSON.stringify(mapBatchResponse(answer, itemIndexes, sentTo('t', 1000))).length;
		expect(size).toBeLessThan(JSON.stringify(answer).length + 1000 * 400);
	});
});

describe('RetryMemory and what counts as "may have created"', () => {
	const node = {
		name: 'CIS',
		type: 'x',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	} as unknown as INode;

	test('only a 4xx answer or an item the node did not send proves nothing was created', () => {
		const apiError = (httpCode: string) =>
			new NodeApiError(node, { httpCode }, { httpCode, message: 'x' });
		expect(mayHaveCreated(apiError('400'))).toBe(false);
		expect(mayHaveCreated(apiError('404'))).toBe(false);
		expect(mayHaveCreated(apiError('500'))).toBe(true);
		expect(mayHaveCreated(apiError('503'))).toBe(true);
		expect(mayHaveCreated(apiError('200'))).toBe(true);
		expect(
			mayHaveCreated(
				new NodeApiError(
					node,
					{},
					{ message: 'No answer from the service: the connection was dropped' },
				),
			),
		).toBe(true);
		expect(mayHaveCreated(new NodeOperationError(node, 'anything'))).toBe(true);
		expect(mayHaveCreated(new NotSentError(node, 'Not sent: ...'))).toBe(false);
	});

	test('kept records come back for the same key, expire, and at most maxRuns are kept', () => {
		let now = 0;
		const memory = new RetryMemory(new ExpiringMap(1000, 2, () => now));
		const first = memory.recordFor('run-1');
		first.items.set(0, {
			fingerprint: 'f',
			outcome: { ok: true, json: { autoCallCandidateId: 'c' } },
		});
		memory.keep('run-1', first);
		expect(memory.recordFor('run-1')).toBe(first);
		expect(memory.recordFor('run-2')).not.toBe(first);
		memory.keep('run-2', memory.recordFor('run-2'));
		memory.keep('run-3', memory.recordFor('run-3'));
		expect(memory.size).toBe(2);
		expect(memory.recordFor('run-1').items.size).toBe(0);
		now = 1000;
		expect(memory.recordFor('run-3').items.size).toBe(0);
		expect(memory.size).toBe(0);
		memory.keep(undefined, first);
		expect(memory.size).toBe(0);
	});
});
