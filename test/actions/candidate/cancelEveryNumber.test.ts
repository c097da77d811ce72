/**
 * Candidate → Cancel stops every person the item names: one cancel request per
 * number (the service takes one number per request), one output item per number paired to its
 * input item, the same reading of phones as the operations that dial (commas, new lines of any
 * kind, lists), bad numbers refused by name before any request, and a partial failure that says
 * which numbers were cancelled and which not. Through n8n-core's engine against the simulator.
 */
import type { NodeApiError } from 'n8n-workflow';

import {
	API,
	apiRequests,
	byId,
	candidatesWithPhone,
	createTaskInState,
	jsonOf,
	runAction,
	useActionSimulator,
} from '../fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator();
const CANCEL = `${API}telephony/autoCallCandidate/cancel`;

/** A task with one candidate per number, as Add to Task leaves them. */
async function taskWith(phones: string[]): Promise<string> {
	const task = createTaskInState(sim, { name: 'Cancel every number' });
	for (const phone of phones) {
		const added = await runAction(sim, {
			resource: 'candidate',
			operation: 'addToTask',
			autoCallId: byId(task.id),
			phone,
		});
		expect(added.error).toBeUndefined();
	}
	sim.requests.length = 0;
	return task.id;
}

const cancelParameters = (autoCallId: string, phone: unknown) => ({
	resource: 'candidate',
	operation: 'cancel',
	autoCallId: byId(autoCallId),
	phone: phone as string,
});

const cancelRequests = () => apiRequests(sim).filter((request) => request.path === CANCEL);

describe('Candidate → Cancel with several numbers', () => {
	test.each([
		['typed, separated by a comma', '79990003301, 79990003302', undefined],
		['from an item, separated by CR LF', '={{ $json.phones }}', '79990003301\r\n79990003302'],
		['from an item, separated by a lone CR', '={{ $json.phones }}', '79990003301\r79990003302'],
		[
			'from an item, separated by LF with + and spaces',
			'={{ $json.phones }}',
			'+7 999 000-33-01\n+7 999 000-33-02',
		],
	])(
		'%s: one cancel request and one output item per number, all cancelled',
		async (_label, phone, phones) => {
			const taskId = await taskWith(['79990003301', '79990003302']);
			const result = await runAction(sim, cancelParameters(taskId, phone), [
				phones === undefined ? {} : { phones },
			]);
			expect(result.error).toBeUndefined();
			expect(cancelRequests().map((request) => [request.method, request.query])).toEqual([
				['POST', { autoCallId: taskId, phone: '79990003301' }],
				['POST', { autoCallId: taskId, phone: '79990003302' }],
			]);
			expect(jsonOf(result)).toEqual([
				expect.objectContaining({ success: true, autoCallId: taskId, phone: '79990003301' }),
				expect.objectContaining({ success: true, autoCallId: taskId, phone: '79990003302' }),
			]);
			expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
			for (const number of ['79990003301', '79990003302'])
				expect(candidatesWithPhone(sim, number)[0].status).toBe('CANCELLED');
		},
	);

	test('a list of three from an item, and a second item with one number: each output paired to its item', async () => {
		const taskId = await taskWith(['79990003311', '79990003312', '79990003313', '79990003314']);
		const result = await runAction(sim, cancelParameters(taskId, '={{ $json.phones }}'), [
			{ phones: ['79990003311', '79990003312', '79990003313'] },
			{ phones: '79990003314' },
		]);
		expect(result.error).toBeUndefined();
		expect(
			cancelRequests()
				.map((request) => request.query.phone)
				.sort(),
		).toEqual(['79990003311', '79990003312', '79990003313', '79990003314']);
		expect(jsonOf(result).map((json) => json.phone)).toEqual([
			'79990003311',
			'79990003312',
			'79990003313',
			'79990003314',
		]);
		expect(result.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 0 },
			{ item: 0 },
			{ item: 1 },
		]);
	});

	test('one number gives the same single output as before', async () => {
		const taskId = await taskWith(['79990003321']);
		const result = await runAction(sim, cancelParameters(taskId, '79990003321'));
		expect(result.error).toBeUndefined();
		expect(cancelRequests()).toHaveLength(1);
		expect(jsonOf(result)).toEqual([
			expect.objectContaining({ success: true, autoCallId: taskId, phone: '79990003321' }),
		]);
	});
});

describe('bad numbers are refused by name before any request', () => {
	test.each([
		['a typo in the second number', '79990003331, 7999x0003332'],
		['words instead of a number', 'call me'],
		['a list of an object only', '={{ [ { "n": 1 } ] }}'],
	])(
		'%s: nothing sent, the error names the field, the value and the item',
		async (_label, phone) => {
			const taskId = await taskWith([]);
			const result = await runAction(sim, cancelParameters(taskId, phone), [{}, {}]);
			const error = result.error as Error;
			expect(error.message).toMatch(/^Invalid phone: .* \[item 0\]$/);
			expect(apiRequests(sim)).toHaveLength(0);
		},
	);

	test('a bad number in the second item stops the run before the first item is sent', async () => {
		const taskId = await taskWith(['79990003341']);
		const result = await runAction(sim, cancelParameters(taskId, '={{ $json.phones }}'), [
			{ phones: '79990003341' },
			{ phones: '79990003342\r\nabc' },
		]);
		expect((result.error as Error).message).toMatch(/^Invalid phone: .*"abc".* \[item 1\]$/);
		expect(apiRequests(sim)).toHaveLength(0);
	});
});

describe('a partial failure is never a plain success', () => {
	test('the second of three numbers is not in the task: the others are still cancelled, and the error names both lists', async () => {
		const taskId = await taskWith(['79990003351', '79990003353']);
		const result = await runAction(
			sim,
			cancelParameters(taskId, '79990003351, 79990003352, 79990003353'),
		);
		expect(cancelRequests().map((request) => [request.query.phone, request.status])).toEqual([
			['79990003351', 200],
			['79990003352', 404],
			['79990003353', 200],
		]);
		const error = result.error as NodeApiError;
		expect(error.message).toBe('Not every number was cancelled: 79990003352 was not [item 0]');
		expect(error.description).toContain('Cancelled: 79990003351, 79990003353.');
		expect(error.description).toMatch(
			/Not cancelled \(these people may still be called\): 79990003352 \(.*\)\./,
		);
		expect(error.httpCode).toBe('404');
		expect(candidatesWithPhone(sim, '79990003351')[0].status).toBe('CANCELLED');
		expect(candidatesWithPhone(sim, '79990003353')[0].status).toBe('CANCELLED');
	});

	test('Continue On Fail: the item is an error item saying which were cancelled; the next item still goes', async () => {
		const taskId = await taskWith(['79990003361', '79990003363']);
		const result = await runAction(
			sim,
			cancelParameters(taskId, '={{ $json.phones }}'),
			[{ phones: '79990003361\n79990003362' }, { phones: '79990003363' }],
			{ continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		const [first, second] = jsonOf(result);
		expect(first.error).toBe('Not every number was cancelled: 79990003362 was not [item 0]');
		expect(first.description).toContain('Cancelled: 79990003361.');
		expect(first.success).toBeUndefined();
		expect(second).toEqual(expect.objectContaining({ success: true, phone: '79990003363' }));
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	test('cancelling is safe to repeat: a 503 on one number is sent again by itself and the number is cancelled', async () => {
		const taskId = await taskWith(['79990003371', '79990003372']);
		sim.injectFault({ path: CANCEL, status: 503, times: 1 });
		const result = await runAction(sim, cancelParameters(taskId, '79990003371, 79990003372'));
		expect(result.error).toBeUndefined();
		expect(cancelRequests().map((request) => [request.query.phone, request.status])).toEqual([
			['79990003371', 503],
			['79990003371', 200],
			['79990003372', 200],
		]);
		expect(jsonOf(result).map((json) => json.phone)).toEqual(['79990003371', '79990003372']);
	});
});
