import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { fingerprintOf } from '../../../../shared/fingerprint';
import { processMemory } from '../../../../shared/processMemory';
import {
	MAX_RECORD_ENTRIES,
	type NodeRecord,
	recordOf,
	scopeOf,
	Window,
	WINDOW_PARTS,
} from '../../../../shared/record';
import type { Operation } from '../../operation';
import { mayHaveCreated } from '../../itemErrors';
import type { ItemResults, Step } from '../feature';
import { alreadyDoneNote, leftOutHint } from './texts';

/** The requests kept per workflow and node: each records a key per part (see leaveOut). */
export const MAX_KEPT_REQUESTS = MAX_RECORD_ENTRIES / WINDOW_PARTS;

/** What this process knows of the requests' results (their ids), by workflow, node and request key. */
const knownResults = processMemory<IDataObject>('knownRequestResults');

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
		private readonly window: Window,
		private readonly record: NodeRecord,
		private readonly now: () => number,
		/** n8n's Retry of a failed execution: the only run that leaves out what was sent before. */
		private readonly isRetry: boolean,
	) {}

	/** Undefined for operations that create nothing, and when the option is 0 (off). */
	static of(
		context: IExecuteFunctions,
		operation: Operation,
		hours: number,
		now: () => number = Date.now,
	): RepeatProtection | undefined {
		if (!operation.creates || hours <= 0) return undefined;
		const window = new Window('cis-request', hours, WINDOW_PARTS);
		return new RepeatProtection(
			context,
			window,
			recordOf(context),
			now,
			isRetryOfFailedExecution(context),
		);
	}

	/** A request's keys: the part of the window it is sent in, then the three before (found again for 3/4 to 4/4 of it). */
	private keysOf(fingerprint: string): string[] {
		return this.window.keys(fingerprint, this.now(), WINDOW_PARTS - 1);
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
		for (const [itemIndex, value] of prepared)
			keysByItem.set(itemIndex, this.keysOf(fingerprintOf(value)));
		const earlierParts = this.isRetry
			? [...keysByItem.values()].flatMap((keys) => keys.slice(1))
			: [];
		const currentPart = [...keysByItem.values()].map((keys) => keys[0]);
		const allKeys = [...new Set([...earlierParts, ...currentPart])];
		const recorded = await this.record.checkAndRecord(allKeys);
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
				rememberResult(
					this.resultKey(keys[0]),
					Array.isArray(outcome.json) ? outcome.json[0] : outcome.json,
				);
			} else if (outcome && mayHaveCreated(outcome.error)) for (const key of keys) keep.add(key);
			else for (const key of keys) drop.add(key);
		}
		const toRemove = [...drop].filter((key) => !keep.has(key) && !this.recordedBefore.has(key));
		if (toRemove.length === 0) return;
		try {
			await this.record.remove(toRemove);
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
function isRetryOfFailedExecution(context: IExecuteFunctions): boolean {
	return context.getMode() === 'retry';
}
