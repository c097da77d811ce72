import type { IDataObject } from 'n8n-workflow';

import {
	ASK_FOR_WHOLE_NUMBER,
	describeValue,
	InputError,
	isBlank,
	isPlainObject,
	Refusal,
} from '../validation';
import { type CompletePhone, completerFor } from './defaultCountry';
import {
	MIN_PERSON_PHONE_DIGITS,
	PHONE_MAX_DIGITS,
	phoneDigits,
	splitPhoneText,
	writtenWithPlus,
} from './digits';
import { cutOff, lengthProblem, type LengthProblem, validityProblem } from './lengths';
import { CRM_SHAPES, PICK_THE_PHONE } from './shapes';

/** How the numbers of one item are read: the same for every operation that names a person by phone. */
export interface PhoneRules {
	/** Default Country of the item (a country of the metadata): completes numbers written without their code. */
	country?: string;
	/** The numbers no bot may dial (the guardrails' policy): why, or undefined when it may be dialled. */
	screen?: (digits: string) => Refusal | undefined;
	/** Whether each number must have a length and validity its country code has (the operations that dial). */
	checkLengths?: boolean;
	/** Told the entries of a list that were left out (also when the whole list is refused). */
	onSkipped?: (skipped: SkippedNumber[]) => void;
}

/** Reads the numbers an item names (`field` names the value in messages); throws InputError or a refusal. */
export type ReadItemPhones = (field: string, value: unknown, itemIndex: number) => string[];

/** An entry of a CRM's list that was not called: as the CRM wrote it, and why, in a few words. */
export interface SkippedNumber {
	number: string;
	reason: string;
}

/** The numbers to call, and the entries of a list left out. */
export interface PhoneList {
	phones: string[];
	skipped: SkippedNumber[];
}

/** What went wrong with one entry of a value. */
type EntryProblem =
	{ kind: 'notANumber' } | { kind: 'tooLong' } | { kind: 'refused'; refusal: Refusal };

type EntryReading = { digits: string } | EntryProblem;

/**
 * The entries of a value: a list (a CRM's list included), a record of a CRM, a text of numbers
 * separated by commas, semicolons or new lines, or one number. Undefined for an object of no CRM shape.
 */
function entriesOf(value: unknown): unknown[] | undefined {
	if (Array.isArray(value)) return crmList(value);
	if (typeof value === 'string') return splitPhoneText(value);
	if (typeof value === 'number') return [value];
	if (!isPlainObject(value)) return undefined;
	for (const shape of CRM_SHAPES) {
		const list = shape.listIn?.(value) ?? (shape.isEntry(value) ? [value] : undefined);
		if (list) return crmList(list);
	}
	return undefined;
}

/**
 * A list of phones as CRMs keep them: texts and numbers, and the entries of each CRM shape
 * (shapes/). The primary number first, then the rest in their order; empty entries are dropped. An
 * entry of no shape is kept, for the caller to refuse by name.
 */
function crmList(list: unknown[]): unknown[] {
	const primary: unknown[] = [];
	const rest: unknown[] = [];
	for (const entry of list) {
		const shape = isPlainObject(entry)
			? CRM_SHAPES.find((candidate) => candidate.isEntry(entry))
			: undefined;
		if (!shape) {
			rest.push(entry);
			continue;
		}
		const { phones, primary: isPrimary } = shape.phonesOf(entry as IDataObject);
		(isPrimary ? primary : rest).push(...phones);
	}
	return [...primary, ...rest].filter((phone) => !isBlank(phone));
}

/** One entry, read and checked: its digits as dialled, or what is wrong with it. */
function readEntry(entry: unknown, rules: PhoneRules, complete?: CompletePhone): EntryReading {
	const digits = phoneDigits(entry);
	if (digits === undefined) return { kind: 'notANumber' };
	if (digits.length > PHONE_MAX_DIGITS) return { kind: 'tooLong' };
	const international = writtenWithPlus(entry);
	const dialled = complete ? complete(digits, international) : digits;
	const cut =
		rules.checkLengths && international ? cutOff(String(entry).trim(), dialled) : undefined;
	if (cut) return { kind: 'refused', refusal: refusalOf(dialled, cut) };
	const refusal = rules.screen?.(dialled);
	if (refusal) return { kind: 'refused', refusal };
	if (rules.checkLengths && dialled.length >= MIN_PERSON_PHONE_DIGITS) {
		const completedFrom =
			dialled !== digits && !digits.startsWith('00') ? String(entry).trim() : undefined;
		const problem =
			lengthProblem(dialled, rules.country) ??
			validityProblem(dialled, rules.country, completedFrom);
		if (problem) return { kind: 'refused', refusal: refusalOf(dialled, problem) };
	}
	return { digits: dialled };
}

const TOO_LONG = `longer than ${PHONE_MAX_DIGITS} digits, the most a phone number has`;
const NOT_A_NUMBER = 'not a phone number';

/** Why an entry was left out of a list, in a few words. */
function inShort(problem: EntryProblem): string {
	if (problem.kind === 'refused') return problem.refusal.inShort;
	return problem.kind === 'tooLong' ? TOO_LONG : NOT_A_NUMBER;
}

/** An entry as the CRM wrote it, as text. */
function asWritten(entry: unknown): string {
	return typeof entry === 'string'
		? entry.trim()
		: typeof entry === 'number'
			? String(entry)
			: describeValue(entry);
}

/** The error of an entry, naming the field, the value and (in a list) the entry. */
function errorOf(
	field: string,
	value: unknown,
	entry: unknown,
	problem: EntryProblem,
	single: boolean,
): InputError {
	if (problem.kind === 'refused') return problem.refusal;
	const which = single ? 'is' : `has ${describeValue(entry)}, which is`;
	if (problem.kind === 'tooLong') return new InputError(field, value, `${which} ${TOO_LONG}`);
	const hint = isPlainObject(entry) || Array.isArray(entry) ? `; ${PICK_THE_PHONE}` : '';
	return new InputError(field, value, `${which} ${NOT_A_NUMBER}${hint}`);
}

/**
 * The one reading of phones, for every operation that dials or names a person by phone (nodes/shared/phones).
 * Phones come as a list (a CRM's list included: shapes/), a CRM's record, or one text with numbers
 * separated by commas, semicolons or new lines; a number may contain spaces, brackets, dots and
 * dashes: "+7 (999) 123-45-67". Each is read as its digits only, the platform's form (79991234567),
 * completed with Default Country, checked by `rules`; a number named twice is read once.
 *
 * A list (an array or a CRM's record) may hold entries that cannot be dialled (junk a CRM keeps): they
 * are left out, each named in `skipped` with why, and the rest are called in the list's order; the list
 * is refused only when nothing callable remains. A text the user typed or mapped is refused whole.
 */
export function readPhones(field: string, value: unknown, rules: PhoneRules = {}): PhoneList {
	if (isBlank(value)) {
		throw new InputError(field, value, 'is empty; enter at least one phone number');
	}
	const entries = entriesOf(value);
	if (entries === undefined)
		throw new InputError(field, value, `is an object, not a phone number; ${PICK_THE_PHONE}`);
	if (entries.length === 0) throw new InputError(field, value, 'holds no phone number');
	const isList = Array.isArray(value) || isPlainObject(value);
	const single = entries.length === 1 && !isList;
	const complete = rules.country === undefined ? undefined : completerFor(rules.country);
	const phones: string[] = [];
	const problems: Array<{ entry: unknown; problem: EntryProblem }> = [];
	for (const entry of entries) {
		const reading = readEntry(entry, rules, complete);
		if (!('kind' in reading)) phones.push(reading.digits);
		else if (!isList) throw errorOf(field, value, entry, reading, single);
		else problems.push({ entry, problem: reading });
	}
	const skipped = problems.map(({ entry, problem }) => ({
		number: asWritten(entry),
		reason: inShort(problem),
	}));
	if (skipped.length > 0) rules.onSkipped?.(skipped);
	if (phones.length === 0) throw refusalOfList(field, value, problems, skipped);
	return { phones: [...new Set(phones)], skipped };
}

/** A list of which nothing can be called: its one entry's own error, or a refusal naming every entry and why. */
function refusalOfList(
	field: string,
	value: unknown,
	problems: Array<{ entry: unknown; problem: EntryProblem }>,
	skipped: SkippedNumber[],
): InputError {
	// One entry, or entries that are no numbers at all (a field picked wrong): the first entry's own words.
	return problems.length === 1 || problems.every(({ problem }) => problem.kind === 'notANumber')
		? errorOf(field, value, problems[0].entry, problems[0].problem, false)
		: new Refusal(
				field,
				value,
				`no number of the list can be called (${skipped.map(({ number, reason }) => `${number}: ${reason}`).join('. ')}), so nothing was called`,
				'badNumber',
			);
}

/** The refusal of a number that cannot be a person's phone: an AI Agent asks the person for the whole number. */
function refusalOf(dialled: string, problem: LengthProblem): Refusal {
	const { reason, inShort, builderFix } = problem;
	return new Refusal('phone', dialled, reason, 'badNumber', {
		inShort,
		builderFix,
		forModel: ASK_FOR_WHOLE_NUMBER,
	});
}
