import type { IExecuteFunctions } from 'n8n-workflow';

import { asTheServiceDials } from '../../../../shared/phones';
import { processMemory } from '../../../../shared/processMemory';
import {
	type ChangesAlone,
	idOfKey,
	type NodeRecord,
	partOfKey,
	recordOf,
	scopeOf,
	Window,
	WINDOW_PARTS,
} from '../../../../shared/record';
import { Refusal } from '../../../../shared/validation';
import { mayHaveStarted } from '../../itemErrors';
import type { ItemResults } from '../feature';
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
 * another's keys: a claim keeps a slot or a number only if its seat shows (see take), which narrows
 * that moment without closing it (docs/limits.md gives the overshoot measured).
 */

const DAY_HOURS = 24;

/**
 * Per workflow and node: the keys of the slots this process took. Another worker writing the record
 * at the same moment can drop them (n8n writes the row whole); each claim of this process asks for them
 * again, so that a dropped slot is back before another run takes it.
 */
const slotsClaimed = processMemory<string[]>('dailySlotsClaimed');

/** How many times at most a claim checks what it wrote, while neither its seat nor another's write shows. */
const CHECKS = 6;
/**
 * The first slots a claim asks are asked as they are wanted, not more: a slot won and not needed is
 * given back, and a write of another worker at the same moment can undo that (the slot then stays
 * taken by nobody). Beyond these, asks double, so that a full day costs a few asks, not one per slot.
 */
const SLOTS_ASKED_SINGLY = 8;

/**
 * A name a claim asks for on the record (a slot of the day, a number) by its keys, one per part, and
 * its seat: a key only this claim writes (the current part's key and the claim's random id).
 */
class Asked {
	readonly seat: string;
	/** found: on the record before the claim; won: this claim's; lost: another claim's write of the same moment kept it. */
	outcome?: 'found' | 'won' | 'lost';
	found: string[] = [];

	constructor(
		readonly keys: string[],
		claimId: string,
	) {
		this.seat = `${keys[0]}:${claimId}`;
	}

	/** What this claim recorded for the name, taken off when it does not keep it: never another claim's keys. */
	recorded(): string[] {
		if (this.outcome === 'won') return [...this.keys, this.seat];
		if (this.outcome === 'found')
			return [...this.keys.filter((key) => !this.found.includes(key)), this.seat];
		return [this.seat];
	}
}

/**
 * Records the names' keys and seats (and `others`: this process's slots, asked again) in one call of
 * n8n's helper, then checks in the next what the record shows. n8n's row is read then written whole:
 * two claims that both read a name free before either wrote both think it theirs, and the later write
 * drops the earlier's keys. A name's keys are the same for every claim; its seat is this claim's
 * alone. So a name read free is kept only when the check shows the seat (won); when it shows the
 * name's keys without the seat, another claim's write stayed, and this one gives the name up (lost:
 * fewer calls, never more); when it shows neither, some other write dropped this one, the check has
 * written them again (asking records), and the next check decides; after the last, the name is lost.
 * Why asking cannot take a name wrongly or starve everyone: a check records only this claim's seat
 * and the name's keys, which are this claim's own or already the holder's; and of two workers' claims
 * of one name, the write that dropped one's seat is the other's, whose seat the record then shows, so
 * they cannot both give it up. A name lost leaves its keys (they are the holder's). What it cannot
 * stop: one worker's write and check both landing between the other's read and its write; both then
 * keep the name. The check is the call n8n's record always made second (store.ts asks again), so a
 * claim still costs two calls, and a third to take off what it does not keep.
 */
async function take(record: ChangesAlone, names: Asked[], others: string[]): Promise<void> {
	const found = await record.recordOnce([
		...others,
		...names.flatMap((name) => [...name.keys, name.seat]),
	]);
	let pending: Asked[] = [];
	for (const name of names) {
		name.found = name.keys.filter((key) => found.has(key));
		if (name.found.length > 0) name.outcome = 'found';
		else pending.push(name);
	}
	let unconfirmed = others.filter((key) => !found.has(key));
	for (let check = 0; check < CHECKS && pending.length + unconfirmed.length > 0; check++) {
		const shown = await record.recordOnce([
			...unconfirmed,
			...pending.flatMap((name) => [name.seat, ...name.keys]),
		]);
		unconfirmed = unconfirmed.filter((key) => !shown.has(key));
		pending = pending.filter((name) => {
			if (shown.has(name.seat)) name.outcome = 'won';
			else if (name.keys.some((key) => shown.has(key))) name.outcome = 'lost';
			return name.outcome === undefined;
		});
	}
	for (const name of pending) name.outcome = 'lost';
}

/** The slot a key of the day names. */
function slotOfKey(key: string): number {
	return Number(idOfKey(key));
}

/** The keys a run recorded for an item that may still be called: taken off if its call did not start. */
interface Claim {
	keys: string[];
}

/** How many numbers the lists hold together. */
function countOf(lists: Iterable<string[]>): number {
	let count = 0;
	for (const list of lists) count += list.length;
	return count;
}

function utcTime(ms: number): string {
	return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** When a key found (its latest part) no longer holds: the start of the part after the window. */
function freeFrom(window: Window, foundKeys: string[]): number {
	return window.startOf(Math.max(...foundKeys.map(partOfKey)) + WINDOW_PARTS + 1);
}

/** The end of a refusal's reason when n8n's database could not be asked. */
const UNCHECKED = "could not be checked in n8n's database; nothing was sent";

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
 * The day's slots of one claim, asked in a random order, a few at a time (as many as wanted, and
 * past the first SLOTS_ASKED_SINGLY twice as many as the ask before): a slot asked and found free is
 * taken by this claim (n8n's helper recorded it), so asking no more than needed leaves no free slot to
 * give back, which another worker may have taken at the same moment; and two workers asking at the
 * same moment seldom ask the same slots.
 */
class DaySlots {
	/** Slots asked and won, in the order asked. */
	readonly free: Asked[] = [];
	/** Slots found taken: the keys found tell when they free. */
	private readonly taken: Asked[] = [];
	private readonly order: number[];
	private asked = 0;
	private batch = 0;

	constructor(
		private readonly day: Window,
		count: number,
		private readonly now: number,
		/** The keys of the slots this process took already: taken, asked with the first slots but not as free ones. */
		private readonly mine: string[],
		private readonly claimId: string,
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

	/** The next slots to ask: as many as wanted; past the first SLOTS_ASKED_SINGLY, at least twice as many as the ask before. */
	next(wanted: number): Asked[] {
		this.batch = this.asked < SLOTS_ASKED_SINGLY ? wanted : Math.max(wanted, this.batch * 2);
		const slots = this.order.slice(this.asked, this.asked + this.batch);
		this.asked += slots.length;
		return slots.map(
			(slot) => new Asked(this.day.keys(String(slot), this.now, WINDOW_PARTS), this.claimId),
		);
	}

	/** Asks more slots while fewer than `wanted` are free and some are left; returns the slots asked. */
	async askMore(record: ChangesAlone, wanted: number): Promise<Asked[]> {
		const asked: Asked[] = [];
		while (this.free.length < wanted && this.left() > 0) {
			const more = this.next(wanted - this.free.length);
			asked.push(...more);
			await take(record, more, []);
			this.learn(more);
		}
		return asked;
	}

	learn(slots: Asked[]): void {
		for (const slot of slots) {
			if (slot.outcome === 'won') this.free.push(slot);
			else if (slot.outcome === 'found') this.taken.push(slot);
		}
	}

	/** When the first slot found taken frees; a slot this run takes (or another took at the same moment) holds until the part after the window. */
	nextFreeAt(): number {
		const afterThisRun = this.day.startOf(this.day.partAt(this.now) + WINDOW_PARTS + 1);
		const mine = new Map<number, string[]>();
		for (const key of this.mine)
			mine.set(slotOfKey(key), [...(mine.get(slotOfKey(key)) ?? []), key]);
		const frees = [...this.taken.map(({ found }) => found), ...mine.values()].map((keys) =>
			freeFrom(this.day, keys),
		);
		return Math.min(afterThisRun, ...frees);
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
		if (guardrails.maxCallsPerDay > 0)
			this.day = new Window('cis-day-slot', DAY_HOURS, WINDOW_PARTS);
		if (guardrails.callAgainAfterHours > 0)
			this.again = new Window('cis-number', guardrails.callAgainAfterHours, WINDOW_PARTS);
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
		const { maxCallsPerDay, callAgainAfterHours } = this.guardrails;
		if (maxCallsPerDay > 0)
			return new Refusal(
				'maxCallsPerDay',
				maxCallsPerDay,
				`the daily limit ("Max Calls per Day") ${UNCHECKED}`,
			);
		return new Refusal(
			'callAgainAfterHours',
			callAgainAfterHours,
			`when the number was last called ("Call a Number Again After (Hours)") ${UNCHECKED}`,
		);
	}

	/**
	 * One ask for the numbers, this process's slots and the first slots (as many as the run's
	 * numbers); then the items called before are refused, more slots are asked while too few are
	 * free, each other item claims its slots or is refused, and what is not kept is taken off.
	 */
	private async claimAlone(
		record: ChangesAlone,
		now: number,
		phones: Map<number, string[]>,
	): Promise<Map<number, Refusal>> {
		const { day } = this;
		this.claims.clear();
		const claimId = Math.random().toString(36).slice(2, 10);
		const numbers = this.numbersAsked(phones, now, claimId);
		const mine = day ? this.mySlotKeys(day, now) : [];
		const slots = day
			? new DaySlots(day, this.guardrails.maxCallsPerDay, now, mine, claimId)
			: undefined;
		const firstSlots = slots?.next(countOf(phones.values())) ?? [];
		const asked = [...numbers.values(), ...firstSlots];
		await take(record, asked, mine);
		slots?.learn(firstSlots);

		const { refusals, wanting } = this.refuseCalledBefore(phones, numbers);
		if (slots) asked.push(...(await slots.askMore(record, countOf(wanting.values()))));
		for (const [itemIndex, list] of wanting) {
			if (slots && slots.free.length < list.length) {
				// This process's own slots count as taken; the earliest frees as the first found taken does.
				refusals.set(
					itemIndex,
					dailyLimitRefusal(this.guardrails.maxCallsPerDay, slots.nextFreeAt()),
				);
				continue;
			}
			const taken = slots ? slots.free.splice(0, list.length) : [];
			if (taken.length > 0)
				slotsClaimed.set(this.scope, [
					...this.mySlotKeys(day as Window, now),
					...taken.flatMap((slot) => slot.keys),
				]);
			this.claims.set(itemIndex, {
				keys: [
					...list.flatMap((digits) => numbers.get(digits)?.recorded() ?? []),
					...taken.flatMap((slot) => slot.recorded()),
				],
			});
		}
		await this.takeOffNotKept(record, asked);
		return refusals;
	}

	/** Per number of the run (as given), the name Call a Number Again After asks for; none when it is off. */
	private numbersAsked(
		phones: Map<number, string[]>,
		now: number,
		claimId: string,
	): Map<string, Asked> {
		const numbers = new Map<string, Asked>();
		if (this.again)
			for (const digits of new Set([...phones.values()].flat()))
				numbers.set(
					digits,
					new Asked(this.again.keys(asTheServiceDials(digits), now, WINDOW_PARTS), claimId),
				);
		return numbers;
	}

	/** The items in order: refused when a number was called before (calledBefore), else wanting a slot per number. */
	private refuseCalledBefore(
		phones: Map<number, string[]>,
		numbers: Map<string, Asked>,
	): { refusals: Map<number, Refusal>; wanting: Map<number, string[]> } {
		const { again } = this;
		const refusals = new Map<number, Refusal>();
		const calledNow = new Set<string>();
		const wanting = new Map<number, string[]>();
		for (const [itemIndex, list] of phones) {
			const refusal = again ? this.calledBefore(again, list, numbers, calledNow) : undefined;
			if (refusal) refusals.set(itemIndex, refusal);
			else {
				for (const digits of list) calledNow.add(asTheServiceDials(digits));
				wanting.set(itemIndex, list);
			}
		}
		return { refusals, wanting };
	}

	/** Takes off what was recorded but not kept: free slots left over, seats lost, keys added to names found taken, numbers not called. */
	private async takeOffNotKept(record: ChangesAlone, asked: Asked[]): Promise<void> {
		const kept = new Set([...this.claims.values()].flatMap((claim) => claim.keys));
		const notTaken = asked.flatMap((name) => name.recorded()).filter((key) => !kept.has(key));
		if (notTaken.length > 0) await record.remove(notTaken);
	}

	/** The keys of the slots this process took that still hold at `now`. */
	private mySlotKeys(day: Window, now: number): string[] {
		const oldest = day.partAt(now) - WINDOW_PARTS;
		return (slotsClaimed.get(this.scope) ?? []).filter((key) => partOfKey(key) >= oldest);
	}

	/** A number called within Call a Number Again After, at the same moment by another claim, or earlier in this run. */
	private calledBefore(
		again: Window,
		list: string[],
		numbers: Map<string, Asked>,
		calledNow: Set<string>,
	): Refusal | undefined {
		for (const digits of list) {
			const number = numbers.get(digits);
			if (number?.outcome === 'found')
				return callAgainRefusal(digits, again.hours, freeFrom(again, number.found));
			if (number?.outcome === 'lost')
				return callAgainRefusal(digits, again.hours, freeFrom(again, [number.keys[0]]));
			if (calledNow.has(asTheServiceDials(digits)))
				return callAgainRefusal(digits, again.hours, undefined);
		}
		return undefined;
	}

	/** Takes off the record what the claims of items whose call did not start (not sent, or refused for sure) recorded. */
	async release(outcomes: ItemResults): Promise<void> {
		const unstarted: string[] = [];
		for (const [itemIndex, claim] of this.claims) {
			if (!mayHaveStarted(outcomes.get(itemIndex))) unstarted.push(...claim.keys);
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
