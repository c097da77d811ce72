/**
 * Nothing lost: every item ends as a success or an error item in its place (Continue On Fail), and
 * a run that stops says which items succeeded (with their ids), failed and were not sent. Through
 * n8n-core's engine with real HTTP to the simulator.
 */
import type { INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import {
	apiRequests,
	candidateIdFor,
	createAndRunByExpression,
	depersonalizeCall,
	expectInOrder,
	jsonOf,
	numberedPhones,
	runAction,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(60_000);

const SINGLE = '/cis/api/v1/telephony/autoCallCandidate/single';

const sim = useActionSimulator();
const { phoneOf, phoneItems } = numberedPhones('7999');
const createAndRun = (options: INodeParameters = {}) => createAndRunByExpression({ options });

/** Create Batch with the template each item names (its field template), a call task per batch. */
const batchPerItemTemplate = (options: INodeParameters): INodeParameters => ({
	resource: 'candidate',
	operation: 'createBatch',
	phone: '={{ $json.phone }}',
	taskSettings: { autoCallTemplateId: '={{ $json.template }}' },
	callTasks: 'taskPerBatch',
	options,
});

/** Six items in chunks of 2, Create Batch with a template per item; the third names a template the service does not have. */
const runMissingTemplateAt2 = (concurrency: number, extra: { continueOnFail?: boolean } = {}) =>
	runAction(
		sim,
		batchPerItemTemplate({ batchSize: 2, concurrency }),
		phoneItems(6).map((item, index) => ({
			...item,
			template: index === 2 ? 'missing-template' : '',
		})),
		extra,
	);

describe('nothing lost', () => {
	test('Continue On Fail: every failed item is an error item with the reason, in place, with pairedItem', async () => {
		sim.injectFault({
			path: SINGLE,
			status: 400,
			body: {
				timestamp: 1,
				type: 'ValidationException',
				error: 'Phone is blacklisted',
				details: null,
			},
		});
		sim.injectFault({ path: SINGLE, status: 503 });
		const result = await runAction(sim, createAndRun({ concurrency: 1 }), phoneItems(5), {
			continueOnFail: true,
		});
		expect(result.error).toBeUndefined();
		expectInOrder(result, 5);
		const outputs = jsonOf(result);
		expect(outputs[0]).toMatchObject({
			httpCode: '400',
			error: expect.stringMatching(/Phone is blacklisted/),
		});
		expect(outputs[1]).toMatchObject({
			httpCode: '503',
			error: expect.stringMatching(/Outcome unknown/),
		});
		for (const index of [2, 3, 4])
			expect(outputs[index].autoCallCandidateId).toBe(candidateIdFor(sim, phoneOf(index)));
	});

	test('without Continue On Fail the error lists the items that succeeded (with ids), failed, and were not sent', async () => {
		const calls = Array.from({ length: 6 }, () => sim.addCall());
		const items = calls.map((call) => ({ callId: call.id }));
		items[2] = { callId: 'no-such-call' };
		const result = await runAction(sim, depersonalizeCall({ concurrency: 1 }), items);
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/404.*Call not found.*\[item 2\]/);
		expect(error.context.itemIndex).toBe(2);
		expect(error.description).toContain(
			`Succeeded before the stop: 0 (callId ${calls[0].id}), 1 (callId ${calls[1].id}).`,
		);
		expect(error.description).toContain('Failed: items 2.');
		expect(error.description).toContain('Not sent: items 3, 4, 5.');
		expect(apiRequests(sim)).toHaveLength(3);
	});

	test('a failed chunk without Continue On Fail: its items failed, earlier ones listed with their candidate ids, later ones not sent', async () => {
		const result = await runMissingTemplateAt2(1);
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/404.*Template not found.*\[item 2\]/);
		const id0 = candidateIdFor(sim, phoneOf(0));
		const id1 = candidateIdFor(sim, phoneOf(1));
		expect(error.description).toContain(
			`Succeeded before the stop: 0 (autoCallCandidateId ${id0}), 1 (autoCallCandidateId ${id1}).`,
		);
		expect(error.description).toContain('Failed: items 2, 3.');
		expect(error.description).toContain('Not sent: items 4, 5.');
		expect(apiRequests(sim)).toHaveLength(2);
	});

	test('the same chunk failure with Continue On Fail: an error item for each of its items, the rest succeed', async () => {
		const result = await runMissingTemplateAt2(2, { continueOnFail: true });
		expect(result.error).toBeUndefined();
		expectInOrder(result, 6);
		const outputs = jsonOf(result);
		for (const index of [2, 3])
			expect(outputs[index]).toMatchObject({
				httpCode: '404',
				error: expect.stringMatching(/Template not found/),
			});
		for (const index of [0, 1, 4, 5])
			expect(outputs[index].autoCallCandidateId).toBe(candidateIdFor(sim, phoneOf(index)));
	});
});
