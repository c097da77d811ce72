import { callLedger, capRefusal, checkAllowedNumbers, type Guardrails, ledgerKeyOf } from '../../guardrails';
import type { Operation, Run } from '../operation';
import { inputError, mayHaveCreated, type Outcomes } from './outcome';

/** The calls of a run booked against Max Calls per Run, to release those that did not start. */
export interface Booking {
	key: string | undefined;
	itemIndexes: number[];
}

/**
 * Allowed Numbers refuses each candidate with a number outside them; then the calls of the run are
 * booked against Max Calls per Run, all or none: a run that would go beyond it is refused whole.
 * Nothing is sent for a refused item. Returns the booking when a cap applies.
 */
export function applyGuardrails(
	run: Run,
	operation: Operation,
	guardrails: Guardrails,
	prepared: Map<number, unknown>,
	outcomes: Outcomes,
	continueOnFail: boolean,
): Booking | undefined {
	const phonesOf = operation.dialledPhones as (prepared: unknown) => string[];
	for (const [itemIndex, value] of prepared) {
		try {
			checkAllowedNumbers(phonesOf(value), guardrails.allowedNumbers);
		} catch (error) {
			const failure = inputError(run.context, error, itemIndex);
			if (!continueOnFail) throw failure;
			outcomes[itemIndex] = { ok: false, error: failure };
			prepared.delete(itemIndex);
		}
	}
	if (guardrails.maxCalls === undefined || prepared.size === 0) return undefined;
	const key = ledgerKeyOf(run.context);
	const itemIndexes = [...prepared.keys()];
	if (callLedger.book(key, itemIndexes.length, guardrails.maxCalls)) return { key, itemIndexes };
	const refusal = capRefusal(guardrails, callLedger.used(key), itemIndexes.length);
	if (!continueOnFail) throw inputError(run.context, refusal, itemIndexes[0]);
	for (const itemIndex of itemIndexes) outcomes[itemIndex] = { ok: false, error: inputError(run.context, refusal, itemIndex) };
	prepared.clear();
	return undefined;
}

/** Booked calls that were not sent, or that the service refused (4xx), did not start: they do not count. */
export function releaseUnstarted(booking: Booking, outcomes: Outcomes): void {
	const unstarted = booking.itemIndexes.filter((itemIndex) => {
		const outcome = outcomes[itemIndex];
		return !outcome || (!outcome.ok && !mayHaveCreated(outcome.error));
	});
	callLedger.release(booking.key, unstarted.length);
}
