/**
 * Candidate → Create Batch From Template (nodes/CisAutoCall/actions/candidate/createBatch.operation.ts).
 *
 * Create Batch From Template makes ONE call task per run (the first
 * batch creates it through 4.5, the others join it through autoCallCandidate/batch); a task per
 * batch only when chosen. Batch answers are mapped to items for both readings of "an array of
 * arrays", and run data stays linear. Through n8n-core's engine against the simulator.
 *
 * The row count of the scale test can be raised: CIS_BATCH_ROWS=100000 npx jest test/actions/candidate/createBatch.test.ts
 */
import type { IDataObject } from 'n8n-workflow';
import {
	apiRequests,
	candidate,
	createBatch,
	jsonOf,
	numberedPhones,
	runAction,
	useActionSimulator,
} from '../fixtures';

jest.setTimeout(600_000);

const TEMPLATE_BATCH = '/cis/api/v1/telephony/autoCallCandidate/single/batch';
const ADD_BATCH = '/cis/api/v1/telephony/autoCallCandidate/batch';
const ROWS = Number(process.env.CIS_BATCH_ROWS ?? 10000);

// Calls take long in simulated time, so that the simulator is not busy playing them.
const sim = useActionSimulator({ timeScale: 1000 });

const { phoneOf, phoneItems } = numberedPhones('7977');

/** Every output carries the simulator's candidate for its own phone, in the given task. */
function expectOwnIds(outputs: IDataObject[], taskId?: string) {
	outputs.forEach((json, index) => {
		const candidate = sim.state.candidates.get(json.autoCallCandidateId as string);
		expect(candidate?.phone).toEqual([phoneOf(index)]);
		expect(json.autoCallId).toBe(candidate?.taskId);
		if (taskId) expect(json.autoCallId).toBe(taskId);
	});
}

describe('one call task per run', () => {
	test('250 items, Batch Size 100: 1 task at the simulator; the first batch creates it, the other 2 join it', async () => {
		const result = await runAction(sim, createBatch({ batchSize: 100 }), phoneItems(250));
		expect(result.error).toBeUndefined();
		expect(sim.state.tasks.size).toBe(1);
		const [task] = [...sim.state.tasks.values()];
		expect(task.candidateIds).toHaveLength(250);
		expect(task.status).toBe('PROCESS');
		const requests = apiRequests(sim);
		expect(requests.map((request) => [request.path, request.body.batch.length])).toEqual([
			[TEMPLATE_BATCH, 100],
			[ADD_BATCH, 100],
			[ADD_BATCH, 50],
		]);
		expect(
			requests
				.slice(1)
				.every((request) =>
					request.body.batch.every((entry: IDataObject) => entry.autoCallId === task.id),
				),
		).toBe(true);
		expect(sim.counts()).toMatchObject({ total: 250, duplicates: 0 });
		expectOwnIds(jsonOf(result), task.id);
	});

	test('"A New Task per Batch", the user\'s choice: 250 items, Batch Size 100 make 3 tasks', async () => {
		const result = await runAction(
			sim,
			createBatch({ batchSize: 100 }, { callTasks: 'taskPerBatch' }),
			phoneItems(250),
		);
		expect(result.error).toBeUndefined();
		expect(sim.state.tasks.size).toBe(3);
		expect(apiRequests(sim).map((request) => request.path)).toEqual([
			TEMPLATE_BATCH,
			TEMPLATE_BATCH,
			TEMPLATE_BATCH,
		]);
		expectOwnIds(jsonOf(result));
	});

	test('the choice and its consequence are written next to it', () => {
		const { CisAutoCall } = jest.requireActual('../../../nodes/CisAutoCall/CisAutoCall.node');
		const property = new CisAutoCall().description.properties.find(
			(p: IDataObject) => p.name === 'callTasks',
		);
		expect(property.default).toBe('oneTask');
		const perBatch = property.options.find(
			(option: IDataObject) => option.value === 'taskPerBatch',
		);
		expect(perBatch.description).toMatch(/250 items with Batch Size 100 make 3 campaigns/);
	});

	test('Client External ID promises "added only once" only where the platform does it (adding to a task), not on Create Batch', () => {
		const { CisAutoCall } = jest.requireActual('../../../nodes/CisAutoCall/CisAutoCall.node');
		const properties: IDataObject[] = new CisAutoCall().description.properties;
		const textsFor = (operation: string) =>
			properties
				.filter(
					(p) =>
						((p.displayOptions as IDataObject)?.show as IDataObject)?.operation?.toString() ===
						operation,
				)
				.flatMap((p) => [p, ...((p.options as IDataObject[]) ?? [])])
				.filter((p) => p.name === 'clientExternalId' || p.name === 'clientExternalIdField')
				.map((p) => String(p.description));
		// Additional Fields of versions 1-2 and of version 3 (Callback Data pairs), and the by-field-name field.
		expect(textsFor('createBatch')).toHaveLength(3);
		for (const text of textsFor('createBatch'))
			expect(text).not.toMatch(/once|repeat|twice|duplicate/i);
		expect(textsFor('addToTask')).toHaveLength(3);
		for (const text of textsFor('addToTask'))
			expect(text).toMatch(/repeated ID to a task only once/);
	});

	test("items naming different templates: one task per template, each item in its template's task", async () => {
		sim.addTemplate('tpl-a', { name: 'A' });
		sim.addTemplate('tpl-b', { name: 'B' });
		const items = phoneItems(6).map((item, index) => ({
			...item,
			template: index % 2 === 0 ? 'tpl-a' : 'tpl-b',
		}));
		const result = await runAction(
			sim,
			candidate('createBatch', {
				phone: '={{ $json.phone }}',
				taskSettings: { autoCallTemplateId: '={{ $json.template }}' },
				options: { batchSize: 2 },
			}),
			items,
		);
		expect(result.error).toBeUndefined();
		expect(sim.state.tasks.size).toBe(2);
		expect(apiRequests(sim).filter((request) => request.path === TEMPLATE_BATCH)).toHaveLength(2);
		jsonOf(result).forEach((json, index) => {
			expect(sim.state.tasks.get(json.autoCallId as string)?.templateId).toBe(
				items[index].template,
			);
		});
		expectOwnIds(jsonOf(result));
	});

	test('the first answer names no task: the other batches are not sent, and each of their items says why', async () => {
		sim.injectFault({
			path: TEMPLATE_BATCH,
			status: 200,
			body: [[{ autoCallCandidateId: { identity: 'c-1' } }]],
		});
		const result = await runAction(sim, createBatch({ batchSize: 2 }), phoneItems(5), {
			continueOnFail: true,
		});
		expect(apiRequests(sim)).toHaveLength(1);
		const outputs = jsonOf(result);
		expect(outputs).toHaveLength(5);
		for (const json of outputs.slice(2)) {
			expect(json.error).toMatch(
				/^Not sent: the (answer to the )?request that (created|creates) the call task \(2 items from item 0\)/,
			);
			expect(json.description).toMatch(/not sent, so that nobody is put into a second task/);
		}
		expect(result.items.map((item) => item.pairedItem)).toEqual(
			[0, 1, 2, 3, 4].map((item) => ({ item })),
		);
	});

	test('the request creating the task has an unknown outcome (503 after it was handled): the other batches are not sent', async () => {
		sim.injectFault({ path: TEMPLATE_BATCH, status: 503, afterHandling: true });
		const result = await runAction(sim, createBatch({ batchSize: 2 }), phoneItems(5), {
			continueOnFail: true,
		});
		expect(apiRequests(sim)).toHaveLength(1);
		expect(sim.state.tasks.size).toBe(1);
		const outputs = jsonOf(result);
		for (const json of outputs.slice(0, 2)) expect(json.error).toMatch(/^Outcome unknown/);
		for (const json of outputs.slice(2))
			expect(json.error).toMatch(/^Not sent: .*whether the task exists is unknown/);
	});

	test('without Continue On Fail the same stop is one error listing the items not sent', async () => {
		sim.injectFault({ path: TEMPLATE_BATCH, status: 503, afterHandling: true });
		const result = await runAction(sim, createBatch({ batchSize: 2 }), phoneItems(5));
		const error = result.error as Error & { description?: string };
		expect(error.message).toMatch(/^Outcome unknown.*\[item 0\]/);
		expect(error.description).toContain('Not sent: items 2, 3, 4.');
		expect(apiRequests(sim)).toHaveLength(1);
	});

	test('Continue On Fail, the creating request refused (400: nothing created): the next batch creates the task, the rest join it', async () => {
		sim.injectFault({ path: TEMPLATE_BATCH, status: 400, body: { error: 'try later' } });
		const result = await runAction(
			sim,
			createBatch({ batchSize: 2, concurrency: 1 }),
			phoneItems(6),
			{ continueOnFail: true },
		);
		expect(apiRequests(sim).map((request) => [request.path, request.status])).toEqual([
			[TEMPLATE_BATCH, 400],
			[TEMPLATE_BATCH, 200],
			[ADD_BATCH, 200],
		]);
		expect(sim.state.tasks.size).toBe(1);
		const outputs = jsonOf(result);
		for (const json of outputs.slice(0, 2)) expect(json.httpCode).toBe('400');
		expect(new Set(outputs.slice(2).map((json) => json.autoCallId)).size).toBe(1);
	});
});

describe('batch answers mapped to items', () => {
	test('[[A, B, C]] (one inner array per task): each item gets its own ids, for 4.5 and for the joining batches', async () => {
		sim.setBatchAnswerShape('perTask');
		const result = await runAction(sim, createBatch({ batchSize: 3 }), phoneItems(7));
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.path)).toEqual([
			TEMPLATE_BATCH,
			ADD_BATCH,
			ADD_BATCH,
		]);
		const outputs = jsonOf(result);
		expectOwnIds(outputs);
		expect(new Set(outputs.map((json) => json.autoCallCandidateId)).size).toBe(7);
		expect(
			outputs.every((json) => !('unmappedResponse' in json) && !('candidateIdUnknown' in json)),
		).toBe(true);
	});

	test('an answer whose count does not match: each item says so, the raw answer appears once', async () => {
		const taskAnswer = (candidate: string) => ({
			autoCallId: { identity: 'task-x' },
			autoCallCandidateId: { identity: candidate },
		});
		sim.injectFault({
			path: TEMPLATE_BATCH,
			status: 200,
			body: [[taskAnswer('c-1'), taskAnswer('c-2')]],
		});
		const result = await runAction(sim, createBatch({ batchSize: 3 }), phoneItems(3));
		expect(result.error).toBeUndefined();
		const outputs = jsonOf(result);
		for (const json of outputs) {
			expect(json).toMatchObject({ autoCallId: 'task-x' });
			expect(json).not.toHaveProperty('autoCallCandidateId');
			expect(json.candidateIdUnknown).toMatch(/2 entries for the 3 candidates/);
		}
		expect(outputs.filter((json) => 'unmappedResponse' in json)).toHaveLength(1);
	});

	test(`${ROWS} rows, Batch Size 100, [[A, B, C]] answers: 1 task, every item its own ids, run data linear in the rows`, async () => {
		sim.setBatchAnswerShape('perTask');
		const started = Date.now();
		const result = await runAction(sim, createBatch({ batchSize: 100 }), phoneItems(ROWS));
		const elapsedMs = Date.now() - started;
		expect(result.error).toBeUndefined();
		expect(sim.state.tasks.size).toBe(1);
		const outputs = jsonOf(result);
		expect(outputs).toHaveLength(ROWS);
		expect(new Set(outputs.map((json) => json.autoCallCandidateId)).size).toBe(ROWS);
		const runDataChars = JSON.stringify(outputs).length;
		// About 140 characters per item (two ids and the phone); before, each item carried its batch's whole answer.
		expect(runDataChars).toBeLessThan(ROWS * 200);
		console.log(
			`Create Batch, ${ROWS} rows: tasks created ${sim.state.tasks.size}, requests ${apiRequests(sim).length}, output JSON ${runDataChars} characters, ${elapsedMs} ms`,
		);
	});
});

describe('Candidate → Create Batch From Template (spec 4.5)', () => {
	test('all items in one call task: the first batch creates it (4.5), the others join it; every item gets its own ids', async () => {
		sim.addTemplate('tpl-9', { name: 'Template nine' });
		const items = Array.from({ length: 5 }, (_, index) => ({
			phone: `7999000010${index}`,
			crmId: `C-${index}`,
		}));
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createBatch',
				phone: '={{ $json.phone }}',
				candidateFields: {
					clientExternalId: '={{ $json.crmId }}',
					callbackData: '={{ JSON.stringify({ crmId: $json.crmId }) }}',
				},
				taskSettings: { autoCallTemplateId: 'tpl-9', botSettingsId: 'bot-3', checkPhone: true },
				options: { batchSize: 2 },
			},
			items,
		);
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests.map((request) => request.path)).toEqual([
			'/cis/api/v1/telephony/autoCallCandidate/single/batch',
			'/cis/api/v1/telephony/autoCallCandidate/batch',
			'/cis/api/v1/telephony/autoCallCandidate/batch',
		]);
		expect(sim.state.tasks.size).toBe(1);
		const [taskId] = [...sim.state.tasks.keys()];
		expect(requests[0].body.batch).toEqual(
			[0, 1].map((index) => ({
				phone: [items[index].phone],
				callbackData: { crmId: items[index].crmId },
				clientExternalId: items[index].crmId,
				botSettingsId: 'bot-3',
				autoCallTemplateId: 'tpl-9',
				checkPhone: true,
			})),
		);
		// Joining entries name the task instead of the settings that made it, and carry only the fields
		// their endpoint lists (no checkPhone: see createBatchJoiningFields.test.ts).
		expect(requests.slice(1).flatMap((request) => request.body.batch)).toEqual(
			[2, 3, 4].map((index) => ({
				autoCallId: taskId,
				phone: [items[index].phone],
				callbackData: { crmId: items[index].crmId },
				clientExternalId: items[index].crmId,
			})),
		);
		const outputs = jsonOf(result);
		expect(outputs).toHaveLength(5);
		outputs.forEach((output, index) => {
			expect(output.autoCallId).toBe(taskId);
			const candidate = sim.state.candidates.get(output.autoCallCandidateId as string);
			expect(candidate?.phone).toEqual([items[index].phone]);
			expect(candidate?.taskId).toBe(taskId);
			expect(result.items[index].pairedItem).toEqual({ item: index });
		});
	});

	test("an answer that is not the spec's list of lists is not a success: outcome unknown, and no other batch is sent (needs the transport's answer check)", async () => {
		sim.injectFault({
			path: '/cis/api/v1/telephony/autoCallCandidate/single/batch',
			status: 200,
			body: { accepted: 2 },
		});
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createBatch',
				phone: '={{ $json.phone }}',
				options: { batchSize: 2 },
			},
			[{ phone: '79990000201' }, { phone: '79990000202' }, { phone: '79990000203' }],
			{ continueOnFail: true },
		);
		const outputs = jsonOf(result);
		expect(outputs).toHaveLength(3);
		for (const output of outputs.slice(0, 2))
			expect(String(output.error)).toMatch(/outcome unknown/i);
		expect(String(outputs[2].error)).toMatch(/^Not sent: .*whether the task exists is unknown/);
		expect(apiRequests(sim)).toHaveLength(1);
	});
});
