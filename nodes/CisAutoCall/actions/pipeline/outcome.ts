import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { NotSentError } from '../itemErrors';
import { InputError } from '../../../shared/validation';

/** What came of one item: its output, or its error. */
export type Outcome = { ok: true; json: IDataObject | IDataObject[] } | { ok: false; error: Error };

/**
 * One entry per input item, in item order; undefined: not sent. Not sparse: the failure summary
 * walks it with forEach, which would skip never-sent items.
 */
export type Outcomes = Array<Outcome | undefined>;

/** An empty outcome per item (see Outcomes). */
export function noOutcomes(count: number): Outcomes {
	return Array.from({ length: count }, () => undefined);
}

/** Bad input and refusals: the item is not sent. */
export function inputError(context: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof InputError) {
		return new NotSentError(context.getNode(), `${error.message} [item ${itemIndex}]`, {
			itemIndex,
			description: `Field "${error.field}" of item ${itemIndex}. Nothing was sent to the service.`,
		});
	}
	return asNodeError(context, error, itemIndex);
}

/** Any error of an item as an n8n error that names the item. */
export function asNodeError(context: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	if (error instanceof InputError) return inputError(context, error, itemIndex);
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}
