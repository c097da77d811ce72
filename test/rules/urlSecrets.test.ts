/**
 * The trigger's webhook URL carries `?secret=`: every URL the action node outputs or quotes shows
 * it masked (nodes/shared/urlSecrets.ts), in Get / Get Many outputs, in tool mode, and in errors
 * that quote the service's details. Through n8n-core's engine with real HTTP to the simulator.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { maskUrlSecrets, maskUrlSecretsInText } from '../../nodes/shared/urlSecrets';
import {
	byId,
	createTaskInState,
	jsonOf,
	runAction,
	runTool,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(60_000);

const SECRET = '6f1d0c9e5b3a47f2a8e1d4c7b0a39e5f';
const HOOK = `https://n8n.example.com/webhook/abc/webhook?secret=${SECRET}`;

const sim = useActionSimulator();

const taskWithHook = () =>
	createTaskInState(sim, {
		name: 'Hooked',
		webhookUrls: [{ url: HOOK, events: { CALL_ENDED: { name: 'CALL_ENDED', value: true } } }, HOOK],
	});

describe('maskUrlSecrets', () => {
	test('masks secret= in query strings, also percent-encoded, and nothing else', () => {
		expect(maskUrlSecretsInText(`see ${HOOK} and http://x/y?a=1&secret=abc&b=2#f`)).toBe(
			'see https://n8n.example.com/webhook/abc/webhook?secret=*** and http://x/y?a=1&secret=***&b=2#f',
		);
		expect(maskUrlSecretsInText('http://a/?next=http%3A%2F%2Fb%2Fw%3Fsecret%3Dabc%26x%3D1')).toBe(
			'http://a/?next=http%3A%2F%2Fb%2Fw%3Fsecret%3D***%26x%3D1',
		);
		expect(
			maskUrlSecretsInText('the secret=abc is not in a URL; mysecret=1 neither; ?secretary=1'),
		).toBe('the secret=abc is not in a URL; mysecret=1 neither; ?secretary=1');
		const plain = { a: [1, { b: 'no url' }] };
		expect(maskUrlSecrets(plain)).toBe(plain);
		expect(maskUrlSecrets({ deep: [{ url: HOOK }] })).toEqual({
			deep: [{ url: 'https://n8n.example.com/webhook/abc/webhook?secret=***' }],
		});
	});

	test('deep nesting costs no recursion of its own (1,000 levels)', () => {
		let deep: unknown = { url: HOOK };
		for (let i = 0; i < 1000; i++) deep = [deep];
		expect(JSON.stringify(maskUrlSecrets(deep))).not.toContain(SECRET);
	});
});

describe('outputs and errors hold no webhook secret', () => {
	test("Get: the task's webhook URLs come out with secret=***", async () => {
		const stored = taskWithHook();
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'get',
			autoCallId: byId(stored.id),
		});
		expect(result.error).toBeUndefined();
		const text = JSON.stringify(jsonOf(result));
		expect(text).not.toContain(SECRET);
		expect(text).toContain('/webhook/abc/webhook?secret=***');
	});

	test('Get Many: the same for every task', async () => {
		taskWithHook();
		taskWithHook();
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'getMany',
			returnAll: true,
		});
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)).toHaveLength(2);
		expect(JSON.stringify(jsonOf(result))).not.toContain(SECRET);
	});

	test("an error quoting the service's details (which echo a webhook URL) shows it masked, thrown or as an error item", async () => {
		const stored = taskWithHook();
		const details = { webhookUrls: [HOOK], note: `refused ${HOOK}` };
		for (const continueOnFail of [false, true]) {
			sim.injectFault({ method: 'GET', status: 400, body: { error: `bad hook ${HOOK}`, details } });
			const result = await runAction(
				sim,
				{ resource: 'callTask', operation: 'get', autoCallId: byId(stored.id) },
				[{}],
				{ continueOnFail } as never,
			);
			const seen = JSON.stringify({
				items: result.items,
				error: result.error,
				message: result.error?.message,
				description: (result.error as { description?: string })?.description,
			});
			expect([continueOnFail, seen.includes(SECRET)]).toEqual([continueOnFail, false]);
			expect(seen).toContain('secret=***');
		}
	});

	test('as an AI Agent tool, the model reads the task without the secret', async () => {
		const stored = taskWithHook();
		// Simplify off: the full answer, which holds the task's webhook URLs.
		const parameters: INodeParameters = {
			resource: 'callTask',
			operation: 'get',
			autoCallId: byId(stored.id),
			simplify: false,
		};
		const result = await runTool(sim, parameters, [{} as IDataObject]);
		expect(result.error).toBeUndefined();
		expect(result.observations).toHaveLength(1);
		expect(result.observations[0]).toContain('secret=***');
		expect(result.observations[0]).not.toContain(SECRET);
	});
});
