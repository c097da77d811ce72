import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorMayHaveCarriedOut } from '../../shared/transport';

export type Outcome = { ok: true; json: IDataObject | IDataObject[] } | { ok: false; error: Error };

/** Create Batch: the call task made for one group of entries, the try making it, or why none may be used. */
export type GroupTask = { taskId: string } | { creating: Promise<void> } | { unusable: string };

/** What the tries of one node run have sent so far. */
export interface RunRecord {
	/** item index → fingerprint of its prepared request, and what came of sending it */
	items: Map<number, { fingerprint: string; outcome: Outcome }>;
	/** group of entries (template + bot script) → its call task */
	tasks: Map<string, GroupTask>;
}

/** An item the node itself did not send (nothing can have been created for it). */
export class NotSentError extends NodeOperationError {}

/**
 * Whether a failed request may still have created something: never for an item the node did not
 * send; otherwise the transport's failure rules decide (errorMayHaveCarriedOut).
 */
export function mayHaveCreated(error: Error): boolean {
	return !(error instanceof NotSentError) && errorMayHaveCarriedOut(error);
}

const MAX_RUNS = 100;
/** n8n waits at most 5 s between tries; a record is kept this long after the end of its last try. */
const EXPIRES_MS = 10 * 60 * 1000;

/**
 * n8n's "Retry On Fail" runs a failed node again with the same input, and only after a failure.
 * The router records here, per node run, each item that was created or whose outcome is unknown,
 * so that the next try does not send it again.
 *
 * Process memory is enough and is the right place: all tries of a node run happen inside one
 * WorkflowExecute call, in one process (in queue mode the worker that runs the execution), so no
 * other process needs it, and nothing lands in the workflow or its static data. The key is the
 * execution id, the node and its run index (a node in a loop runs several times in one execution);
 * each item also keeps the fingerprint of its request, so a request that changed between tries is
 * never taken for the one sent before. Only nodes with Retry On Fail keep records, and only after a
 * failed try; the record of a run that failed for good stays behind, so records expire ten minutes
 * after their last try and at most MAX_RUNS are kept.
 */
export class RetryMemory {
	private readonly runs = new Map<string, { record: RunRecord; expiresAt: number }>();

	constructor(
		private readonly maxRuns = MAX_RUNS,
		private readonly expiresMs = EXPIRES_MS,
		private readonly now: () => number = Date.now,
	) {}

	/** The record of an earlier try of this node run, or a new one (without a key it is never kept). */
	recordFor(key: string | undefined): RunRecord {
		this.dropExpired();
		const kept = key === undefined ? undefined : this.runs.get(key);
		return kept?.record ?? { items: new Map(), tasks: new Map() };
	}

	/** Keeps the record for the next try; the oldest records go beyond maxRuns. */
	keep(key: string | undefined, record: RunRecord): void {
		if (key === undefined) return;
		this.runs.delete(key);
		this.runs.set(key, { record, expiresAt: this.now() + this.expiresMs });
		while (this.runs.size > this.maxRuns) this.runs.delete(this.runs.keys().next().value as string);
	}

	forget(key: string | undefined): void {
		if (key !== undefined) this.runs.delete(key);
	}

	get size(): number {
		return this.runs.size;
	}

	private dropExpired(): void {
		const now = this.now();
		for (const [key, { expiresAt }] of this.runs) if (expiresAt <= now) this.runs.delete(key);
	}
}

export const retryMemory = new RetryMemory();

/** Execution id + node + run index; undefined when n8n gives no execution id (nothing is then kept). */
export function runKeyOf(context: IExecuteFunctions): string | undefined {
	const executionId = context.getExecutionId();
	if (!executionId) return undefined;
	const runIndex = context.getWorkflowDataProxy(0).$runIndex as number;
	return JSON.stringify([context.getWorkflow().id ?? '', executionId, context.getNode().name, runIndex]);
}
