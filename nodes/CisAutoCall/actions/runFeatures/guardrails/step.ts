import type { IExecuteFunctions } from 'n8n-workflow';

import type { Operation, Run } from '../../operation';
import { mayHaveStarted } from '../../itemErrors';
import type { ItemResults, Step } from '../feature';
import { callLedger, capRefusal, ledgerKeyOf } from './ledger';
import { LimitsAcrossRuns } from './limits';
import {
	checkAllowedNumbers,
	checkDiallable,
	checkOneNumber,
	checkTaskStart,
	type Guardrails,
} from './numbers';

/** The calls of a run booked against Max Calls per Run (numbers per item), to release those that did not start. */
export interface Booking {
	key: string | undefined;
	numbersByItem: Map<number, number>;
	context: IExecuteFunctions;
	asAgentTool: boolean;
}

/**
 * The count also travels with the execution (its context, which n8n saves with a waiting
 * execution), so that a run resumed in another process (after a restart, on another worker in
 * queue mode) still counts the calls started before.
 */
const SAVED_COUNT_KEY = 'cisAutoCallCallsStarted';

/** Where the count is saved: the agent run's (all tools of the agent share it) or the node's. */
function countContext(context: IExecuteFunctions, asAgentTool: boolean) {
	return context.getContext(asAgentTool ? 'flow' : 'node');
}

function savedCallCount(context: IExecuteFunctions, asAgentTool: boolean): number {
	const saved = Number(countContext(context, asAgentTool)[SAVED_COUNT_KEY]);
	return Number.isInteger(saved) && saved > 0 ? saved : 0;
}

function saveCallCount(context: IExecuteFunctions, asAgentTool: boolean, count: number): void {
	countContext(context, asAgentTool)[SAVED_COUNT_KEY] = count;
}

/**
 * Each item first: an emergency number or one too short for a person (the phones' reading refuses
 * those of another length than their country code has), a task start an AI Agent may not make,
 * several numbers where an AI Agent may give one, a number outside Allowed Numbers: the item is
 * refused. Then the numbers of the run
 * (every number of every candidate: each can be dialled) are booked against Max Calls per Run, all
 * or none: a run that would go beyond it is refused whole. Nothing is sent for a refused item.
 * Returns the booking when a cap applies.
 */
export function applyGuardrails(
	run: Run,
	operation: Operation,
	guardrails: Guardrails,
	prepared: Map<number, unknown>,
	outcomes: ItemResults,
): Booking | undefined {
	const numbersByItem = checkItems(operation, guardrails, prepared, outcomes);
	if (guardrails.maxCalls === undefined || prepared.size === 0 || !operation.dialledPhones)
		return undefined;
	const key = ledgerKeyOf(run.context, guardrails.asAgentTool);
	const count = [...numbersByItem.values()].reduce((sum, numbers) => sum + numbers, 0);
	const saved = savedCallCount(run.context, guardrails.asAgentTool);
	if (key !== undefined && saved > callLedger.used(key))
		callLedger.book(key, saved - callLedger.used(key), undefined);
	if (callLedger.book(key, count, guardrails.maxCalls)) {
		saveCallCount(run.context, guardrails.asAgentTool, callLedger.used(key));
		return { key, numbersByItem, context: run.context, asAgentTool: guardrails.asAgentTool };
	}
	const refusal = capRefusal(guardrails, callLedger.used(key), count);
	for (const itemIndex of prepared.keys()) outcomes.fail(itemIndex, refusal);
	prepared.clear();
	return undefined;
}

/** The numbers an operation's prepared item dials (none for an operation that dials nobody). */
function phonesOf(operation: Operation): (prepared: unknown) => string[] {
	return (operation.dialledPhones ?? (() => [])) as (prepared: unknown) => string[];
}

/**
 * The checks of each item, without booking (a run that sends nothing makes them too): a task start
 * an AI Agent may not make, several numbers where an AI Agent may give one, a number outside Allowed
 * Numbers. A refused item leaves `prepared`. Returns how many numbers each remaining item dials.
 */
function checkItems(
	operation: Operation,
	guardrails: Guardrails,
	prepared: Map<number, unknown>,
	outcomes: ItemResults,
): Map<number, number> {
	const phonesOfItem = phonesOf(operation);
	const startsTask = (operation.startsTask ?? (() => false)) as (prepared: unknown) => boolean;
	const numbersByItem = new Map<number, number>();
	for (const [itemIndex, value] of prepared) {
		try {
			checkTaskStart(startsTask(value), guardrails);
			const phones = phonesOfItem(value);
			checkDiallable(phones, guardrails.allowShortNumbers);
			checkOneNumber(phones, guardrails);
			checkAllowedNumbers(phones, guardrails.allowedNumbers);
			numbersByItem.set(itemIndex, phones.length);
		} catch (error) {
			outcomes.fail(itemIndex, error);
			prepared.delete(itemIndex);
		}
	}
	return numbersByItem;
}

/** Booked calls that were not sent, or that the service refused (4xx), did not start: they do not count. */
function releaseUnstarted(booking: Booking, outcomes: ItemResults): void {
	let unstarted = 0;
	for (const [itemIndex, numbers] of booking.numbersByItem)
		if (!mayHaveStarted(outcomes.get(itemIndex))) unstarted += numbers;
	callLedger.release(booking.key, unstarted);
	if (unstarted > 0)
		saveCallCount(booking.context, booking.asAgentTool, callLedger.used(booking.key));
}

/**
 * The guardrails' step: each item checked, then the run's calls booked against Max Calls per Run,
 * then against the limits across runs (Max Calls per Day, Call a Number Again After) before
 * sending; after sending, the booked calls that did not start are given back.
 */
export class GuardrailsStep implements Step {
	private booking: Booking | undefined;

	constructor(
		private readonly guardrails: Guardrails,
		private readonly limits?: LimitsAcrossRuns,
	) {}

	static of(context: IExecuteFunctions, guardrails: Guardrails): GuardrailsStep {
		return new GuardrailsStep(guardrails, LimitsAcrossRuns.of(context, guardrails));
	}

	check(operation: Operation, prepared: Map<number, unknown>, results: ItemResults): void {
		checkItems(operation, this.guardrails, prepared, results);
	}

	async beforeSending(
		run: Run,
		operation: Operation,
		prepared: Map<number, unknown>,
		results: ItemResults,
	): Promise<void> {
		this.booking = applyGuardrails(run, operation, this.guardrails, prepared, results);
		if (this.limits && operation.dialledPhones)
			await this.limits.claim(prepared, phonesOf(operation), results);
	}

	async settle(results: ItemResults): Promise<void> {
		await this.limits?.release(results);
	}

	afterSending(results: ItemResults): void {
		if (this.booking) releaseUnstarted(this.booking, results);
	}
}
