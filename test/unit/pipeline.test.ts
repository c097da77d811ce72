import { NodeOperationError, type INode } from 'n8n-workflow';

import { NotSentError } from '../../nodes/CisAutoCall/actions/itemErrors';
import type { ItemOutcomes } from '../../nodes/CisAutoCall/actions/pipeline/outcome';
import { errorJson, failureSummaryLines } from '../../nodes/CisAutoCall/actions/pipeline/output';
import { chunkByGroup } from '../../nodes/CisAutoCall/actions/pipeline/send';

const node: INode = {
	id: '1',
	name: 'CIS',
	type: 'cisAutoCall',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

describe('chunkByGroup: the requests of a batch operation', () => {
	test('one group: item order, batchSize per request', () => {
		const entries: Array<[number, string]> = [
			[0, 'a'],
			[1, 'a'],
			[2, 'a'],
			[3, 'a'],
			[4, 'a'],
		];
		expect(chunkByGroup(entries, (entry) => entry, 2)).toEqual([[0, 1], [2, 3], [4]]);
	});

	test('entries of different groups never share a request; groups in order of first appearance', () => {
		const entries: Array<[number, string]> = [
			[0, 'b'],
			[1, 'a'],
			[2, 'b'],
			[4, 'a'],
			[7, 'b'],
		];
		expect(chunkByGroup(entries, (entry) => entry, 2)).toEqual([[0, 2], [7], [1, 4]]);
	});

	test('nothing to send: no request', () => {
		expect(chunkByGroup([], () => '', 100)).toEqual([]);
	});
});

describe('failureSummaryLines: what the error of a stopped run says was done and not', () => {
	const failed = new NodeOperationError(node, 'The service answered 500');
	const notSent = new NotSentError(node, 'Not sent: ...');

	test('a single item that failed needs no summary', () => {
		expect(failureSummaryLines([{ ok: false, error: failed }])).toBeUndefined();
	});

	test('done with ids, failed, refused and never sent', () => {
		const outcomes: ItemOutcomes = [
			{ ok: true, json: { autoCallCandidateId: 'c-1', phone: ['7999'] } },
			{ ok: true, json: [{ id: 'x-2' }] },
			{ ok: true, json: { other: 1 } },
			{ ok: false, error: failed },
			{ ok: false, error: notSent },
			undefined,
		];
		expect(failureSummaryLines(outcomes)).toEqual([
			'Succeeded before the stop: 0 (autoCallCandidateId c-1), 1 (id x-2), 2.',
			'Failed: items 3.',
			'Not sent: items 4, 5.',
			'n8n discards the output of a failed node: to resume without duplicates, run again only the failed and unsent items, or turn on "Continue On Fail" to get one output per item.',
		]);
	});

	test('long lists name the first 50 and count the rest', () => {
		const outcomes: ItemOutcomes = [
			{ ok: false, error: failed },
			...Array.from({ length: 60 }, () => undefined),
		];
		const lines = failureSummaryLines(outcomes) as string[];
		expect(lines[0]).toBe('Succeeded before the stop: none.');
		expect(lines[1]).toBe('Failed: items 0.');
		expect(lines[2]).toMatch(/^Not sent: items 1, 2, .*, 50 and 10 more\.$/);
	});
});

test('errorJson: message, and description and status only when there are', () => {
	expect(errorJson(new Error('plain'))).toEqual({ error: 'plain' });
	expect(errorJson(new NodeOperationError(node, 'bad', { description: 'why' }))).toEqual({
		error: 'bad',
		description: 'why',
	});
});
