/**
 * The limits across runs: Max Calls per Day and Call a Number Again After (Hours). They count on the
 * node's record in n8n's database (here the harness's stand-in, test/engine/deduplicator.ts, which
 * reads and writes its row whole as n8n does), over every execution of the node: agent runs (an MCP
 * tool call, a chat message), executions at once, Retry On Fail, n8n's Retry of a failed execution.
 * Through n8n-core's engine against the simulator; calls counted there.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { readGuardrails } from '../../nodes/CisAutoCall/actions/runFeatures/guardrails/numbers';
import { processMemory } from '../../nodes/shared/processMemory';
import { harnessDeduplicator } from '../engine/deduplicator';
import { HARNESS_WORKFLOW_ID } from '../engine/setup';
import {
	apiRequests,
	createAndRunTool,
	jsonOf,
	numberedPhones,
	runAction,
	runTool,
	toolAnswerOf,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(120_000);

const SINGLE = '/cis/api/v1/telephony/autoCallCandidate/single';

const sim = useActionSimulator();

const { phoneOf, phoneItems } = numberedPhones('7986');

const createAndRun = (options: IDataObject = {}): INodeParameters => ({
	resource: 'candidate',
	operation: 'createAndRun',
	botSettingsId: 'bot-1',
	phone: '={{ $json.phone }}',
	options: { concurrency: 1, ...options } as INodeParameters,
});

const calls = () =>
	apiRequests(sim).filter((request) => request.path === SINGLE && request.method === 'POST');
const calledPhones = () => calls().map((request) => (request.body as IDataObject).phone);
const entriesOf = (nodeId: string) =>
	harnessDeduplicator.lists.get(JSON.stringify([HARNESS_WORKFLOW_ID, `n:${nodeId}`])) ?? [];
const DAILY_REFUSAL =
	/^Refused: the daily limit of 3 calls of this node \("Max Calls per Day"\) is reached: no more calls can be placed before \d{4}-\d\d-\d\d \d\d:\d\d UTC, so nothing was sent/;

/**
 * As if `parts` quarters of a window had passed: every key of `kind` moves that many parts back, on
 * the record and in what the process remembers of the slots it took.
 */
function letTimePass(nodeId: string, kind: string, parts: number): void {
	const moved = (key: string) => {
		const fields = key.split(':');
		return fields[0] === kind
			? [fields[0], fields[1], String(Number(fields[2]) - parts), ...fields.slice(3)].join(':')
			: key;
	};
	const list = entriesOf(nodeId);
	list.forEach((key, index) => (list[index] = moved(key)));
	const scope = JSON.stringify([HARNESS_WORKFLOW_ID, nodeId]);
	const mine = processMemory<string[]>('dailySlotsClaimed').get(scope);
	if (mine) processMemory<string[]>('dailySlotsClaimed').set(scope, mine.map(moved));
}

describe('Max Calls per Day', () => {
	test('an MCP client or a chat: 5 agent runs (one call each) against 3 place 3; the 4th and 5th are told the daily limit is reached', async () => {
		const answers = [];
		for (let index = 0; index < 5; index++) {
			const run = await runTool(
				sim,
				createAndRunTool({ maxCallsPerDay: 3 }),
				[{ phone: phoneOf(index) }],
				{ nodeId: 'agent-day-node' },
			);
			answers.push(toolAnswerOf(run.observations[0]));
		}
		expect(answers.map((answer) => answer.outcome)).toEqual([
			'done',
			'done',
			'done',
			'refused',
			'refused',
		]);
		expect(answers[3].message).toMatch(DAILY_REFUSAL);
		expect(answers[3].message).toMatch(
			/Tell the user that the daily limit of calls is reached and when calls can be placed again; place no more calls\.$/,
		);
		expect(calledPhones()).toEqual([0, 1, 2].map((index) => [phoneOf(index)]));
	});

	test('six executions at once, one lead each, against 3: exactly 3 are called (one process counts exactly)', async () => {
		const runs = await Promise.all(
			phoneItems(6).map((lead) =>
				runAction(sim, createAndRun({ maxCallsPerDay: 3 }), [lead], {
					nodeId: 'burst-day-node',
					continueOnFail: true,
				}),
			),
		);
		expect(calls()).toHaveLength(3);
		const refused = runs.map((run) => jsonOf(run)[0]).filter((json) => json.error !== undefined);
		expect(refused).toHaveLength(3);
		for (const json of refused) expect(String(json.error)).toMatch(DAILY_REFUSAL);
	});

	test('a larger day: 60 executions at once against 50, the slots asked a few at a time: exactly 50 are called', async () => {
		const runs = await Promise.all(
			phoneItems(60).map((lead) =>
				runAction(sim, createAndRun({ maxCallsPerDay: 50 }), [lead], {
					nodeId: 'large-day-node',
					continueOnFail: true,
				}),
			),
		);
		expect(calls()).toHaveLength(50);
		expect(runs.filter((run) => jsonOf(run)[0].error !== undefined)).toHaveLength(10);
		// Nothing recorded beyond what the calls hold: 50 slots of 5 keys (the part of the call and the 4 before) and a seat each.
		expect(
			entriesOf('large-day-node').filter((key) => key.startsWith('cis-day-slot:')),
		).toHaveLength(300);
	});

	test('one run of 5 items against 3: items 0-2 are called, 3 and 4 refused; a later run is refused too', async () => {
		const first = await runAction(sim, createAndRun({ maxCallsPerDay: 3 }), phoneItems(5), {
			nodeId: 'items-day-node',
			continueOnFail: true,
		});
		expect(jsonOf(first).map((json) => json.error === undefined)).toEqual([
			true,
			true,
			true,
			false,
			false,
		]);
		const later = await runAction(
			sim,
			createAndRun({ maxCallsPerDay: 3 }),
			[{ phone: phoneOf(9) }],
			{ nodeId: 'items-day-node', continueOnFail: true },
		);
		expect(String(jsonOf(later)[0].error)).toMatch(DAILY_REFUSAL);
		expect(calls()).toHaveLength(3);
	});

	test("another worker's write drops the slot this process took (n8n writes the record whole): the next claim of this process writes it back, and counts it", async () => {
		await runAction(sim, createAndRun({ maxCallsPerDay: 1 }), phoneItems(1), {
			nodeId: 'dropped-slot-node',
		});
		const list = entriesOf('dropped-slot-node');
		// The slot's 5 keys (its seat, the key of that claim alone, is not asked again).
		const dropped = list.filter(
			(key) => key.startsWith('cis-day-slot:') && key.split(':').length === 4,
		);
		expect(dropped).toHaveLength(5);
		list.splice(0, list.length, ...list.filter((key) => !key.startsWith('cis-day-slot:')));
		const next = await runAction(
			sim,
			createAndRun({ maxCallsPerDay: 1 }),
			[{ phone: phoneOf(1) }],
			{ nodeId: 'dropped-slot-node', continueOnFail: true },
		);
		expect(String(jsonOf(next)[0].error)).toMatch(/daily limit of 1 call /);
		expect(
			entriesOf('dropped-slot-node')
				.filter((key) => key.startsWith('cis-day-slot:'))
				.sort(),
		).toEqual(dropped.sort());
		expect(calls()).toHaveLength(1);
	});

	test('a call the service refused (400) did not start: it does not count', async () => {
		sim.injectFault({
			path: SINGLE,
			status: 400,
			body: { error: 'bad phone' },
			bodyIncludes: phoneOf(0),
		});
		const refused = await runAction(sim, createAndRun({ maxCallsPerDay: 1 }), phoneItems(1), {
			nodeId: 'given-back-node',
			continueOnFail: true,
		});
		expect(jsonOf(refused)[0].error).toBeDefined();
		const next = await runAction(
			sim,
			createAndRun({ maxCallsPerDay: 1 }),
			[{ phone: phoneOf(1) }],
			{ nodeId: 'given-back-node' },
		);
		expect(next.error).toBeUndefined();
		expect(calledPhones()).toEqual([[phoneOf(0)], [phoneOf(1)]]);
	});

	test('a call holds its slot a whole day, and at most a quarter more', async () => {
		await runAction(sim, createAndRun({ maxCallsPerDay: 1 }), phoneItems(1), {
			nodeId: 'day-window-node',
		});
		letTimePass('day-window-node', 'cis-day-slot', 4);
		const within = await runAction(
			sim,
			createAndRun({ maxCallsPerDay: 1 }),
			[{ phone: phoneOf(1) }],
			{ nodeId: 'day-window-node', continueOnFail: true },
		);
		expect(String(jsonOf(within)[0].error)).toMatch(/daily limit of 1 call /);
		letTimePass('day-window-node', 'cis-day-slot', 1);
		const after = await runAction(
			sim,
			createAndRun({ maxCallsPerDay: 1 }),
			[{ phone: phoneOf(2) }],
			{ nodeId: 'day-window-node' },
		);
		expect(after.error).toBeUndefined();
		expect(calls()).toHaveLength(2);
	});

	test('a run that would go beyond it, without Continue On Fail, stops before anything is sent, as bad input does; its slots are given back', async () => {
		const stopped = await runAction(sim, createAndRun({ maxCallsPerDay: 3 }), phoneItems(5), {
			nodeId: 'stopped-day-node',
		});
		expect((stopped.error as Error).message).toMatch(/^Refused: the daily limit of 3 calls/);
		expect(calls()).toHaveLength(0);
		const next = await runAction(sim, createAndRun({ maxCallsPerDay: 3 }), phoneItems(3), {
			nodeId: 'stopped-day-node',
		});
		expect(next.error).toBeUndefined();
		expect(calls()).toHaveLength(3);
	});

	test('Retry On Fail: a call the service refuses on every try gives its slot back each time; the person called in the first try is not counted again', async () => {
		sim.injectFault({
			path: SINGLE,
			status: 400,
			body: { error: 'bad phone' },
			bodyIncludes: phoneOf(1),
			times: Infinity,
		});
		const result = await runAction(sim, createAndRun({ maxCallsPerDay: 2 }), phoneItems(2), {
			nodeId: 'retry-on-fail-day-node',
			retryOnFail: true,
			maxTries: 3,
			waitBetweenTries: 1,
		});
		expect(result.error).toBeDefined();
		expect(calledPhones()).toEqual([0, 1, 1, 1].map((index) => [phoneOf(index)]));
		// One slot of two is taken: the next lead is called, the one after it refused.
		const next = await runAction(
			sim,
			createAndRun({ maxCallsPerDay: 2 }),
			[{ phone: phoneOf(2) }, { phone: phoneOf(3) }],
			{ nodeId: 'retry-on-fail-day-node', continueOnFail: true },
		);
		expect(jsonOf(next).map((json) => json.error === undefined)).toEqual([true, false]);
		expect(calls()).toHaveLength(5);
	});

	test("n8n's Retry of a failed execution takes a slot only for what it sends; a call whose outcome was unknown keeps its slot", async () => {
		sim.injectFault({ path: SINGLE, status: 502, afterHandling: true, bodyIncludes: phoneOf(1) });
		const failed = await runAction(sim, createAndRun({ maxCallsPerDay: 3 }), phoneItems(3), {
			nodeId: 'retry-day-node',
		});
		expect(failed.error).toBeDefined();
		// The failed execution stopped at item 1's unknown outcome: item 2 was never sent.
		expect(calls()).toHaveLength(2);
		const retried = await runAction(sim, createAndRun({ maxCallsPerDay: 3 }), phoneItems(3), {
			nodeId: 'retry-day-node',
			mode: 'retry',
		});
		expect(jsonOf(retried).map((json) => json.alreadyDone)).toEqual([true, true, undefined]);
		const next = await runAction(
			sim,
			createAndRun({ maxCallsPerDay: 3 }),
			[{ phone: phoneOf(3) }],
			{ nodeId: 'retry-day-node', continueOnFail: true },
		);
		expect(String(jsonOf(next)[0].error)).toMatch(DAILY_REFUSAL);
		expect(calls()).toHaveLength(3);
	});
});

describe("n8n's database cannot be asked", () => {
	afterEach(() => jest.restoreAllMocks());

	test.each([
		['maxCallsPerDay', { maxCallsPerDay: 3 }],
		['callAgainAfterHours', { callAgainAfterHours: 24 }],
	])(
		'%s: every item is refused, nothing is sent, and the count does not restart in memory',
		async (_, limits) => {
			const failing = jest
				.spyOn(harnessDeduplicator, 'checkProcessedAndRecord')
				.mockRejectedValue(new Error('connection terminated'));
			const run = await runAction(sim, createAndRun(limits), phoneItems(2), {
				nodeId: `database-down-${Object.keys(limits)[0]}-node`,
				continueOnFail: true,
			});
			expect(failing).toHaveBeenCalled();
			for (const item of jsonOf(run))
				expect(String(item.error)).toMatch(/could not be checked.*nothing was sent/);
			expect(calls()).toHaveLength(0);
		},
	);
});

describe('Call a Number Again After (Hours)', () => {
	test('an agent run calls a number the run before called: refused, naming when it may be called again; another number is called', async () => {
		const first = await runTool(
			sim,
			createAndRunTool({ callAgainAfterHours: 24 }),
			[{ phone: phoneOf(0) }],
			{ nodeId: 'agent-again-node' },
		);
		expect(toolAnswerOf(first.observations[0]).outcome).toBe('done');
		const again = await runTool(
			sim,
			createAndRunTool({ callAgainAfterHours: 24 }),
			[{ phone: phoneOf(0) }, { phone: phoneOf(1) }],
			{ nodeId: 'agent-again-node' },
		);
		const [repeated, other] = again.observations.map(toolAnswerOf);
		expect(repeated).toMatchObject({ outcome: 'refused' });
		expect(repeated.message).toMatch(
			new RegExp(
				`^Refused: ${phoneOf(0)} was called within the last 24 hours \\("Call a Number Again After \\(Hours\\)"\\); it may be called again after \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC, so nothing was sent`,
			),
		);
		expect(other.outcome).toBe('done');
		expect(calledPhones()).toEqual([[phoneOf(0)], [phoneOf(1)]]);
	});

	test('the time named is at least the hours set after the call, and at most a quarter more', async () => {
		const before = Date.now();
		await runAction(sim, createAndRun({ callAgainAfterHours: 8 }), phoneItems(1), {
			nodeId: 'again-time-node',
		});
		const again = await runAction(sim, createAndRun({ callAgainAfterHours: 8 }), phoneItems(1), {
			nodeId: 'again-time-node',
			continueOnFail: true,
		});
		const named = /after (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/.exec(String(jsonOf(again)[0].error))?.[1];
		const at = Date.parse(`${named?.replace(' ', 'T')}:00Z`);
		expect(at).toBeGreaterThanOrEqual(before + 8 * 3600_000 - 60_000);
		expect(at).toBeLessThanOrEqual(Date.now() + 10 * 3600_000);
		letTimePass('again-time-node', 'cis-number', 5);
		const later = await runAction(sim, createAndRun({ callAgainAfterHours: 8 }), phoneItems(1), {
			nodeId: 'again-time-node',
		});
		expect(later.error).toBeUndefined();
		expect(calls()).toHaveLength(2);
	});

	test('two executions at once with the same number: one calls it, the other is refused', async () => {
		const runs = await Promise.all(
			[0, 1].map(() =>
				runAction(sim, createAndRun({ callAgainAfterHours: 24 }), phoneItems(1), {
					nodeId: 'twin-again-node',
					continueOnFail: true,
				}),
			),
		);
		expect(calls()).toHaveLength(1);
		expect(runs.map((run) => jsonOf(run)[0].error === undefined).sort()).toEqual([false, true]);
	});

	test('one person written three ways (+7, the trunk 8, without the 7) as an AI Agent tool: called once', async () => {
		const outcomes = [];
		for (const phone of ['+7 986 333-22-11', '8 986 333 22 11', '986 333 22 11']) {
			const run = await runTool(sim, createAndRunTool({ callAgainAfterHours: 24 }), [{ phone }], {
				nodeId: 'three-forms-node',
			});
			outcomes.push(toolAnswerOf(run.observations[0]));
		}
		expect(outcomes.map(({ outcome }) => outcome)).toEqual(['done', 'refused', 'refused']);
		expect(outcomes[2].message).toMatch(/^Refused: 9863332211 was called within the last 24 hours/);
		expect(calls()).toHaveLength(1);
	});

	test('the same number twice in one run: called once', async () => {
		const run = await runAction(
			sim,
			createAndRun({ callAgainAfterHours: 1 }),
			[{ phone: phoneOf(0) }, { phone: phoneOf(0) }],
			{ nodeId: 'same-run-again-node', continueOnFail: true },
		);
		expect(String(jsonOf(run)[1].error)).toMatch(
			/was called within the last 1 hour .*this run already calls it/,
		);
		expect(calls()).toHaveLength(1);
	});

	test("n8n's Retry with Repeat Protection off still does not call a number again", async () => {
		sim.injectFault({ path: SINGLE, status: 502, afterHandling: true, bodyIncludes: phoneOf(1) });
		const options = { callAgainAfterHours: 24, repeatProtectionHours: 0 };
		const failed = await runAction(sim, createAndRun(options), phoneItems(3), {
			nodeId: 'retry-again-node',
		});
		expect(failed.error).toBeDefined();
		await runAction(sim, createAndRun(options), phoneItems(3), {
			nodeId: 'retry-again-node',
			mode: 'retry',
			continueOnFail: true,
		});
		expect(calledPhones()).toEqual([0, 1, 2].map((index) => [phoneOf(index)]));
	});
});

describe('read from the saved workflow only', () => {
	test.each(['maxCallsPerDay', 'callAgainAfterHours'])(
		"%s as an expression (a model's $fromAI()) is refused naming the option; nothing is sent",
		async (name) => {
			const run = await runTool(
				sim,
				createAndRunTool({ [name]: "={{ $fromAI('limit', 'the limit', 'number') }}" }),
				[{ phone: phoneOf(0), limit: 1000 }],
				{ nodeId: `expression-${name}-node` },
			);
			expect(String(run.error?.message ?? run.observations[0])).toContain(name);
			expect(calls()).toHaveLength(0);
		},
	);

	test.each([
		['allowedNumbers', "={{ $fromAI('allowed', 'allowed prefixes', 'string') }}"],
		['maxCallsPerRun', "={{ $fromAI('cap', 'the cap', 'number') }}"],
	])(
		'%s from a model ($fromAI()) is refused naming the option; nothing is sent',
		async (name, value) => {
			const run = await runTool(
				sim,
				createAndRunTool({ [name]: value }),
				[{ phone: phoneOf(0), allowed: '7986', cap: 50 }],
				{ nodeId: `from-ai-${name}-node` },
			);
			expect(String(run.error?.message ?? toolAnswerOf(run.observations[0]).message)).toContain(
				name,
			);
			expect(calls()).toHaveLength(0);
		},
	);

	test("a builder's own expression for Allowed Numbers and Max Calls per Run is read as n8n resolved it", () => {
		const saved = { allowedNumbers: '={{ $vars.allowed }}', maxCallsPerRun: '={{ $vars.cap }}' };
		const guardrails = readGuardrails({ allowedNumbers: '7986', maxCallsPerRun: 2 }, true, saved);
		expect(guardrails).toMatchObject({ allowedNumbers: [{ pattern: '7986' }], maxCalls: 2 });
	});

	test('both off (0, the default of workflows saved before): nothing is counted or recorded for them', async () => {
		await runAction(sim, createAndRun(), phoneItems(2), { nodeId: 'off-limits-node' });
		await runAction(sim, createAndRun(), phoneItems(2), { nodeId: 'off-limits-node' });
		expect(calls()).toHaveLength(4);
		expect(
			entriesOf('off-limits-node').filter((key) => /^cis-(day-slot|number):/.test(key)),
		).toEqual([]);
	});
});
