import type { Operation, Run } from '../operation';
import { inputError, type Outcomes } from './outcome';

/**
 * The check pass: every item is read and checked before any request is sent, so bad input stops
 * the run before anything happens (unless Continue On Fail turns bad items into error items).
 * Returns what each good item sends.
 */
export function prepareAll(
	run: Run,
	operation: Operation,
	outcomes: Outcomes,
): Map<number, unknown> {
	const prepared = new Map<number, unknown>();
	let prepareItem: (itemIndex: number) => unknown;
	try {
		prepareItem = operation.prepare(run);
	} catch (error) {
		throw inputError(run.context, error, 0);
	}
	for (let itemIndex = 0; itemIndex < run.items.length; itemIndex++) {
		try {
			prepared.set(itemIndex, prepareItem(itemIndex));
		} catch (error) {
			outcomes.fail(itemIndex, error);
		}
	}
	return prepared;
}
