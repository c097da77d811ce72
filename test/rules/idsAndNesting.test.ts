/**
 * Input refused by name before any request: ids that are not one path segment (`.` would read
 * the task list), and data nested deeper than MAX_INPUT_NESTING (which used to pass the checks,
 * fail while the request was built and be reported "Outcome unknown"). Engine + simulator.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { MAX_INPUT_NESTING, requireId } from '../../nodes/shared/validation';
import {
	apiRequests,
	byId,
	createTaskInState,
	jsonOf,
	runAction,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator();

const nested = (depth: number) => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

describe('ids are ids', () => {
	test('requireId: letters, digits and -_.~:@, not dots alone, nothing that changes the path', () => {
		for (const good of ['0195b6f0-5f3c-7e3a-9a51-1c2d3e4f5a6b', '42', 'a.b', 'task_1~x', ' 42 '])
			expect(requireId('autoCallId', good)).toBe(good.trim());
		for (const bad of ['.', '..', '...', 'a/b', '../x', 'a?b', 'a#b', '%2e', 'a b', 'a\\b', '']) {
			expect([bad, () => requireId('autoCallId', bad)]).toEqual([bad, expect.any(Function)]);
			expect(() => requireId('autoCallId', bad)).toThrow(/^Invalid autoCallId: /);
		}
	});

	test.each([
		['callTask', 'get', { autoCallId: byId('.') }, 'autoCallId'],
		['callTask', 'get', { autoCallId: byId('..') }, 'autoCallId'],
		['callTask', 'pause', { autoCallId: byId('.') }, 'autoCallId'],
		['call', 'deleteRecording', { callId: '.' }, 'callId'],
		['call', 'depersonalize', { callId: '..' }, 'callId'],
		['candidate', 'depersonalize', { autoCallCandidateId: 'x/../y' }, 'autoCallCandidateId'],
	])('%s → %s with %j: refused by name, no request', async (resource, operation, fields, field) => {
		createTaskInState(sim, { name: 'listed' });
		const result = await runAction(sim, { resource, operation, ...fields });
		expect(result.error?.message).toMatch(
			new RegExp(`^Invalid ${field}: .* is not an id.*\\[item 0\\]`),
		);
		expect(apiRequests(sim)).toEqual([]);
	});
});

describe(`data nested deeper than ${MAX_INPUT_NESTING} levels`, () => {
	const createAndRun = (candidateFields: INodeParameters): INodeParameters => ({
		resource: 'candidate',
		operation: 'createAndRun',
		botSettingsId: 'bot-1',
		phone: '79990000001',
		candidateFields,
	});

	test('Callback Data 20,000 levels deep: a named error before any request, not "outcome unknown"', async () => {
		const result = await runAction(sim, createAndRun({ callbackData: nested(20000) }));
		expect(result.error?.message).toMatch(
			new RegExp(
				`^Invalid callbackData: .* is nested deeper than ${MAX_INPUT_NESTING} levels.*\\[item 0\\]`,
			),
		);
		expect(result.error?.message).not.toMatch(/Outcome unknown/);
		expect(apiRequests(sim)).toEqual([]);
	});

	test('variables JSON 20,000 levels deep: the same', async () => {
		const result = await runAction(sim, createAndRun({ variablesJson: nested(20000) }));
		expect(result.error?.message).toMatch(/^Invalid variablesJson: .* is nested deeper than/);
		expect(apiRequests(sim)).toEqual([]);
	});

	test(`exactly ${MAX_INPUT_NESTING} levels pass; one more is refused (also from items' fields, with Continue On Fail as an error item)`, async () => {
		expect(
			(await runAction(sim, createAndRun({ callbackData: nested(MAX_INPUT_NESTING) }))).error,
		).toBeUndefined();
		expect(apiRequests(sim)).toHaveLength(1);
		sim.reset();
		let deep: unknown = 'x';
		for (let i = 0; i < MAX_INPUT_NESTING; i++) deep = [deep];
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				inputMode: 'fromItems',
				phoneField: 'phone',
				callbackDataFields: 'crm',
			},
			[{ phone: '79990000001', crm: deep as IDataObject }],
			{ continueOnFail: true } as never,
		);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0].error).toMatch(/^Invalid callbackData: .* is nested deeper than/);
		expect(apiRequests(sim)).toEqual([]);
	});
});
