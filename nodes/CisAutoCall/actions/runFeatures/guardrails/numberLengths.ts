import { COUNTRIES, COUNTRY_CODES } from './countryCodes';
import { nationalLengthsOf } from './defaultCountry';
import { ASK_FOR_WHOLE_NUMBER, MIN_PERSON_PHONE_DIGITS, Refusal } from './numbers';

// The service dials the digits it is given, so a number must be whole before it is sent: the
// international form, country code first (79990005555), or the Russian form with 8 first
// (89990005555), which the service's RU normalisation and Russian networks read as +7, or a Russian
// mobile number without its 7 (9990005555), which RU normalisation completes. The lengths of each
// country code come from libphonenumber's metadata (countryCodes.json says which version).

/** How a number reads: its country code and the lengths (all digits) a number of that code has. */
export interface NumberReading {
	/** The country code, or "8" for the Russian form with 8 first. */
	code: string;
	/** For messages, e.g. "country code 7 (RU, KZ)". */
	described: string;
	/** The lengths of a whole number, in digits, code included. */
	lengths: readonly number[];
}

/** The Russian form with 8 first: 8 and the 10 digits of the number (8 999 000-55-55 is +7 999 000-55-55). */
export const RUSSIAN_TRUNK_FORM: NumberReading = { code: '8', described: 'a Russian number written with 8 first', lengths: [11] };

/**
 * A Russian mobile number without its 7 (999 000-55-55): ten digits, 9 first, as many CRMs keep them.
 * The service's RU normalisation completes it to +7, and such numbers were sent before this rule, so
 * they pass, even where 9… would begin another country's code.
 */
export const RUSSIAN_NATIONAL_FORM: NumberReading = { code: '9', described: 'a Russian mobile number without its 7', lengths: [10] };

/** The country code a number begins with (country codes are prefix-free: at most one fits). */
export function readNumber(digits: string): NumberReading | undefined {
	if (RUSSIAN_TRUNK_FORM.lengths.includes(digits.length) && digits.startsWith('8')) return RUSSIAN_TRUNK_FORM;
	if (RUSSIAN_NATIONAL_FORM.lengths.includes(digits.length) && digits.startsWith('9')) return RUSSIAN_NATIONAL_FORM;
	for (let size = 1; size <= 3; size++) {
		const code = digits.slice(0, size);
		const plan = COUNTRY_CODES[code];
		if (plan) {
			return {
				code,
				described: `country code ${code} (${plan.regions.slice(0, 3).join(', ')}${plan.regions.length > 3 ? ' …' : ''})`,
				lengths: plan.nationalLengths.map((length) => length + size),
			};
		}
	}
	return digits.startsWith('8') ? RUSSIAN_TRUNK_FORM : undefined;
}

/** "11", "11 or 12", "9 to 12". */
export function describeLengths(lengths: readonly number[]): string {
	const sorted = [...lengths].sort((a, b) => a - b);
	const consecutive = sorted.every((length, index) => index === 0 || length === sorted[index - 1] + 1);
	if (sorted.length === 1) return String(sorted[0]);
	if (consecutive && sorted.length > 2) return `${sorted[0]} to ${sorted[sorted.length - 1]}`;
	return `${sorted.slice(0, -1).join(', ')} or ${sorted[sorted.length - 1]}`;
}

/** A national number of Default Country, in words: "a national number of GB (9 or 10 digits after the trunk 0)". */
function nationalInWords(country: string): string {
	const trunkPrefix = COUNTRIES[country].trunkPrefixes?.[0];
	return `a national number of ${country} (${describeLengths(nationalLengthsOf(country))} digits${trunkPrefix ? ` after the trunk ${trunkPrefix}` : ''})`;
}

/** The builder's way out when numbers come without their country code. */
const WRITE_COUNTRY_CODE =
	'write it country code first (+44 20 7946 0958), or set Default Country in Options to complete numbers written without it';

/**
 * Why a number of a person's length cannot be dialled as it is, or undefined when it can. The words
 * name no country the number does not belong to: a number without its country code ((212) 555-0147)
 * would begin with another country's code (212, Morocco), so the way out, Default Country, is named instead.
 */
export function wrongLength(digits: string, defaultCountry?: string): string | undefined {
	const reason = wrongLengthReason(digits, defaultCountry);
	return reason === undefined || defaultCountry !== undefined ? reason : `${reason}; ${WRITE_COUNTRY_CODE}`;
}

/** wrongLength without the builder's way out (the part an AI Agent tells the person in the chat). */
function wrongLengthReason(digits: string, defaultCountry?: string): string | undefined {
	const reading = readNumber(digits);
	if (reading !== undefined && reading.lengths.includes(digits.length)) return undefined;
	const fitsNoCode =
		reading === undefined
			? `${digits} begins with no country code`
			: `${digits} has ${digits.length} digits, which fits no country code (${reading.code === '8' ? reading.described : `a number beginning with ${reading.code}`} has ${describeLengths(reading.lengths)})`;
	if (defaultCountry !== undefined) return `${fitsNoCode}, nor is it ${nationalInWords(defaultCountry)}, so nothing was called`;
	return `${fitsNoCode}, so nothing was called`;
}

/**
 * Refuses a number whose length does not fit its country code: a digit missing or one too many
 * reaches a stranger. Short numbers (fewer than 7 digits) are the short-number rule's, which
 * "Allow Short Numbers" relaxes; this rule applies to every other number. `defaultCountry` only words the refusal.
 */
export function checkNumberLengths(phones: string[], defaultCountry?: string): void {
	for (const digits of phones) {
		if (digits.length < MIN_PERSON_PHONE_DIGITS) continue;
		const reason = wrongLengthReason(digits, defaultCountry);
		if (reason === undefined) continue;
		const builderFix = defaultCountry === undefined ? WRITE_COUNTRY_CODE : undefined;
		throw new Refusal('phone', digits, reason, 'badNumber', { builderFix, forModel: ASK_FOR_WHOLE_NUMBER });
	}
}
