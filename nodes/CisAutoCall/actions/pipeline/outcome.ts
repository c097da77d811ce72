import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { NotSentError } from '../itemErrors';
import type { ItemResults, Outcome } from '../runFeatures/feature';
import { Refusal } from '../runFeatures/guardrails';
import { InputError } from '../../../shared/validation';

/** One entry per input item, in item order; undefined: not sent. */
export type ItemOutcomes = ReadonlyArray<Outcome | undefined>;

/**
 * What came of each item of a run, and the one rule for a failed item: without Continue On Fail
 * bad input stops the run at once and a failed request stops the sending; with it, each becomes
 * the item's error item.
 */
export class Outcomes implements ItemResults {
	// Not sparse: the failure summary walks it with forEach, which would skip never-sent items.
	private readonly byItem: Array<Outcome | undefined>;

	constructor(
		private readonly context: IExecuteFunctions,
		count: number,
		readonly continueOnFail: boolean,
	) {
		this.byItem = Array.from({ length: count }, () => undefined);
	}

	get all(): ItemOutcomes {
		return this.byItem;
	}

	get(itemIndex: number): Outcome | undefined {
		return this.byItem[itemIndex];
	}

	set(itemIndex: number, outcome: Outcome): void {
		this.byItem[itemIndex] = outcome;
	}

	succeed(itemIndex: number, json: IDataObject | IDataObject[]): void {
		this.byItem[itemIndex] = { ok: true, json };
	}

	/** Bad input or a refusal, before anything is sent: throws unless Continue On Fail. */
	fail(itemIndex: number, error: unknown): void {
		const failure = inputError(this.context, error, itemIndex);
		if (!this.continueOnFail) throw failure;
		this.byItem[itemIndex] = { ok: false, error: failure };
	}

	/** A request that failed (for every item it carried). Returns whether sending goes on. */
	failRequest(itemIndexes: number[], error: unknown): boolean {
		const failure = asNodeError(this.context, error, itemIndexes[0]);
		for (const itemIndex of itemIndexes) this.byItem[itemIndex] = { ok: false, error: failure };
		return this.continueOnFail;
	}

	/** The first item that failed, or -1. */
	firstFailed(): number {
		return this.byItem.findIndex((outcome) => outcome && !outcome.ok);
	}
}

/** Bad input and refusals: the item is not sent. */
export function inputError(context: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof InputError) {
		const refusal = error instanceof Refusal ? error : undefined;
		return new NotSentError(
			context.getNode(),
			`${error.message} [item ${itemIndex}]`,
			{
				itemIndex,
				description: `Field "${error.field}" of item ${itemIndex}. Nothing was sent to the service.`,
			},
			refusal ? (refusal.cause === 'badNumber' ? 'badNumber' : 'refused') : 'input',
			refusal && { reason: refusal.reason, ...refusal.words },
		);
	}
	return asNodeError(context, error, itemIndex);
}

/** Any error of an item as an n8n error that names the item. */
function asNodeError(context: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	if (error instanceof InputError) return inputError(context, error, itemIndex);
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}
