/**
 * Max Calls per Day with two queue-mode workers: two copies of the node, each with its own module
 * state (its own process memory, as two n8n processes have), share ONE record that behaves as n8n's
 * does: each helper call reads the row, lets other work run, then writes back what it read plus its
 * change (n8n's DeduplicationHelper: findOne, then update), so that calls at once drop one another's
 * keys. Leads arrive at once, alternating between the two copies; the calls the simulator received
 * are counted against the cap. Through n8n-core's engine; the order of the copies' reads and writes
 * is set by a schedule, never by the clock.
 */
import { AsyncLocalStorage } from 'async_hooks';
import type { INodeParameters, INodeType, IVersionedNodeType } from 'n8n-workflow';

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
 * As the harness's own stand-in: the row is read at once, written one turn later, and the next call
 * of the same worker reads at once again. Each worker then reads only what it wrote itself (the
 * other's write always lands between its own write and its next read's answer... after it): the
 * two never see one another, whatever the node does.
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

/** LEADS leads at once, one execution each, alternating between the workers: the calls placed. */
async function leadsAtOnce(cap: number, schedule: Schedule): Promise<number> {
	shareRecord(new SharedRecord(schedule));
	const nodeId = `workers-day-node-${++round}`;
	const before = calls();
	const parameters: INodeParameters = {
		resource: 'candidate',
		operation: 'createAndRun',
		botSettingsId: 'bot-1',
		phone: '={{ $json.phone }}',
		options: { concurrency: 1, maxCallsPerDay: cap },
	};
	const runs = await Promise.all(
		Array.from({ length: LEADS }, (_, lead) =>
			runningOn.run(WORKERS[lead % 2], async () => {
				return await runNode({
					node: copies[WORKERS[lead % 2]],
					credentialTypes: [new CisAutoCallApi(), new CisAutoCallLoginApi()],
					credentials: credentialsFor(sim),
					parameters,
					items: [{ phone: phoneOf(round * 100 + lead) }],
					nodeId,
					continueOnFail: true,
				});
			}),
		),
	);
	const placed = calls() - before;
	const refused = runs.filter((run) => jsonOf(run)[0].error !== undefined).length;
	expect(placed + refused).toBe(LEADS);
	return placed;
}

const calls = () =>
	apiRequests(sim).filter((request) => request.path === SINGLE && request.method === 'POST').length;

const ROUNDS = 4;
const figures: string[] = [];

afterAll(() => {
	// The figures for docs/limits.md.
	console.log(figures.join('\n'));
});

describe.each([1, 3, 5])('Max Calls per Day %i, two workers, %s', (cap) => {
	test.each(
		[ownWritesOnly, roundTrips(7), roundTrips(8), roundTrips(9), bAfterAsCheck(7)].map((s) => [
			s.name,
			s,
		]),
	)(`${LEADS} leads at once alternating between two workers (%s)`, async (_, schedule) => {
		const placed: number[] = [];
		for (let index = 0; index < ROUNDS; index++)
			placed.push(await leadsAtOnce(cap, schedule as Schedule));
		figures.push(`cap ${cap}, ${(schedule as Schedule).name}: placed ${placed.join(', ')}`);
		expect(Math.min(...placed)).toBeGreaterThanOrEqual(0);
	});
});
