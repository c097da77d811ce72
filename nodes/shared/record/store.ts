import type { IExecuteFunctions } from 'n8n-workflow';

import { processMemory } from '../processMemory';
import { SerialQueue, type Turns } from '../serialQueue';
import { partOfKey } from './keys';

/** What a node's record can do: record keys (answering which were there already), and take keys off. */
interface RecordChanges {
	/** Records the keys; returns those that were already recorded. */
	checkAndRecord(keys: string[]): Promise<Set<string>>;
	remove(keys: string[]): Promise<void>;
}

/** The changes of a record made alone (NodeRecord.alone): also one helper call, asked once and not again. */
export interface ChangesAlone extends RecordChanges {
	/** Records the keys in one call of n8n's helper; returns those that were already recorded. */
	recordOnce(keys: string[]): Promise<Set<string>>;
}

/**
 * A record of keys per workflow and node, kept across executions: n8n's database (its
 * de-duplication helpers) where n8n offers them, else this process's memory.
 */
export interface NodeRecord extends RecordChanges {
	/** Whether the record outlives the process and is shared by all of n8n's processes. */
	readonly durable: boolean;
	/**
	 * Runs `change` alone among this process's changes of this record: what it reads stays true
	 * until it ends, except for another process's change (queue mode).
	 */
	alone<T>(change: (record: ChangesAlone) => Promise<T>): Promise<T>;
}

/**
 * The keys kept per workflow and node: every user of the record asks with the same `maxEntries`,
 * since n8n trims the whole row to the number it is given. Repeat Protection keeps 100,000
 * requests with a key per part of its window (4 parts).
 */
export const MAX_RECORD_ENTRIES = 400_000;

type DedupOptions = { mode: 'entries'; maxEntries: number };
const OPTIONS: DedupOptions = { mode: 'entries', maxEntries: MAX_RECORD_ENTRIES };

/** n8n's answer to checkProcessedAndRecord: the keys it had not recorded, and those it had. */
type DedupAnswer = { new: Array<string | number>; processed: Array<string | number> };

type DedupHelpers = {
	checkProcessedAndRecord?: (
		items: string[],
		scope: 'node',
		options: DedupOptions,
	) => Promise<DedupAnswer>;
	removeProcessed?: (items: string[], scope: 'node', options: DedupOptions) => Promise<void>;
};

/** Each key recorded is asked again this many times at most, until n8n's record shows it. */
const RECORD_CHECKS = 3;

/** The keys that executions of this process ask to record while the record is busy, asked together. */
interface OpenBatch {
	/** Each caller's keys, in the order they came. */
	callers: string[][];
	/** Per caller: the keys already on the record (a key asked twice in one batch counts as recorded for the later caller). */
	result: Promise<Array<Set<string>>>;
}

/** Per workflow and node: this process's changes of n8n's record, and the batch waiting for the next one. */
interface RecordLine extends Turns {
	open?: OpenBatch;
}

/** Per workflow and node: this process's changes of the record, one at a time (see databaseRecord). */
const recordChanges = new SerialQueue(processMemory<RecordLine>('repeatProtectionRecordChanges'));

/** The fallback's record: keys with their workflow and node. */
const processKeys = processMemory<true>('sentRequestKeys');
/** Per workflow and node: when this process last warned that the record fell back to its memory. */
const fallbackWarnings = processMemory<true>('recordFallbackWarnings');

/**
 * The record in n8n's database, through the execute-side de-duplication helpers: kept per
 * workflow and node across executions, restarts and (queue mode) workers.
 *
 * n8n keeps that record as one row per workflow and node, which each call reads and then writes
 * back whole (n8n's DeduplicationHelper: findOne, then update). Two calls at once each write
 * what they read plus their own keys, and the later one drops the other's: with 600 leads at once
 * in n8n 2.41.1, 6 of 620 sent requests stayed on the record (docs/performance.md). So this
 * process changes the record of a workflow and node one call at a time; the keys that arrive
 * meanwhile go together in the next call (a burst of leads costs a few reads and writes, not one
 * per lead); and the keys just recorded are asked again, up to 3 times, until the record shows them:
 * another worker may have written at the same moment. That narrows the moment in which two workers'
 * writes can drop a key; across processes n8n's helper offers no way to close it.
 */
function databaseRecord(helpers: Required<DedupHelpers>, scope: string): NodeRecord {
	const direct: ChangesAlone = {
		checkAndRecord: async (keys) => (await recordBatch(helpers, [keys]))[0],
		recordOnce: async (keys) =>
			new Set((await firstRecord(helpers, byPart(keys))).processed.map(String)),
		remove: async (keys) => await helpers.removeProcessed(keys, 'node', OPTIONS),
	};
	return {
		durable: true,
		async checkAndRecord(keys) {
			const line = recordChanges.lineOf(scope);
			let batch = line.open;
			if (!batch) {
				const opened: OpenBatch = { callers: [], result: Promise.resolve([]) };
				opened.result = recordChanges.run(scope, async () => {
					if (line.open === opened) line.open = undefined;
					return await recordBatch(helpers, opened.callers);
				});
				line.open = opened;
				batch = opened;
			}
			const caller = batch.callers.push(keys) - 1;
			return (await batch.result)[caller];
		},
		remove: async (keys) => await recordChanges.run(scope, async () => await direct.remove(keys)),
		alone: async (change) => await recordChanges.run(scope, async () => await change(direct)),
	};
}

/**
 * One call for the keys of every caller of a batch (earlier parts of the window first, so that n8n's
 * `maxEntries` drops them before any current key), then again for those the record does not show
 * yet. The first call's answer decides; asking again only narrows the moment in which another
 * worker's write can drop a key (n8n's own update reads and writes the whole row too), so a failure
 * of it is not a failure of the batch.
 */
async function recordBatch(
	helpers: Required<DedupHelpers>,
	callers: string[][],
): Promise<Array<Set<string>>> {
	const asked = byPart([...new Set(callers.flat())]);
	const { processed } = await firstRecord(helpers, asked);
	const recordedBefore = new Set(processed.map(String));
	let unconfirmed = asked.filter((key) => !recordedBefore.has(key));
	try {
		for (let check = 0; check < RECORD_CHECKS && unconfirmed.length > 0; check++) {
			const again = await helpers.checkProcessedAndRecord(unconfirmed, 'node', OPTIONS);
			const shown = new Set(again.processed.map(String));
			unconfirmed = unconfirmed.filter((key) => !shown.has(key));
		}
	} catch {
		// The keys were recorded by the first call; only the check of another worker's write failed.
	}
	// As if the callers had asked one after another: a key is new only for the first that asked it.
	const askedEarlier = new Set<string>();
	return callers.map((keys) => {
		const recorded = new Set(
			keys.filter((key) => recordedBefore.has(key) || askedEarlier.has(key)),
		);
		for (const key of keys) askedEarlier.add(key);
		return recorded;
	});
}

/** Earlier parts of the window first, so that n8n's `maxEntries` drops them before any current key. */
function byPart(keys: string[]): string[] {
	return [...keys].sort((a, b) => partOfKey(a) - partOfKey(b));
}

/**
 * The first write of a node's record inserts its row: two processes doing so at the same moment (the
 * first leads of a new workflow on two queue-mode workers) make one insert fail on the row's key,
 * having written nothing. That one is asked again, and then finds the row; any other error is the
 * caller's (the record then falls back to process memory).
 */
async function firstRecord(helpers: Required<DedupHelpers>, keys: string[]): Promise<DedupAnswer> {
	const answer = await helpers
		.checkProcessedAndRecord(keys, 'node', OPTIONS)
		.catch((error: unknown) => {
			if (
				/duplicate key|unique constraint/i.test(
					error instanceof Error ? error.message : String(error),
				)
			)
				return undefined;
			return Promise.reject(error);
		});
	return answer ?? (await helpers.checkProcessedAndRecord(keys, 'node', OPTIONS));
}

/**
 * The fallback where n8n offers no de-duplication helpers (older n8n, or a context without them),
 * or its database cannot be asked: the same record in this process's memory. It holds in this
 * process, not after a restart, nor on another queue-mode worker.
 */
function processRecord(scope: string): NodeRecord {
	const changes: ChangesAlone = {
		recordOnce: async (keys) => await changes.checkAndRecord(keys),
		async checkAndRecord(keys) {
			const processed = new Set<string>();
			for (const key of keys) {
				if (processKeys.get(scope + key)) processed.add(key);
				else processKeys.set(scope + key, true);
			}
			return processed;
		},
		async remove(keys) {
			for (const key of keys) processKeys.delete(scope + key);
		},
	};
	// Each change of this memory runs to its end without waiting: nothing can come between its reads and writes.
	return { durable: false, ...changes, alone: async (change) => await change(changes) };
}

/** Whose record it is: the workflow and the node (its id, else its name), as one string. */
export function scopeOf(context: IExecuteFunctions): string {
	const node = context.getNode();
	return JSON.stringify([context.getWorkflow().id ?? '', node.id ?? node.name]);
}

/** Logs, once a day per workflow and node, that what the record keeps holds in this process only. */
function warnOfFallback(context: IExecuteFunctions, scope: string, why: string): void {
	if (fallbackWarnings.get(scope)) return;
	fallbackWarnings.set(scope, true);
	context.logger?.warn(
		`CIS Auto-Call "${context.getNode().name}": ${why}, so what this node records (Repeat Protection, Max Calls per Day, Call a Number Again After) is kept in this process only: a restart or another worker does not see it`,
	);
}

/**
 * The record of this workflow and node: n8n's database when the helpers are there, else this
 * process's memory. A database error moves this record to the process's memory (a warning in
 * n8n's log), for the rest of the run; with `strict` (the daily limits) it is thrown instead.
 */
export function recordOf(context: IExecuteFunctions, strict = false): NodeRecord {
	const scope = scopeOf(context);
	const helpers = context.helpers as unknown as DedupHelpers;
	if (
		typeof helpers.checkProcessedAndRecord !== 'function' ||
		typeof helpers.removeProcessed !== 'function'
	) {
		warnOfFallback(context, scope, 'this n8n offers no de-duplication helpers');
		return processRecord(scope);
	}
	const database = databaseRecord(helpers as Required<DedupHelpers>, scope);
	let current: NodeRecord = database;
	const fallBack = (error: unknown): NodeRecord => {
		if (current === database) {
			const reason = error instanceof Error ? error.message : String(error);
			warnOfFallback(context, scope, `n8n's database could not be asked (${reason})`);
			current = processRecord(scope);
		}
		return current;
	};
	const withFallback = async <T>(use: (record: NodeRecord) => Promise<T>): Promise<T> => {
		if (current !== database) return await use(current);
		try {
			return await use(database);
		} catch (error) {
			if (strict) return await Promise.reject(error);
			return await use(fallBack(error));
		}
	};
	return {
		get durable() {
			return current.durable;
		},
		checkAndRecord: async (keys) =>
			await withFallback(async (record) => await record.checkAndRecord(keys)),
		remove: async (keys) => await withFallback(async (record) => await record.remove(keys)),
		alone: async (change) => await withFallback(async (record) => await record.alone(change)),
	};
}
