import type { IExecuteFunctions } from 'n8n-workflow';

import { asTheServiceDials } from '../../../../shared/phones';
import { processMemory } from '../../../../shared/processMemory';
import {
	type NodeRecord,
	partOfKey,
	recordOf,
	type RecordChanges,
	scopeOf,
	Window,
} from '../../../../shared/record';
import { mayHaveCreated } from '../../itemErrors';
import type { ItemResults } from '../feature';
import { Refusal } from '../../../../shared/validation';
import type { Guardrails } from './numbers';

/**
 * The limits across runs: Max Calls per Day and Call a Number Again After (Hours). They count on
 * the node's record in n8n's database (nodes/shared/record/), which every execution and every
 * queue-mode worker shares.
 *
 * The record keeps keys, not counts: a call takes one of the day's slots (slot 0 … Max Calls per
 * Day - 1), and records its number. A window is counted in parts (a quarter each): a key is recorded
 * in the part of its call and found by a later run in that part and the 4 after it, so a slot or a
 * number is held at least the whole window and at most a quarter longer (never more calls in any
 * 24 hours than the limit). n8n's helper records every key it is asked about, so a run asks for its
 * numbers and for as many slots as it needs (DaySlots), then takes off what it recorded but does not
 * keep. This process's claims of a node take turns (the record's serial queue), so that in one
 * process the count is exact; across queue-mode workers, two writes at the same moment can drop one
 * another's keys (docs/limits.md gives the overshoot measured).
 */

/** Each window is counted in this many parts; a key is looked for in its part and the PARTS after it. */
const PARTS = 4;
const DAY_HOURS = 24;

/**
 * Per workflow and node: the keys of the slots this process took. Another worker writing the record
 * at the same moment can drop them (n8n writes the row whole); each claim of this process asks for them
 * again, so that a dropped slot is back before another run takes it.
 */
const slotsClaimed = processMemory<string[]>('dailySlotsClaimed');

/** The slot a key of the day names (the last field of recordKey). */
function slotOfKey(key: string): number {
	return Number(key.split(':')[3]);
}

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

function dailyLimitRefusal(max: number, nextFreeAt: number): Refusal {
	return new Refusal(
		'maxCallsPerDay',
		max,
		`the daily limit of ${max} ${max === 1 ? 'call' : 'calls'} of this node ("Max Calls per Day") is reached: no more calls can be placed before ${utcTime(nextFreeAt)}, so nothing was sent`,
		'limit',
		{
			builderFix: 'raise "Max Calls per Day" in Options to allow more',
			forModel:
				'Tell the user that the daily limit of calls is reached and when calls can be placed again; place no more calls.',
		},
	);
}

function callAgainRefusal(digits: string, hours: number, freeAt: number | undefined): Refusal {
	const when =
		freeAt === undefined
			? 'this run already calls it'
			: `it may be called again after ${utcTime(freeAt)}`;
	return new Refusal(
		'callAgainAfterHours',
		digits,
		`${digits} was called within the last ${hours} ${hours === 1 ? 'hour' : 'hours'} ("Call a Number Again After (Hours)"); ${when}, so nothing was sent`,
		'limit',
		{
			builderFix: 'lower "Call a Number Again After (Hours)" in Options to allow it sooner',
			forModel:
				'Tell the user this person was called recently and when they may be called again; do not call them on another number or in another way.',
		},
	);
}

/**
 * The day's slots of one claim, asked in a random order, a few at a time (as many as wanted, then
 * twice as many …): a slot asked and found free is taken by this claim (n8n's helper recorded it),
 * so asking no more than needed leaves no free slot to give back, which another worker may have
 * taken at the same moment; and two workers asking at the same moment seldom ask the same slots.
 */
class DaySlots {
	/** Slots asked and found free (their keys), in the order asked. */
	readonly free: string[][] = [];
	/** Per slot found taken: the keys found (when it frees) and the keys this claim added (to take off). */
	private readonly taken: Array<{ found: string[]; added: string[] }> = [];
	private readonly order: number[];
	private asked = 0;
	private batch = 0;

	constructor(
		private readonly day: Window,
		count: number,
		private readonly now: number,
		/** The keys of the slots this process took already: taken, asked with the first slots but not as free ones. */
		private readonly mine: string[],
	) {
		const mySlots = new Set(mine.map(slotOfKey));
		this.order = Array.from({ length: count }, (_, slot) => slot).filter(
			(slot) => !mySlots.has(slot),
		);
		for (let index = this.order.length - 1; index > 0; index--) {
			const other = Math.floor(Math.random() * (index + 1));
			[this.order[index], this.order[other]] = [this.order[other], this.order[index]];
		}
	}

	left(): number {
		return this.order.length - this.asked;
	}

	/** The keys of the next slots to ask: at least `wanted`, twice as many as the ask before. */
	next(wanted: number): string[][] {
		this.batch = Math.max(wanted, this.batch * 2);
		const slots = this.order.slice(this.asked, this.asked + this.batch);
		this.asked += slots.length;
		return slots.map((slot) => this.day.keys(String(slot), this.now, PARTS));
	}

	learn(slots: string[][], found: Set<string>): void {
		for (const keys of slots) {
			const foundKeys = keys.filter((key) => found.has(key));
			if (foundKeys.length === 0) this.free.push(keys);
			else this.taken.push({ found: foundKeys, added: keys.filter((key) => !found.has(key)) });
		}
	}

	/** When the first slot found taken frees; a slot this run takes holds until the part after the window. */
	nextFreeAt(): number {
		const afterThisRun = this.day.startOf(this.day.partAt(this.now) + PARTS + 1);
		const mine = new Map<number, string[]>();
		for (const key of this.mine)
			mine.set(slotOfKey(key), [...(mine.get(slotOfKey(key)) ?? []), key]);
		const frees = [...this.taken.map(({ found }) => found), ...mine.values()].map((keys) =>
			freeFrom(this.day, keys),
		);
		return Math.min(afterThisRun, ...frees);
	}

	/** What this claim recorded and does not keep: the slots left free, the keys it added to slots found taken. */
	notTaken(): string[] {
		return [...this.free.flat(), ...this.taken.flatMap(({ added }) => added)];
	}
}

export class LimitsAcrossRuns {
	private readonly claims = new Map<number, Claim>();
	private readonly record: NodeRecord;
	private readonly scope: string;
	private readonly day?: Window;
	private readonly again?: Window;

	private constructor(
		context: IExecuteFunctions,
		private readonly guardrails: Guardrails,
		private readonly now: () => number,
	) {
		this.record = recordOf(context, true);
		this.scope = scopeOf(context);
		if (guardrails.maxCallsPerDay > 0) this.day = new Window('cis-day-slot', DAY_HOURS, PARTS);
		if (guardrails.callAgainAfterHours > 0)
			this.again = new Window('cis-number', guardrails.callAgainAfterHours, PARTS);
	}

	/** Undefined when both limits are off. */
	static of(
		context: IExecuteFunctions,
		guardrails: Guardrails,
		now: () => number = Date.now,
	): LimitsAcrossRuns | undefined {
		if (guardrails.maxCallsPerDay <= 0 && guardrails.callAgainAfterHours <= 0) return undefined;
		return new LimitsAcrossRuns(context, guardrails, now);
	}

	/**
	 * The items in order: a number called within Call a Number Again After is refused; then each item
	 * takes a slot of the day per number, or is refused when too few are left. A refused item leaves
	 * `prepared`.
	 */
	async claim(
		prepared: Map<number, unknown>,
		phonesOf: (value: unknown) => string[],
		outcomes: ItemResults,
	): Promise<void> {
		if (prepared.size === 0) return;
		const now = this.now();
		const phones = new Map([...prepared].map(([itemIndex, value]) => [itemIndex, phonesOf(value)]));
		let refusals: Map<number, Refusal>;
		try {
			refusals = await this.record.alone(
				async (record) => await this.claimAlone(record, now, phones),
			);
		} catch {
			// Counting on this process's memory would start the day afresh: nothing is sent instead.
			this.claims.clear();
			refusals = new Map(
				[...prepared.keys()].map((itemIndex) => [itemIndex, this.uncheckedRefusal()]),
			);
		}
		for (const [itemIndex, refusal] of refusals) {
			outcomes.fail(itemIndex, refusal);
			prepared.delete(itemIndex);
		}
	}

	/** n8n's database could not be asked: the limits set cannot be checked. */
	private uncheckedRefusal(): Refusal {
		const [field, value, limit] =
			this.guardrails.maxCallsPerDay > 0
				? [
						'maxCallsPerDay',
						this.guardrails.maxCallsPerDay,
						'the daily limit ("Max Calls per Day")',
					]
				: [
						'callAgainAfterHours',
						this.guardrails.callAgainAfterHours,
						'when the number was last called ("Call a Number Again After (Hours)")',
					];
		return new Refusal(
			field,
			value,
			`${limit} could not be checked in n8n's database; nothing was sent`,
		);
	}

	private async claimAlone(
		record: RecordChanges,
		now: number,
		phones: Map<number, string[]>,
	): Promise<Map<number, Refusal>> {
		const { day, again } = this;
		this.claims.clear();
		const numberKeys = new Map<string, string[]>();
		if (again)
			for (const digits of new Set([...phones.values()].flat()))
				numberKeys.set(digits, again.keys(asTheServiceDials(digits), now, PARTS));
		const mine = day ? this.mySlotKeys(day, now) : [];
		const slots = day ? new DaySlots(day, this.guardrails.maxCallsPerDay, now, mine) : undefined;
		// One ask for the numbers, this process's slots and the first slots (as many as the run's numbers), then more slots while too few are free.
		const allNumbers = [...phones.values()].reduce((sum, numbers) => sum + numbers.length, 0);
		const firstSlots = slots?.next(allNumbers) ?? [];
		const found = await record.checkAndRecord([
			...[...numberKeys.values()].flat(),
			...mine,
			...firstSlots.flat(),
		]);
		const newOf = (keys: string[]) => keys.filter((key) => !found.has(key));
		slots?.learn(firstSlots, found);

		const refusals = new Map<number, Refusal>();
		const calledNow = new Set<string>();
		const wanting: Array<[number, string[]]> = [];
		for (const [itemIndex, numbers] of phones) {
			const refusal = again
				? this.calledBefore(again, numbers, numberKeys, found, calledNow)
				: undefined;
			if (refusal) refusals.set(itemIndex, refusal);
			else {
				for (const digits of numbers) calledNow.add(asTheServiceDials(digits));
				wanting.push([itemIndex, numbers]);
			}
		}
		const slotsWanted = wanting.reduce((sum, [, numbers]) => sum + numbers.length, 0);
		while (slots && slots.free.length < slotsWanted && slots.left() > 0) {
			const more = slots.next(slotsWanted - slots.free.length);
			slots.learn(more, await record.checkAndRecord(more.flat()));
		}
		for (const [itemIndex, numbers] of wanting) {
			if (slots && slots.free.length < numbers.length) {
				// This process's own slots count as taken; the earliest frees as the first found taken does.
				refusals.set(
					itemIndex,
					dailyLimitRefusal(this.guardrails.maxCallsPerDay, slots.nextFreeAt()),
				);
				continue;
			}
			const taken = slots ? slots.free.splice(0, numbers.length) : [];
			if (taken.length > 0)
				slotsClaimed.set(this.scope, [...this.mySlotKeys(day as Window, now), ...taken.flat()]);
			this.claims.set(itemIndex, {
				keys: [
					...numbers.flatMap((digits) => newOf(numberKeys.get(digits) ?? [])),
					...taken.flat(),
				],
			});
		}
		// What was recorded but not taken: free slots left over, the new keys of slots found taken, numbers not called.
		const kept = new Set([...this.claims.values()].flatMap((claim) => claim.keys));
		const notTaken = [
			...newOf([...numberKeys.values()].flat()),
			...(slots?.notTaken() ?? []),
		].filter((key) => !kept.has(key));
		if (notTaken.length > 0) await record.remove(notTaken);
		return refusals;
	}

	/** The keys of the slots this process took that still hold at `now`. */
	private mySlotKeys(day: Window, now: number): string[] {
		const oldest = day.partAt(now) - PARTS;
		return (slotsClaimed.get(this.scope) ?? []).filter((key) => partOfKey(key) >= oldest);
	}

	/** A number called within Call a Number Again After, or earlier in this run. */
	private calledBefore(
		again: Window,
		numbers: string[],
		numberKeys: Map<string, string[]>,
		found: Set<string>,
		calledNow: Set<string>,
	): Refusal | undefined {
		for (const digits of numbers) {
			const earlier = (numberKeys.get(digits) ?? []).filter((key) => found.has(key));
			if (earlier.length > 0)
				return callAgainRefusal(digits, again.hours, freeFrom(again, earlier));
			if (calledNow.has(asTheServiceDials(digits)))
				return callAgainRefusal(digits, again.hours, undefined);
		}
		return undefined;
	}

	/** Takes off the record what the claims of items whose call did not start (not sent, or refused for sure) recorded. */
	async release(outcomes: ItemResults): Promise<void> {
		const unstarted: string[] = [];
		for (const [itemIndex, claim] of this.claims) {
			const outcome = outcomes.get(itemIndex);
			if (!outcome || (!outcome.ok && !mayHaveCreated(outcome.error)))
				unstarted.push(...claim.keys);
		}
		this.claims.clear();
		if (unstarted.length === 0) return;
		const given = new Set(unstarted);
		const mine = slotsClaimed.get(this.scope);
		if (mine)
			slotsClaimed.set(
				this.scope,
				mine.filter((key) => !given.has(key)),
			);
		try {
			await this.record.remove(unstarted);
		} catch {
			// Left on the record, these calls count until their window ends: the safe side.
		}
	}
}
