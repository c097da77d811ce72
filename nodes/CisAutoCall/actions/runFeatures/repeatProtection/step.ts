import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { fingerprintOf } from '../../../../shared/fingerprint';
import { processMemory } from '../../../../shared/processMemory';
import type { Operation } from '../../operation';
import { mayHaveCreated } from '../../itemErrors';
import type { ItemResults, Step } from '../feature';
import { alreadyDoneNote, leftOutHint } from './texts';

/** The window is counted in this many parts: a request is found again for 3/4 to 4/4 of the window. */
const PARTS = 4;
/** The requests kept per workflow and node. */
export const MAX_KEPT_REQUESTS = 100_000;
/**
 * n8n's `maxEntries`: each request records a key per part (see leaveOut), and n8n drops the
 * oldest entries beyond this.
 */
const MAX_ENTRIES = MAX_KEPT_REQUESTS * PARTS;
const HOUR_MS = 60 * 60 * 1000;

/** Where the sent requests are recorded: n8n's database (de-duplication helpers) or this process. */
export interface SentRequestStore {
	/** Records the keys; returns those that were already recorded. */
	checkAndRecord(keys: string[]): Promise<Set<string>>;
	remove(keys: string[]): Promise<void>;
	/** Whether the record outlives the process and is shared by all of n8n's processes. */
	durable: boolean;
}

type DedupHelpers = {
	checkProcessedAndRecord?: (
		items: string[],
		scope: 'node',
		options: { mode: 'entries'; maxEntries?: number },
	) => Promise<{ new: Array<string | number>; processed: Array<string | number> }>;
	removeProcessed?: (items: string[], scope: 'node', options: { mode: 'entries'; maxEntries?: number }) => Promise<void>;
};

/** Each key recorded is asked again this many times at most, until n8n's record shows it. */
const RECORD_CHECKS = 3;

type DedupOptions = { mode: 'entries'; maxEntries: number };

/** The keys that executions of this process ask to record while the record is busy, asked together. */
interface OpenBatch {
	/** Each caller's keys, in the order they came. */
	callers: string[][];
	/** Per caller: the keys already on the record (a key asked twice in one batch counts as recorded for the later caller). */
	result: Promise<Array<Set<string>>>;
}

/** Per workflow and node: the last change of n8n's record this process started, and the batch waiting for it. */
interface RecordQueue {
	tail: Promise<void>;
	open?: OpenBatch;
}

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
function databaseStore(helpers: Required<DedupHelpers>, scope: string): SentRequestStore {
	const options: DedupOptions = { mode: 'entries', maxEntries: MAX_ENTRIES };
	const queue = (): RecordQueue => {
		let found = recordQueues.get(scope);
		if (!found) {
			found = { tail: Promise.resolve() };
			recordQueues.set(scope, found);
		}
		return found;
	};
	const after = <T>(change: () => Promise<T>): Promise<T> => {
		const current = queue();
		const result = current.tail.then(change, change);
		current.tail = result.then(noop, noop);
		recordQueues.set(scope, current);
		return result;
	};
	return {
		durable: true,
		async checkAndRecord(keys) {
			const current = queue();
			let batch = current.open;
			if (!batch) {
				const opened: OpenBatch = { callers: [], result: Promise.resolve([]) };
				opened.result = after(async () => {
					if (current.open === opened) current.open = undefined;
					return await recordBatch(helpers, options, opened.callers);
				});
				current.open = opened;
				batch = opened;
			}
			const caller = batch.callers.push(keys) - 1;
			recordQueues.set(scope, current);
			return (await batch.result)[caller];
		},
		remove: (keys) => after(() => helpers.removeProcessed(keys, 'node', options)),
	};
}

/**
 * One call for the keys of every caller of a batch (earlier parts of the window first, so that n8n's
 * `maxEntries` drops them before any current key), then again for those the record does not show
 * yet. The first call's answer decides; asking again only narrows the moment in which another
 * worker's write can drop a key (n8n's own update reads and writes the whole row too), so a failure
 * of it is not a failure of the batch.
 */
async function recordBatch(helpers: Required<DedupHelpers>, options: DedupOptions, callers: string[][]): Promise<Array<Set<string>>> {
	const asked = [...new Set(callers.flat())].sort((a, b) => windowPartOf(a) - windowPartOf(b));
	const { processed } = await helpers.checkProcessedAndRecord(asked, 'node', options);
	const recordedBefore = new Set(processed.map(String));
	let unconfirmed = asked.filter((key) => !recordedBefore.has(key));
	try {
		for (let check = 0; check < RECORD_CHECKS && unconfirmed.length > 0; check++) {
			const again = await helpers.checkProcessedAndRecord(unconfirmed, 'node', options);
			const shown = new Set(again.processed.map(String));
			unconfirmed = unconfirmed.filter((key) => !shown.has(key));
		}
	} catch {
		// The keys were recorded by the first call; only the check of another worker's write failed.
	}
	// As if the callers had asked one after another: a key is new only for the first that asked it.
	const askedEarlier = new Set<string>();
	return callers.map((keys) => {
		const recorded = new Set(keys.filter((key) => recordedBefore.has(key) || askedEarlier.has(key)));
		for (const key of keys) askedEarlier.add(key);
		return recorded;
	});
}

const noop = () => undefined;

/** A request's key on the record: Repeat Protection's hours, the part of the window it was sent in, its fingerprint. */
function requestKey(hours: number, part: number, fingerprint: string): string {
	return `cis-request:${hours}h:${part}:${fingerprint}`;
}

/** The part of the window in a key made by requestKey. */
function windowPartOf(key: string): number {
	const part = Number(key.split(':')[2]);
	return Number.isFinite(part) ? part : 0;
}

/** Per workflow and node: this process's changes of the record, one at a time (see databaseStore). */
const recordQueues = processMemory<RecordQueue>('repeatProtectionRecordChanges');

/** The fallback's record: keys with their workflow and node, oldest first. */
const processKeys = processMemory<true>('sentRequestKeys');
/** What this process knows of the requests' results (their ids), by workflow, node and request key. */
const knownResults = processMemory<IDataObject>('knownRequestResults');

function scopeOf(context: IExecuteFunctions): string {
	const node = context.getNode();
	return JSON.stringify([context.getWorkflow().id ?? '', node.id ?? node.name]);
}

/**
 * The fallback where n8n offers no de-duplication helpers (older n8n, or a context without them):
 * the same record in this process's memory. It protects a Retry in the same process, not after a
 * restart, nor on another queue-mode worker.
 */
function processStore(context: IExecuteFunctions): SentRequestStore {
	const scope = scopeOf(context);
	return {
		durable: false,
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
}

/** n8n's database when the helpers are there, else this process's memory. */
export function storeFor(context: IExecuteFunctions): SentRequestStore {
	const helpers = context.helpers as unknown as DedupHelpers;
	if (typeof helpers.checkProcessedAndRecord === 'function' && typeof helpers.removeProcessed === 'function') {
		return databaseStore(helpers as Required<DedupHelpers>, scopeOf(context));
	}
	return processStore(context);
}

/**
 * n8n's "Retry" of a failed execution starts a new execution (mode `retry`) that runs the node
 * again with all its items; the Retry-On-Fail memory (pipeline/earlierTries.ts) cannot see it. So every
 * creating request is recorded before it is sent (write-ahead), keyed by the fingerprint of the
 * request and the part of the window it was sent in. Only a retry leaves out a request recorded
 * in the current or the three previous parts: its item says that it was left out and why, and the
 * run carries a notice. Every other execution (manual, trigger, webhook, schedule, sub-workflow,
 * AI agent) sends what it is given, and records it for a later retry. A request the service
 * refused (4xx) or that was not sent is taken off the record, so that a corrected run sends it;
 * one that succeeded or whose outcome is unknown stays. The record lives in n8n's database (per
 * workflow and node) when n8n offers its de-duplication helpers, else in this process.
 */
export class RepeatProtection implements Step {
	/** item index → its request's keys (current part first), for the items this run sends */
	private readonly sending = new Map<number, string[]>();
	/** keys an earlier execution recorded: a failure of this run does not take them off */
	private readonly recordedBefore = new Set<string>();
	/** keys recorded by the check that must not stay (those of an item left out) */
	private readonly notToKeep: string[] = [];

	private constructor(
		private readonly context: IExecuteFunctions,
		private readonly hours: number,
		private store: SentRequestStore,
		private readonly now: () => number,
		/** n8n's Retry of a failed execution: the only run that leaves out what was sent before. */
		private readonly isRetry: boolean,
	) {}

	/** Undefined for operations that create nothing, and when the option is 0 (off). */
	static of(context: IExecuteFunctions, operation: Operation, hours: number, now: () => number = Date.now): RepeatProtection | undefined {
		if (!operation.creates || hours <= 0) return undefined;
		return new RepeatProtection(context, hours, storeFor(context), now, isRetryOfFailedExecution(context));
	}

	private keysOf(fingerprint: string): string[] {
		const partMs = (this.hours * HOUR_MS) / PARTS;
		const part = Math.floor(this.now() / partMs);
		return Array.from({ length: PARTS }, (_, back) => requestKey(this.hours, part - back, fingerprint));
	}

	/**
	 * In a retry, leaves out (from `prepared`) the items whose request an earlier execution sent;
	 * records the others. n8n's helper records every key it is asked about: the keys of the earlier
	 * parts are recorded too, which is harmless for a request that is sent (a run that finds one
	 * finds the current part's key as well) and cheaper than taking them off again. They go first,
	 * so that n8n's `maxEntries` drops them before any current key of this run. Any other run only
	 * records the current part's key of each request: it sends everything.
	 */
	async leaveOut(prepared: Map<number, unknown>, outcomes: ItemResults): Promise<void> {
		if (prepared.size === 0) return;
		const keysByItem = new Map<number, string[]>();
		for (const [itemIndex, value] of prepared) keysByItem.set(itemIndex, this.keysOf(fingerprintOf(value)));
		const earlierParts = this.isRetry ? [...keysByItem.values()].flatMap((keys) => keys.slice(1)) : [];
		const currentPart = [...keysByItem.values()].map((keys) => keys[0]);
		const allKeys = [...new Set([...earlierParts, ...currentPart])];
		const recorded = await this.checkAndRecord(allKeys);
		for (const key of recorded) this.recordedBefore.add(key);
		const leftOut: number[] = [];
		for (const [itemIndex, keys] of keysByItem) {
			if (this.isRetry && keys.some((key) => recorded.has(key))) {
				prepared.delete(itemIndex);
				outcomes.succeed(itemIndex, this.alreadyDone(keys));
				leftOut.push(itemIndex);
				// Recorded just now, these keys would make the protection last longer with every
				// left-out run.
				this.notToKeep.push(...keys.filter((key) => !recorded.has(key)));
			} else {
				this.sending.set(itemIndex, this.isRetry ? keys : keys.slice(0, 1));
			}
		}
		if (leftOut.length > 0) this.context.addExecutionHints?.(leftOutHint(leftOut, prepared.size));
	}

	private async checkAndRecord(keys: string[]): Promise<Set<string>> {
		try {
			return await this.store.checkAndRecord(keys);
		} catch {
			// n8n's database could not be asked (e.g. a workflow without an id): this process's memory.
			this.store = processStore(this.context);
			return await this.store.checkAndRecord(keys);
		}
	}

	private alreadyDone(keys: string[]): IDataObject {
		const earlier = keys.map((key) => knownResults.get(this.resultKey(key))).find(Boolean);
		return { ...(earlier ?? {}), alreadyDone: true, note: alreadyDoneNote(earlier !== undefined) };
	}

	private resultKey(key: string): string {
		return scopeOf(this.context) + key;
	}

	/**
	 * Takes off the record what was not sent or was refused for sure, and what the check recorded
	 * for the items left out; keeps the results (ids) of this run for a later execution's output.
	 */
	async settle(outcomes: ItemResults): Promise<void> {
		const keep = new Set<string>();
		const drop = new Set<string>(this.notToKeep);
		for (const [itemIndex, keys] of this.sending) {
			const outcome = outcomes.get(itemIndex);
			if (outcome?.ok) {
				for (const key of keys) keep.add(key);
				rememberResult(this.resultKey(keys[0]), Array.isArray(outcome.json) ? outcome.json[0] : outcome.json);
			} else if (outcome && mayHaveCreated(outcome.error)) for (const key of keys) keep.add(key);
			else for (const key of keys) drop.add(key);
		}
		const toRemove = [...drop].filter((key) => !keep.has(key) && !this.recordedBefore.has(key));
		if (toRemove.length === 0) return;
		try {
			await this.store.remove(toRemove);
		} catch {
			// Left on the record, these requests are refused by a later run for the window: the safe side.
		}
	}
}

function rememberResult(key: string, json: IDataObject | undefined): void {
	if (!json) return;
	knownResults.set(key, json);
}

/** n8n starts its "Retry" of a failed execution in the execute mode `retry` (1.x and 2.x, also on a queue-mode worker). */
export function isRetryOfFailedExecution(context: IExecuteFunctions): boolean {
	return context.getMode() === 'retry';
}
