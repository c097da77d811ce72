/**
 * Max Calls per Day and Call a Number Again After with two queue-mode workers: two copies of the node, each with its own module
 * state (its own process memory, as two n8n processes have), share ONE record that behaves as n8n's
 * does: each helper call reads the row, lets other work run, then writes back what it read plus its
 * change (n8n's DeduplicationHelper: findOne, then update), so that calls at once drop one another's
 * keys (no trimming: n8n's maxEntries is never reached here). Leads arrive at once, alternating
 * between the two copies; the calls the simulator received are counted against the cap. Through
 * n8n-core's engine; the order of the copies' reads and writes is set by a schedule, never by the
 * clock. The schedules' figures are printed at the end (docs/limits.md quotes them).
 */
import { AsyncLocalStorage } from 'async_hooks';
import type { IDataObject, INodeParameters, INodeType, IVersionedNodeType } from 'n8n-workflow';

import { runNode } from '../engine/harness';
import { harnessDeduplicator } from '../engine/deduplicator';
import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import {
	apiRequests,
	credentialsFor,
	jsonOf,
	numberedPhones,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(300_000);

const SINGLE = '/cis/api/v1/telephony/autoCallCandidate/single';
const WORKERS = ['A', 'B'] as const;
type Worker = (typeof WORKERS)[number];
const LEADS = 20;

const sim = useActionSimulator();
const { phoneOf } = numberedPhones('7987');

/** A copy of the node's modules: its process memory (slots taken, the record's queue) is its own. */
function nodeCopy(): INodeType | IVersionedNodeType {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const workflow = require('n8n-workflow') as unknown;
	let copy: { CisAutoCall: new () => INodeType | IVersionedNodeType } | undefined;
	jest.isolateModules(() => {
		// n8n's own module stays the engine's (its errors are the engine's classes); the node's are new.
		jest.doMock('n8n-workflow', () => workflow);
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		copy = require('../../nodes/CisAutoCall/CisAutoCall.node');
	});
	jest.dontMock('n8n-workflow');
	return new copy!.CisAutoCall();
}

const copies: Record<Worker, INodeType | IVersionedNodeType> = { A: nodeCopy(), B: nodeCopy() };
const runningOn = new AsyncLocalStorage<Worker>();

/** Lets the event loop turn `turns` times (other executions' work, the simulator's answers run meanwhile). */
async function turns(count: number): Promise<void> {
	for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** A small seeded generator (mulberry32): the same seed gives the same schedule. */
function seeded(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state + 0x6d2b79f5) | 0;
		let t = Math.imul(state ^ (state >>> 15), 1 | state);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/**
 * When a helper call of a worker reads the row (after its query reached the database), writes it back,
 * and has its answer: as event-loop turns in which the other worker's work runs.
 */
interface Schedule {
	name: string;
	beforeRead(worker: Worker, shared: SharedRecord): Promise<void>;
	beforeWrite(worker: Worker, shared: SharedRecord): Promise<void>;
	afterWrite(worker: Worker, shared: SharedRecord): Promise<void>;
}

/**
 * As the harness's own stand-in: the row is read at once, written one turn later, and the same
 * worker's next call reads at once after its write. Each worker then reads only what it wrote itself
 * (the other's write always lands after that read): the two never see one another, so no check can
 * help, whatever the node does.
 */
const ownWritesOnly: Schedule = {
	name: 'each worker reads only its own writes',
	beforeRead: async () => undefined,
	beforeWrite: async () => await turns(1),
	afterWrite: async () => undefined,
};

/** Each leg of a call (query to the database, its answer and the update, the update's answer) takes 1 to 3 turns at random (seeded). */
const roundTrips = (seed: number): Schedule => {
	const random = seeded(seed);
	const leg = async () => await turns(1 + Math.floor(random() * 3));
	return {
		name: `round trips of 1-3 turns (seed ${seed})`,
		beforeRead: leg,
		beforeWrite: leg,
		afterWrite: leg,
	};
};

/**
 * The worst case: a write of worker B waits until worker A has made two more helper calls (its
 * write, then the check of it) since B read the row, so that B's write drops what A recorded after A
 * has checked it. A that makes no call for 20 turns (idle) lets B write.
 */
const bAfterAsCheck = (seed: number): Schedule => {
	const trips = roundTrips(seed);
	return {
		...trips,
		name: `B's writes after A's check (seed ${seed})`,
		beforeWrite: async (worker, shared) => {
			if (worker === 'A') return await trips.beforeWrite(worker, shared);
			const target = shared.done.A + 2;
			let idle = 0;
			let last = shared.done.A;
			while (shared.done.A < target && idle < 20) {
				await turns(1);
				if (shared.done.A === last) idle++;
				else [idle, last] = [0, shared.done.A];
			}
		},
	};
};

/** n8n's record of one workflow and node, read and written back whole by each helper call. */
class SharedRecord {
	readonly rows = new Map<string, string[]>();
	/** Helper calls each worker finished. */
	readonly done: Record<Worker, number> = { A: 0, B: 0 };

	constructor(private readonly schedule: Schedule) {}

	async change(rowKey: string, apply: (row: string[]) => void): Promise<void> {
		const worker = runningOn.getStore() ?? 'A';
		await this.schedule.beforeRead(worker, this);
		const row = [...(this.rows.get(rowKey) ?? [])];
		await this.schedule.beforeWrite(worker, this);
		apply(row);
		this.rows.set(rowKey, row);
		this.done[worker]++;
		await this.schedule.afterWrite(worker, this);
	}
}

/** The harness's deduplicator answers from the shared record (no trimming: maxEntries is never reached here). */
function shareRecord(shared: SharedRecord): void {
	const rowOf = (data: { workflow: { id?: string }; node?: { id?: string } }) =>
		JSON.stringify([data.workflow.id, data.node?.id]);
	jest
		.spyOn(harnessDeduplicator, 'checkProcessedAndRecord')
		.mockImplementation(async (items, _scope, data) => {
			const output = { new: [] as typeof items, processed: [] as typeof items };
			await shared.change(rowOf(data), (row) => {
				const seen = new Set(row);
				for (const item of items) {
					if (seen.has(String(item))) output.processed.push(item);
					else {
						output.new.push(item);
						row.push(String(item));
						seen.add(String(item));
					}
				}
			});
			return output;
		});
	jest
		.spyOn(harnessDeduplicator, 'removeProcessed')
		.mockImplementation(async (items, _scope, data) => {
			const gone = new Set(items.map(String));
			await shared.change(rowOf(data), (row) =>
				row.splice(0, row.length, ...row.filter((key) => !gone.has(key))),
			);
		});
}

afterEach(() => jest.restoreAllMocks());

let round = 0;

const calls = () =>
	apiRequests(sim).filter((request) => request.path === SINGLE && request.method === 'POST').length;

/** Leads at once, one execution each, alternating between the workers: the calls placed. */
async function leadsAtOnce(
	options: IDataObject,
	schedule: Schedule,
	phones: string[],
): Promise<{ placed: number; shared: SharedRecord }> {
	const shared = new SharedRecord(schedule);
	shareRecord(shared);
	const nodeId = `workers-node-${++round}`;
	const before = calls();
	const parameters: INodeParameters = {
		resource: 'candidate',
		operation: 'createAndRun',
		botSettingsId: 'bot-1',
		phone: '={{ $json.phone }}',
		options: { concurrency: 1, ...options } as INodeParameters,
	};
	const runs = await Promise.all(
		phones.map((phone, lead) =>
			runningOn.run(
				WORKERS[lead % 2],
				async () =>
					await runNode({
						node: copies[WORKERS[lead % 2]],
						credentialTypes: [new CisAutoCallApi(), new CisAutoCallLoginApi()],
						credentials: credentialsFor(sim),
						parameters,
						items: [{ phone }],
						nodeId,
						continueOnFail: true,
					}),
			),
		),
	);
	const placed = calls() - before;
	// Every lead is called or refused (nothing lost, nothing failed otherwise).
	expect(runs.filter((run) => jsonOf(run)[0].error !== undefined)).toHaveLength(
		phones.length - placed,
	);
	return { placed, shared };
}

/** LEADS leads of their own at once against Max Calls per Day `cap`, `rounds` times: the calls placed per round. */
async function rounds(cap: number, schedule: Schedule, count: number): Promise<number[]> {
	const placed: number[] = [];
	for (let index = 0; index < count; index++) {
		const phones = Array.from({ length: LEADS }, (_, lead) => phoneOf(round * 100 + lead));
		placed.push((await leadsAtOnce({ maxCallsPerDay: cap }, schedule, phones)).placed);
	}
	figures.push(`Max Calls per Day ${cap}, ${schedule.name}: placed ${placed.join(', ')}`);
	return placed;
}

const ROUNDS = 6;
/** What the schedules measured, printed at the end for docs/limits.md. */
const figures: string[] = [];
afterAll(() => console.log(figures.join('\n')));

describe.each([1, 3, 5])('Max Calls per Day %i, 20 leads at once on two workers', (cap) => {
	test(`database round trips (3 schedules, ${ROUNDS} rounds each): never more than ${WORKERS.length} over, over or under at most twice in all`, async () => {
		const placed: number[] = [];
		for (const seed of [7, 8, 9]) placed.push(...(await rounds(cap, roundTrips(seed), ROUNDS)));
		expect(Math.max(...placed)).toBeLessThanOrEqual(cap + WORKERS.length);
		// Before each claim checked its seat, 12 of 30 rounds went over with Max Calls per Day 1 and 3, 22 of 30 with 5.
		expect(placed.filter((calls) => calls > cap).length).toBeLessThanOrEqual(2);
		// Nor fewer than the cap, but at times (a slot two workers claimed at once can stay held by neither).
		expect(placed.filter((calls) => calls < cap).length).toBeLessThanOrEqual(2);
	});

	test.each([ownWritesOnly, bAfterAsCheck(7)].map((schedule) => [schedule.name, schedule]))(
		'%s: measured; each worker alone never goes beyond the cap',
		async (_, schedule) => {
			const placed = await rounds(cap, schedule as Schedule, ROUNDS);
			expect(Math.max(...placed)).toBeLessThanOrEqual(cap * WORKERS.length);
		},
	);
});

describe('Call a Number Again After (Hours), one number on both workers at once', () => {
	test(`database round trips (3 schedules, ${ROUNDS} rounds each): called once each round`, async () => {
		const placed: number[] = [];
		for (const seed of [7, 8, 9])
			for (let index = 0; index < ROUNDS; index++) {
				const phone = phoneOf(round * 100);
				const { placed: calls } = await leadsAtOnce({ callAgainAfterHours: 24 }, roundTrips(seed), [
					phone,
					phone,
				]);
				placed.push(calls);
			}
		figures.push(
			`Call a Number Again After, one number on both workers: placed ${placed.join(', ')}`,
		);
		expect(placed.filter((calls) => calls !== 1)).toEqual([]);
	});
});

describe("what a claim costs in n8n's record (each helper call reads and writes the row)", () => {
	test.each([
		['Max Calls per Day', { maxCallsPerDay: 5 }],
		['Call a Number Again After', { callAgainAfterHours: 24 }],
		['both', { maxCallsPerDay: 5, callAgainAfterHours: 24 }],
	])('%s, one lead on one worker', async (name, options) => {
		const { shared, placed } = await leadsAtOnce(options, roundTrips(1), [phoneOf(round * 100)]);
		expect(placed).toBe(1);
		figures.push(`${name}: ${shared.done.A} helper calls for one lead`);
		// Repeat Protection's two (record, check), the limits' two (record with seats, check): as before the seats.
		expect(shared.done.A).toBe(4);
	});
});
