import type { IDataObject } from 'n8n-workflow';

import { describeValue, InputError, isPlainObject, Refusal } from '../validation';
import { type CompletePhone, completerFor } from './defaultCountry';
import { isEmptyPhone, MIN_PERSON_PHONE_DIGITS, PHONE_MAX_DIGITS, phoneDigits, splitPhoneText, writtenWithPlus } from './digits';
import { wrongLength } from './lengths';
import { CRM_SHAPES, PICK_THE_PHONE } from './shapes';

/** How the numbers of one item are read: the same for every operation that names a person by phone. */
export interface PhoneRules {
	/** Default Country of the item (a country of the metadata): completes numbers written without their code. */
	country?: string;
	/** The numbers no bot may dial (the guardrails' policy): why, or undefined when it may be dialled. */
	screen?: (digits: string) => Refusal | undefined;
	/** Whether each number must have a length its country code has (the operations that dial). */
	checkLengths?: boolean;
}

/** Reads the numbers an item names (`field` names the value in messages); throws InputError or a refusal. */
export type ReadItemPhones = (field: string, value: unknown, itemIndex: number) => string[];

/** What went wrong with one entry of a value. */
type EntryProblem = { kind: 'notANumber' } | { kind: 'tooLong' } | { kind: 'refused'; refusal: Refusal };

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
		const shape = isPlainObject(entry) ? CRM_SHAPES.find((candidate) => candidate.isEntry(entry)) : undefined;
		if (!shape) {
			rest.push(entry);
			continue;
		}
		const { phones, primary: isPrimary } = shape.phonesOf(entry as IDataObject);
		(isPrimary ? primary : rest).push(...phones);
	}
	return [...primary, ...rest].filter((phone) => !isEmptyPhone(phone));
}

/** One entry, read and checked: its digits as dialled, or what is wrong with it. */
function readEntry(entry: unknown, rules: PhoneRules, complete?: CompletePhone): EntryReading {
	const digits = phoneDigits(entry);
	if (digits === undefined) return { kind: 'notANumber' };
	if (digits.length > PHONE_MAX_DIGITS) return { kind: 'tooLong' };
	const dialled = complete ? complete(digits, writtenWithPlus(entry)) : digits;
	const refusal = rules.screen?.(dialled);
	if (refusal) return { kind: 'refused', refusal };
	if (rules.checkLengths && dialled.length >= MIN_PERSON_PHONE_DIGITS) {
		const reason = wrongLength(dialled, rules.country);
		if (reason !== undefined) return { kind: 'refused', refusal: new Refusal('phone', dialled, reason, 'badNumber') };
	}
	return { digits: dialled };
}

/** The error of an entry, naming the field, the value and (in a list) the entry. */
function errorOf(field: string, value: unknown, entry: unknown, problem: EntryProblem, single: boolean): InputError {
	if (problem.kind === 'refused') return problem.refusal;
	const which = single ? 'is' : `has ${describeValue(entry)}, which is`;
	if (problem.kind === 'tooLong') {
		return new InputError(field, value, `${which} longer than ${PHONE_MAX_DIGITS} digits, the most a phone number has`);
	}
	const hint = isPlainObject(entry) || Array.isArray(entry) ? `; ${PICK_THE_PHONE}` : '';
	return new InputError(field, value, `${which} not a phone number${hint}`);
}

/**
 * The one reading of phones, for every operation that dials or names a person by phone (nodes/shared/phones).
 * Phones come as a list (a CRM's list included: shapes/), a CRM's record, or one text with numbers
 * separated by commas, semicolons or new lines; a number may contain spaces, brackets, dots and
 * dashes: "+7 (999) 123-45-67". Each is read as its digits only, the platform's form (79991234567),
 * completed with Default Country, checked by `rules`; a number named twice is read once.
 */
export function readPhones(field: string, value: unknown, rules: PhoneRules = {}): string[] {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
		throw new InputError(field, value, 'is empty; enter at least one phone number');
	}
	const entries = entriesOf(value);
	if (entries === undefined) throw new InputError(field, value, `is an object, not a phone number; ${PICK_THE_PHONE}`);
	if (entries.length === 0) throw new InputError(field, value, 'holds no phone number');
	const single = entries.length === 1 && !Array.isArray(value) && !isPlainObject(value);
	const complete = rules.country === undefined ? undefined : completerFor(rules.country);
	const phones = entries.map((entry) => {
		const reading = readEntry(entry, rules, complete);
		if ('kind' in reading) throw errorOf(field, value, entry, reading, single);
		return reading.digits;
	});
	return [...new Set(phones)];
}
