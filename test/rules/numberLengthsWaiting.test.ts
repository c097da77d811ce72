/**
 * Number lengths on the waiting operations (Create and Run and Wait for Result, Add to Task and Wait for
 * Result): a number of the wrong length for its country code is refused by name and item before any
 * request, and the execution does not wait for it; a whole number is called. Through n8n-core's
 * engine with n8n's waiting executions (useWaitingN8n), against the simulator.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	byId,
	createTaskInState,
	target,
	useWaitingN8n,
	waitParameters,
} from '../actions/fixtures';

const { sim, startN8n, runWaiting } = useWaitingN8n();

function apiRequests() {
	return sim.requests.filter((request) => request.path.startsWith('/cis/api/v1/'));
}

const refusals: [string, string][] = [
	[
		'+7 999 000-55',
		'Refused: +7 999 000-55 is cut off: it has 9 digits, and a number with country code 7 has 11, so nothing was called',
	],
	[
		'7999000555',
		'Refused: 7999000555 has no country code (a national number of 10 digits), so nothing was called; set Default Country in Options to the country of the number, or write it with + and its country code (+<country code> 7999000555)',
	],
	[
		'7999000555511',
		'Refused: 7999000555511 has 13 digits, which fits no country code (a number beginning with 7 has 11), so nothing was called; write it with + and its country code (+<country code> 7999000555511), or set Default Country in Options to complete numbers written without it',
	],
];

const operations: Record<string, () => INodeParameters> = {
	'Create and Run and Wait for Result': () => waitParameters,
	'Add to Task and Wait for Result': () => ({
		authentication: 'accessToken',
		resource: 'candidate',
		operation: 'addToTaskAndWait',
		autoCallId: byId(createTaskInState(sim, { name: 'Waiting numbers' }).id),
		phone: '={{ $json.phone }}',
		waitAtMost: 2,
		waitUnit: 'hours',
	}),
};

describe.each(Object.keys(operations))('%s', (name) => {
	test.each(refusals)(
		'%s is refused by name and item, with 0 requests and no wait',
		async (phone, message) => {
			const { waiting } = await startN8n();
			const execution = await runWaiting(
				waiting,
				[{ phone: '+7 999 000-55-55' }, { phone }],
				operations[name](),
			);
			expect(apiRequests()).toHaveLength(0);
			expect(execution.status).toBe('finished');
			expect(execution.run.data.resultData.error?.message).toBe(`${message} [item 1]`);
		},
	);

	test('with Continue On Fail: the wrong number is an error item (pairedItem), the whole ones (+7, and 8 first) are called and waited for', async () => {
		const { waiting, eventUrl } = await startN8n();
		sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)] });
		const items: IDataObject[] = [
			{ phone: '+7 999 000-55-55' },
			{ phone: '7999000555' },
			{ phone: '8 999 000 55 56' },
		];
		const execution = await runWaiting(waiting, items, operations[name](), {
			continueOnFail: true,
		});
		const sent = apiRequests()
			.filter((request) => /autoCallCandidate/.test(request.path))
			.map((request) => ((request.body as IDataObject).phone as string[])[0]);
		expect(sent.sort()).toEqual(['79990005555', '89990005556']);
		expect(execution.status).toBe('waiting');
		expect(execution.waitingItems.map((item) => item.json.error)).toEqual([
			undefined,
			`${refusals[1][1]} [item 1]`,
			undefined,
		]);
		expect(execution.waitingItems.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(execution.run.data.resultData.error).toBeUndefined();
	});
});
