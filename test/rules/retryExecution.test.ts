/**
 * n8n's "Retry" of a failed execution starts a new execution that runs the node
 * again with all its items. The node records each creating request before sending it through
 * n8n's de-duplication helpers (kept in n8n's database per workflow and node; here the harness's
 * in-memory stand-in, test/engine/deduplicator.ts), so the new execution sends nothing the failed
 * one created. Through n8n-core's engine against the simulator; creations counted there.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { harnessDeduplicator } from '../engine/deduplicator';
import { HARNESS_WORKFLOW_ID } from '../engine/setup';
import type { RunResult } from '../engine/nodeRunner';
import {
	apiRequests,
	byId,
	createTaskInState,
	jsonOf,
	numberedPhones,
	runAction,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(120_000);

const SINGLE = '/cis/api/v1/telephony/autoCallCandidate/single';
const ADD_BATCH = '/cis/api/v1/telephony/autoCallCandidate/batch';

const sim = useActionSimulator();

const { phoneOf, phoneItems } = numberedPhones('7987');

const createAndRun = (options: IDataObject = {}): INodeParameters => ({
	resource: 'candidate',
	operation: 'createAndRun',
	botSettingsId: 'bot-1',
	phone: '={{ $json.phone }}',
	options: { concurrency: 1, ...options },
});

function createdPerPhone(): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const candidate of sim.state.candidates.values())
		counts[candidate.phone[0]] = (counts[candidate.phone[0]] ?? 0) + 1;
	return counts;
}

/** The entries of a node in the harness's stand-in for n8n's database. */
const entriesOf = (nodeId: string) =>
	harnessDeduplicator.lists.get(JSON.stringify([HARNESS_WORKFLOW_ID, `n:${nodeId}`])) ?? [];
const partOf = (key: string) => Number(key.split(':')[2]);

/** The keys of the latest part of the window: one per request recorded by the last run. */
function currentKeys(nodeId: string): string[] {
	const entries = entriesOf(nodeId);
	const latest = Math.max(...entries.map(partOf));
	return entries.filter((key) => partOf(key) === latest);
}

/** As if `parts` quarters of the window had passed: every recorded key moves that many parts back. */
function letTimePass(nodeId: string, parts: number): void {
	const list = entriesOf(nodeId);
	list.forEach((key, index) => {
		const fields = key.split(':');
		fields[2] = String(partOf(key) - parts);
		list[index] = fields.join(':');
	});
}

function hintsOf(result: RunResult) {
	return result.runData[result.nodeName]?.[0]?.hints ?? [];
}

function postsTo(path: string) {
	return apiRequests(sim).filter((request) => request.path === path && request.method === 'POST');
}

describe("n8n's Retry of a failed execution sends nothing the failed execution created", () => {
	test('Create and Run, 5 items answered 200, 200, 200, 502: the retry (a new execution of the same node) sends only item 4; items 0-2 say "already done" with their ids', async () => {
		// The service creates item 3's candidate, then answers 502: its outcome is unknown.
		sim.injectFault({ path: SINGLE, status: 502, afterHandling: true, bodyIncludes: phoneOf(3) });
		const failed = await runAction(sim, createAndRun(), phoneItems(5), { nodeId: 'retried-node' });
		expect((failed.error as Error).message).toMatch(/^Outcome unknown.*\[item 3\]/);
		expect(postsTo(SINGLE)).toHaveLength(4);
		// n8n's store holds the current part's key of each request sent (items 0-3); item 4, never
		// sent, left it.
		expect(currentKeys('retried-node')).toHaveLength(4);

		const retried = await runAction(sim, createAndRun(), phoneItems(5), {
			nodeId: 'retried-node',
			mode: 'retry',
		});
		expect(retried.error).toBeUndefined();
		expect(postsTo(SINGLE)).toHaveLength(5);
		expect(createdPerPhone()).toEqual(
			Object.fromEntries([0, 1, 2, 3, 4].map((index) => [phoneOf(index), 1])),
		);
		expect(sim.counts()).toMatchObject({ total: 5, duplicates: 0 });

		const outputs = jsonOf(retried);
		expect(outputs).toHaveLength(5);
		for (const index of [0, 1, 2]) {
			const [candidate] = [...sim.state.candidates.values()].filter(
				(c) => c.phone[0] === phoneOf(index),
			);
			expect(outputs[index]).toMatchObject({
				alreadyDone: true,
				autoCallCandidateId: candidate.id,
			});
			expect(outputs[index].note).toMatch(/^Already done by an earlier execution/);
		}
		// Item 3's outcome was unknown: not sent again, and its output says where to look.
		expect(outputs[3]).toMatchObject({ alreadyDone: true });
		expect(outputs[3].autoCallCandidateId).toBeUndefined();
		expect(outputs[3].note).toMatch(/its error, which lists the items done with their ids/);
		expect(outputs[4].alreadyDone).toBeUndefined();
		expect(outputs[4].autoCallCandidateId).toEqual(expect.any(String));
		// Not a plain success: the run carries a notice above the output.
		expect(hintsOf(retried)).toEqual([
			expect.objectContaining({
				type: 'warning',
				location: 'outputPane',
				message: expect.stringMatching(
					/^4 items were not sent again: .*nobody is called twice.*The other 1 was sent\.$/,
				),
			}),
		]);
	});

	test('an item the service refused (400) leaves the record: the next execution sends it, and only it', async () => {
		sim.injectFault({
			path: SINGLE,
			status: 400,
			body: { error: 'bad phone' },
			bodyIncludes: phoneOf(1),
		});
		const failed = await runAction(sim, createAndRun(), phoneItems(3), {
			nodeId: 'refused-node',
			continueOnFail: true,
		});
		expect(jsonOf(failed)[1].error).toBeDefined();
		const again = await runAction(sim, createAndRun(), phoneItems(3), {
			nodeId: 'refused-node',
			mode: 'retry',
		});
		expect(again.error).toBeUndefined();
		expect(postsTo(SINGLE).map((request) => (request.body as IDataObject).phone)).toEqual(
			[0, 1, 2, 1].map((index) => [phoneOf(index)]),
		);
		expect(jsonOf(again).map((json) => json.alreadyDone ?? false)).toEqual([true, false, true]);
	});

	test('Repeat Protection 0: even a retry sends everything again', async () => {
		await runAction(sim, createAndRun({ repeatProtectionHours: 0 }), phoneItems(2), {
			nodeId: 'off-node',
		});
		const again = await runAction(sim, createAndRun({ repeatProtectionHours: 0 }), phoneItems(2), {
			nodeId: 'off-node',
			mode: 'retry',
		});
		expect(again.error).toBeUndefined();
		expect(postsTo(SINGLE)).toHaveLength(4);
	});

	test('the record holds for at least three quarters of Repeat Protection and at most all of it', async () => {
		await runAction(sim, createAndRun({ repeatProtectionHours: 8 }), phoneItems(2), {
			nodeId: 'window-node',
		});
		letTimePass('window-node', 3);
		const within = await runAction(sim, createAndRun({ repeatProtectionHours: 8 }), phoneItems(2), {
			nodeId: 'window-node',
			mode: 'retry',
		});
		expect(jsonOf(within).map((json) => json.alreadyDone)).toEqual([true, true]);
		expect(postsTo(SINGLE)).toHaveLength(2);
		letTimePass('window-node', 1);
		const after = await runAction(sim, createAndRun({ repeatProtectionHours: 8 }), phoneItems(2), {
			nodeId: 'window-node',
			mode: 'retry',
		});
		expect(after.error).toBeUndefined();
		expect(jsonOf(after).map((json) => json.alreadyDone)).toEqual([undefined, undefined]);
		expect(postsTo(SINGLE)).toHaveLength(4);
	});

	test('20 executions at once, one lead each (a burst of webhook leads): every request stays on the record, so a retry of each calls nobody again', async () => {
		// n8n reads the record and writes it back whole: calls at once would drop one another's keys.
		const leads = phoneItems(20);
		const runs = await Promise.all(
			leads.map((lead) => runAction(sim, createAndRun(), [lead], { nodeId: 'burst-node' })),
		);
		for (const run of runs) expect(run.error).toBeUndefined();
		expect(currentKeys('burst-node')).toHaveLength(20);
		const retries = await Promise.all(
			leads.map((lead) =>
				runAction(sim, createAndRun(), [lead], { nodeId: 'burst-node', mode: 'retry' }),
			),
		);
		expect(retries.map((retry) => jsonOf(retry)[0].alreadyDone)).toEqual(leads.map(() => true));
		expect(postsTo(SINGLE)).toHaveLength(20);
		expect(createdPerPhone()).toEqual(Object.fromEntries(leads.map((lead) => [lead.phone, 1])));
	});

	test('another worker writes the same record at the same moment and drops the key just written: it is written again before anyone is called', async () => {
		const record = harnessDeduplicator.checkProcessedAndRecord.bind(harnessDeduplicator);
		let otherWorkerWrote = false;
		const spy = jest
			.spyOn(harnessDeduplicator, 'checkProcessedAndRecord')
			.mockImplementation(async (items, scope, data, options) => {
				if (otherWorkerWrote) return await record(items, scope, data, options);
				otherWorkerWrote = true;
				// Read at the same moment as this process's call, written just after it: this process's key is gone.
				const mine = record(items, scope, data, options);
				await record(['written by another worker'], scope, data, options);
				return await mine;
			});
		try {
			await runAction(sim, createAndRun(), phoneItems(1), { nodeId: 'two-workers-node' });
		} finally {
			spy.mockRestore();
		}
		// Both writers' keys are on the record.
		expect(
			entriesOf('two-workers-node').filter((key) => key.startsWith('cis-request:')),
		).toHaveLength(1);
		expect(entriesOf('two-workers-node')).toContain('written by another worker');
		const retried = await runAction(sim, createAndRun(), phoneItems(1), {
			nodeId: 'two-workers-node',
			mode: 'retry',
		});
		expect(jsonOf(retried)[0].alreadyDone).toBe(true);
		expect(postsTo(SINGLE)).toHaveLength(1);
	});

	test('two retries of the same lead at once, with nothing on the record: one sends, the other leaves it out, as if one ran after the other', async () => {
		const [lead] = phoneItems(1);
		const retries = await Promise.all(
			[0, 1].map(() =>
				runAction(sim, createAndRun(), [lead], { nodeId: 'twin-retries-node', mode: 'retry' }),
			),
		);
		expect(postsTo(SINGLE)).toHaveLength(1);
		expect(retries.map((retry) => jsonOf(retry)[0].alreadyDone ?? false).sort()).toEqual([
			false,
			true,
		]);
	});

	test('when asking the record again fails, the first answer still counts: a retry leaves out the request an earlier execution sent', async () => {
		const first = await runAction(sim, createAndRun(), phoneItems(1), {
			nodeId: 'recheck-fails-node',
		});
		expect(first.error).toBeUndefined();
		// The retry asks for the request's keys of every part of the window: the current one is on the
		// record, the earlier ones are new and asked again, and that second call fails.
		const record = harnessDeduplicator.checkProcessedAndRecord.bind(harnessDeduplicator);
		let calls = 0;
		const spy = jest
			.spyOn(harnessDeduplicator, 'checkProcessedAndRecord')
			.mockImplementation(async (items, scope, data, options) => {
				calls++;
				if (calls === 2) throw new Error('SQLITE_BUSY: database is locked');
				return await record(items, scope, data, options);
			});
		let retried: RunResult;
		try {
			retried = await runAction(sim, createAndRun(), phoneItems(1), {
				nodeId: 'recheck-fails-node',
				mode: 'retry',
			});
		} finally {
			spy.mockRestore();
		}
		expect(calls).toBe(2);
		expect(jsonOf(retried)[0].alreadyDone).toBe(true);
		expect(postsTo(SINGLE)).toHaveLength(1);
	});

	test('another node (or workflow) with the same items sends them: the record is per workflow and node', async () => {
		await runAction(sim, createAndRun(), phoneItems(2), { nodeId: 'node-a' });
		await runAction(sim, createAndRun(), phoneItems(2), { nodeId: 'node-b', mode: 'retry' });
		expect(postsTo(SINGLE)).toHaveLength(4);
	});

	test('Add Many to Task: a batch answered 503 (outcome unknown) is not sent by the retry either', async () => {
		const task = createTaskInState(sim, { name: 'Retry task' });
		const parameters: INodeParameters = {
			resource: 'candidate',
			operation: 'addManyToTask',
			inputMode: 'fromItems',
			autoCallId: byId(task.id),
		};
		sim.injectFault({ path: ADD_BATCH, status: 503, afterHandling: true });
		const failed = await runAction(sim, parameters, phoneItems(3), { nodeId: 'batch-node' });
		expect((failed.error as Error).message).toMatch(/^Outcome unknown/);
		const retried = await runAction(sim, parameters, phoneItems(3), {
			nodeId: 'batch-node',
			mode: 'retry',
		});
		expect(retried.error).toBeUndefined();
		expect(postsTo(ADD_BATCH)).toHaveLength(1);
		expect(jsonOf(retried).every((json) => json.alreadyDone === true)).toBe(true);
		expect(sim.counts()).toMatchObject({ total: 3, duplicates: 0 });
	});
});

describe('every new execution sends what it is given: only a retry of a failed execution leaves out what was sent', () => {
	const modes = ['manual', 'trigger', 'webhook', 'integrated', 'cli', 'internal'] as const;
	for (const typeVersion of [1, 2]) {
		for (const mode of modes) {
			test(`Create and Run version ${typeVersion}, executed twice as new executions (mode ${mode}): both send, nobody is left out`, async () => {
				const first = await runAction(sim, createAndRun(), phoneItems(2), {
					nodeId: `again-${typeVersion}-${mode}`,
					mode,
					typeVersion,
				});
				const second = await runAction(sim, createAndRun(), phoneItems(2), {
					nodeId: `again-${typeVersion}-${mode}`,
					mode,
					typeVersion,
				});
				expect(first.error).toBeUndefined();
				expect(second.error).toBeUndefined();
				expect(postsTo(SINGLE)).toHaveLength(4);
				expect(jsonOf(second).map((json) => json.alreadyDone)).toEqual([undefined, undefined]);
				expect(hintsOf(second)).toEqual([]);
				// ... and a retry after them still finds what they sent.
				const retry = await runAction(sim, createAndRun(), phoneItems(2), {
					nodeId: `again-${typeVersion}-${mode}`,
					mode: 'retry',
					typeVersion,
				});
				expect(postsTo(SINGLE)).toHaveLength(4);
				expect(jsonOf(retry).map((json) => json.alreadyDone)).toEqual([true, true]);
			});
		}
	}

	test("Add to Task executed twice sends twice; a failed second run does not take the first run's record off", async () => {
		const task = createTaskInState(sim, { name: 'Twice task' });
		const parameters: INodeParameters = {
			resource: 'candidate',
			operation: 'addToTask',
			autoCallId: byId(task.id),
			phone: '={{ $json.phone }}',
			options: { concurrency: 1 },
		};
		await runAction(sim, parameters, phoneItems(1), { nodeId: 'twice-add' });
		sim.injectFault({
			path: '/cis/api/v1/telephony/autoCallCandidate',
			status: 400,
			body: { error: 'bad phone' },
		});
		const refused = await runAction(sim, parameters, phoneItems(1), {
			nodeId: 'twice-add',
			continueOnFail: true,
		});
		expect(jsonOf(refused)[0].error).toBeDefined();
		const retry = await runAction(sim, parameters, phoneItems(1), {
			nodeId: 'twice-add',
			mode: 'retry',
		});
		expect(jsonOf(retry)[0]).toMatchObject({ alreadyDone: true });
		expect(apiRequests(sim).filter((request) => request.method === 'POST')).toHaveLength(2);
	});
});
