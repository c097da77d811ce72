import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ExpiringMap } from '../../../shared/expiringMap';
import { fingerprintOf } from '../../../shared/fingerprint';
import { processMemory } from '../../../shared/processMemory';
import type { GroupTask, GroupTasks, Operation } from '../operation';
import { mayHaveStarted } from '../itemErrors';
import type { ItemResults, Outcome, Step } from '../runFeatures/feature';

/** What the tries of one node run have sent so far. */
export interface RunRecord {
	/** item index → fingerprint of its prepared request, and what came of sending it */
	items: Map<number, { fingerprint: string; outcome: Outcome }>;
	/** group of entries (template + bot script) → its call task (Create Batch) */
	tasks: Map<string, GroupTask>;
}

/**
 * n8n's "Retry On Fail" runs a failed node again with the same input, and only after a failure.
 * The pipeline records here, per node run, each item that was created or whose outcome is unknown,
 * so that the next try does not send it again.
 *
 * Process memory is enough and is the right place: all tries of a node run happen inside one
 * WorkflowExecute call, in one process (in queue mode the worker that runs the execution), so no
 * other process needs it, and nothing lands in the workflow or its static data. The key is the
 * execution id, the node and its run index (a node in a loop runs several times in one execution);
 * each item also keeps the fingerprint of its request, so a request that changed between tries is
 * never taken for the one sent before. Only nodes with Retry On Fail keep records, and only after a
 * failed try; the record of a run that failed for good stays behind, so records expire and their
 * number is capped (`earlierTries`: the declaration says how long and how many).
 */
export class RetryMemory {
	constructor(private readonly runs: ExpiringMap<RunRecord>) {}

	/** The record of an earlier try of this node run, or a new one (without a key it is never kept). */
	recordFor(key: string | undefined): RunRecord {
		const kept = key === undefined ? undefined : this.runs.get(key);
		return kept ?? { items: new Map(), tasks: new Map() };
	}

	/** Keeps the record for the next try; the oldest records go beyond the cap. */
	keep(key: string | undefined, record: RunRecord): void {
		if (key !== undefined) this.runs.set(key, record);
	}

	forget(key: string | undefined): void {
		if (key !== undefined) this.runs.delete(key);
	}

	get size(): number {
		return this.runs.size;
	}
}

const retryMemory = new RetryMemory(processMemory('earlierTries'));

/** Execution id + node + run index; undefined when n8n gives no execution id (nothing is then kept). */
function runKeyOf(context: IExecuteFunctions): string | undefined {
	const executionId = context.getExecutionId();
	if (!executionId) return undefined;
	const runIndex = context.getWorkflowDataProxy(0).$runIndex as number;
	return JSON.stringify([
		context.getWorkflow().id ?? '',
		executionId,
		context.getNode().name,
		runIndex,
	]);
}

/**
 * The Retry-On-Fail memory of one node run as the pipeline uses it, the first step of every run:
 * which items an earlier try already sent, what this try sends, and the call tasks of Create
 * Batch's groups (`groupTasks`, the only part an operation sees, through Run).
 */
export class EarlierTries implements Step {
	/** Fingerprints of the items this try sends; undefined when the node run keeps no memory. */
	private fingerprints?: Map<number, string>;

	private constructor(
		private readonly context: IExecuteFunctions,
		/** Only a node with Retry On Fail is run again with the same items; only creating operations need it. */
		private readonly remembers: boolean,
		private readonly key: string | undefined,
		private readonly record: RunRecord,
	) {}

	/** The memory of this node run: kept only for creating operations of a node with Retry On Fail. */
	static of(context: IExecuteFunctions, operation: Operation): EarlierTries {
		const remembers = operation.creates && context.getNode().retryOnFail === true;
		const key = remembers ? runKeyOf(context) : undefined;
		return new EarlierTries(context, remembers, key, retryMemory.recordFor(key));
	}

	/** Create Batch's call tasks, the one part operations see (Run.groupTasks). */
	get groupTasks(): GroupTasks {
		return this.record.tasks;
	}

	/**
	 * Items that an earlier try of this node run created (or left with an unknown outcome) are not
	 * sent again: they keep that try's result, and leave `prepared`.
	 */
	leaveOut(prepared: Map<number, unknown>, outcomes: ItemResults): void {
		if (!this.remembers) return;
		const fingerprints = new Map<number, string>();
		for (const [itemIndex, value] of prepared) {
			const fingerprint = fingerprintOf(value);
			const earlier = this.record.items.get(itemIndex);
			if (!earlier) {
				fingerprints.set(itemIndex, fingerprint);
				continue;
			}
			prepared.delete(itemIndex);
			outcomes.set(
				itemIndex,
				earlier.fingerprint === fingerprint
					? earlier.outcome
					: {
							ok: false,
							error: new NodeOperationError(
								this.context.getNode(),
								`Not sent again: an earlier try of this node already sent this item, and its request has changed since [item ${itemIndex}]`,
								{
									itemIndex,
									description:
										"n8n's Retry On Fail ran the node again, and this item now gives a different request (an expression with the time or a random value?). It may already have created a candidate or a task, so it was not sent a second time. Check the service.",
								},
							),
						},
			);
		}
		this.fingerprints = fingerprints;
	}

	/** Records what this try created or may have created, and keeps the record only when n8n will try again. */
	afterSending(outcomes: ItemResults): void {
		if (!this.fingerprints) return;
		for (const [itemIndex, fingerprint] of this.fingerprints) {
			const outcome = outcomes.get(itemIndex);
			if (outcome && mayHaveStarted(outcome))
				this.record.items.set(itemIndex, { fingerprint, outcome });
		}
		// n8n tries again only after a failure (a thrown error, or an error as the first output item).
		if (outcomes.firstFailed() !== -1) retryMemory.keep(this.key, this.record);
		else retryMemory.forget(this.key);
	}
}
