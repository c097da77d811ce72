import type { IExecuteFunctions } from 'n8n-workflow';

import { type NodeRecord, partOfKey, recordOf, type RecordChanges, Window } from '../../../../shared/record';
import { mayHaveCreated } from '../../itemErrors';
import type { ItemResults } from '../feature';
import { type Guardrails, Refusal } from './numbers';

/**
 * The limits across runs: Max Calls per Day and Call a Number Again After (Hours). They count on
 * the node's record in n8n's database (nodes/shared/record/), which every execution and every
 * queue-mode worker shares.
 *
 * The record keeps keys, not counts: a call takes one of the day's slots (slot 0 … Max Calls per
 * Day - 1), and records its number. A window is counted in parts (a quarter each): a key is recorded
 * in the part of its call and found by a later run in that part and the 4 after it, so a slot or a
 * number is held at least the whole window and at most a quarter longer (never more calls in any
 * 24 hours than the limit). n8n's helper records every key it is asked about: a run asks for every
 * slot and number at once, then takes off what it recorded but did not take (one read and write of
 * the record, then one more). This process's claims of a node take turns (the record's serial queue),
 * so that in one process the count is exact; across queue-mode workers, two writes at the same
 * moment can drop one another's keys (docs/limits.md gives the overshoot measured).
 */

/** Each window is counted in this many parts; a key is looked for in its part and the PARTS after it. */
const PARTS = 4;
const DAY_HOURS = 24;

/** The keys a run recorded for an item that may still be called: taken off if its call did not start. */
interface Claim {
	keys: string[];
}

function utcTime(ms: number): string {
	return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** When a key found (its latest part) no longer holds: the start of the part after the window. */
function freeFrom(window: Window, foundKeys: string[]): number {
	return window.startOf(Math.max(...foundKeys.map(partOfKey)) + PARTS + 1);
}

export function dailyLimitRefusal(max: number, nextFreeAt: number): Refusal {
	return new Refusal(
		'maxCallsPerDay',
		max,
		`the daily limit of ${max} ${max === 1 ? 'call' : 'calls'} of this node ("Max Calls per Day") is reached: no more calls can be placed before ${utcTime(nextFreeAt)}, so nothing was sent`,
	);
}

export function callAgainRefusal(digits: string, hours: number, freeAt: number | undefined): Refusal {
	const when = freeAt === undefined ? 'this run already calls it' : `it may be called again after ${utcTime(freeAt)}`;
	return new Refusal(
		'callAgainAfterHours',
		digits,
		`${digits} was called within the last ${hours} ${hours === 1 ? 'hour' : 'hours'} ("Call a Number Again After (Hours)"); ${when}, so nothing was sent`,
	);
}

export class LimitsAcrossRuns {
	private readonly claims = new Map<number, Claim>();
	private readonly record: NodeRecord;
	private readonly day?: Window;
	private readonly again?: Window;

	private constructor(
		context: IExecuteFunctions,
		private readonly guardrails: Guardrails,
		private readonly now: () => number,
	) {
		this.record = recordOf(context);
		if (guardrails.maxCallsPerDay > 0) this.day = new Window('cis-day-slot', DAY_HOURS, PARTS);
		if (guardrails.callAgainAfterHours > 0) this.again = new Window('cis-number', guardrails.callAgainAfterHours, PARTS);
	}

	/** Undefined when both limits are off. */
	static of(context: IExecuteFunctions, guardrails: Guardrails, now: () => number = Date.now): LimitsAcrossRuns | undefined {
		if (guardrails.maxCallsPerDay <= 0 && guardrails.callAgainAfterHours <= 0) return undefined;
		return new LimitsAcrossRuns(context, guardrails, now);
	}

	/**
	 * The items in order: a number called within Call a Number Again After is refused; then each item
	 * takes a slot of the day per number, or is refused when too few are left. A refused item leaves
	 * `prepared`.
	 */
	async claim(prepared: Map<number, unknown>, phonesOf: (value: unknown) => string[], outcomes: ItemResults): Promise<void> {
		if (prepared.size === 0) return;
		const now = this.now();
		const phones = new Map([...prepared].map(([itemIndex, value]) => [itemIndex, phonesOf(value)]));
		const refusals = await this.record.alone(async (record) => await this.claimAlone(record, now, phones));
		for (const [itemIndex, refusal] of refusals) {
			outcomes.fail(itemIndex, refusal);
			prepared.delete(itemIndex);
		}
	}

	private async claimAlone(record: RecordChanges, now: number, phones: Map<number, string[]>): Promise<Map<number, Refusal>> {
		const { day, again } = this;
		// A database error runs this again on the process's memory (the record's fallback): start afresh.
		this.claims.clear();
		const numberKeys = new Map<string, string[]>();
		if (again) for (const digits of new Set([...phones.values()].flat())) numberKeys.set(digits, again.keys(digits, now, PARTS));
		const slotKeys = day ? Array.from({ length: this.guardrails.maxCallsPerDay }, (_, slot) => day.keys(String(slot), now, PARTS)) : [];
		const found = await record.checkAndRecord([...[...numberKeys.values()].flat(), ...slotKeys.flat()]);
		const foundOf = (keys: string[]) => keys.filter((key) => found.has(key));
		const newOf = (keys: string[]) => keys.filter((key) => !found.has(key));

		const refusals = new Map<number, Refusal>();
		const freeSlots = slotKeys.filter((keys) => foundOf(keys).length === 0);
		const calledNow = new Set<string>();
		for (const [itemIndex, numbers] of phones) {
			const refusal = this.refusalOf(numbers, numberKeys, foundOf, calledNow, slotKeys, freeSlots);
			if (refusal) {
				refusals.set(itemIndex, refusal);
				continue;
			}
			for (const digits of numbers) calledNow.add(digits);
			const slots = day ? freeSlots.splice(0, numbers.length) : [];
			const keys = [...numbers.flatMap((digits) => newOf(numberKeys.get(digits) ?? [])), ...slots.flat()];
			this.claims.set(itemIndex, { keys });
		}
		// What was recorded but not taken: the keys of slots left free or found taken, of numbers not called.
		const taken = new Set([...this.claims.values()].flatMap((claim) => claim.keys));
		const notTaken = newOf([...[...numberKeys.values()].flat(), ...slotKeys.flat()]).filter((key) => !taken.has(key));
		if (notTaken.length > 0) await record.remove(notTaken);
		return refusals;
	}

	private refusalOf(
		numbers: string[],
		numberKeys: Map<string, string[]>,
		foundOf: (keys: string[]) => string[],
		calledNow: Set<string>,
		slotKeys: string[][],
		freeSlots: string[][],
	): Refusal | undefined {
		const { day, again } = this;
		if (again) {
			for (const digits of numbers) {
				const earlier = foundOf(numberKeys.get(digits) ?? []);
				if (earlier.length > 0) return callAgainRefusal(digits, again.hours, freeFrom(again, earlier));
				if (calledNow.has(digits)) return callAgainRefusal(digits, again.hours, undefined);
			}
		}
		if (day && freeSlots.length < numbers.length) {
			const takenFrom = slotKeys.map(foundOf).filter((keys) => keys.length > 0);
			// Slots taken by this run hold until the window after now.
			const nextFreeAt = Math.min(...takenFrom.map((keys) => freeFrom(day, keys)), day.startOf(day.partAt(this.now()) + PARTS + 1));
			return dailyLimitRefusal(this.guardrails.maxCallsPerDay, nextFreeAt);
		}
		return undefined;
	}

	/** Takes off the record what the claims of items whose call did not start (not sent, or refused for sure) recorded. */
	async release(outcomes: ItemResults): Promise<void> {
		const unstarted: string[] = [];
		for (const [itemIndex, claim] of this.claims) {
			const outcome = outcomes.get(itemIndex);
			if (!outcome || (!outcome.ok && !mayHaveCreated(outcome.error))) unstarted.push(...claim.keys);
		}
		this.claims.clear();
		if (unstarted.length === 0) return;
		try {
			await this.record.remove(unstarted);
		} catch {
			// Left on the record, these calls count until their window ends: the safe side.
		}
	}
}
