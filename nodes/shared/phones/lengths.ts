import { COUNTRIES, COUNTRY_CODES } from './countries';
import { nationalLengthsOf } from './defaultCountry';
import { countriesOf, countriesWithNational, isNumberOf, isValidNumber } from './validity';

// The service dials the digits it is given, so a number must be whole before it is sent: the
// international form, country code first (79990005555). The service reads numbers as numbers of its
// own country (SERVICE_COUNTRY, its normalisation): the national form written with its trunk prefix
// (89990005555) and a mobile number without its code (9990005555) are completed by the service.
// The lengths of each country code come from libphonenumber's metadata (countryCodes.json says which version).

/** The country whose numbers the service completes itself (its RU normalisation: docs/service.md). */
const SERVICE_COUNTRY = 'RU';
const SERVICE_COUNTRY_IN_WORDS = 'Russian';

/** The first digit of the service country's mobile numbers, which it completes when written without the code. */
const SERVICE_MOBILE_FIRST_DIGIT = '9';

/** How a number reads: its country code and the lengths (all digits) a number of that code has. */
interface NumberReading {
	/** The country code, or the trunk prefix of the service country's national form. */
	code: string;
	/** For messages, e.g. "country code 7 (RU, KZ)". */
	described: string;
	/** The lengths of a whole number, in digits, code included. */
	lengths: readonly number[];
}

const service = COUNTRIES[SERVICE_COUNTRY];
const serviceLengths = nationalLengthsOf(SERVICE_COUNTRY);
const serviceTrunk = service.trunkPrefixes?.[0] ?? '';

/** The service country's national form with its trunk prefix: 8 and the 10 digits (8 999 000-55-55 is +7 999 000-55-55). */
const SERVICE_TRUNK_FORM: NumberReading = {
	code: serviceTrunk,
	described: `a ${SERVICE_COUNTRY_IN_WORDS} number written with ${serviceTrunk} first`,
	lengths: serviceLengths.map((length) => length + serviceTrunk.length),
};

/**
 * A mobile number of the service country without its code (999 000-55-55), as many CRMs keep them.
 * The service completes it, and such numbers were sent before this rule, so they pass, even where
 * 9… would begin another country's code.
 */
const SERVICE_NATIONAL_FORM: NumberReading = {
	code: SERVICE_MOBILE_FIRST_DIGIT,
	described: `a ${SERVICE_COUNTRY_IN_WORDS} mobile number without its country code`,
	lengths: serviceLengths,
};

/**
 * The number the service dials for these digits: its own country's national forms (89990005555,
 * 9990005555) completed with its code, as it completes them; any other number as it is.
 */
export function asTheServiceDials(digits: string): string {
	const reading = readNumber(digits);
	if (reading === SERVICE_TRUNK_FORM) return `${service.code}${digits.slice(serviceTrunk.length)}`;
	if (reading === SERVICE_NATIONAL_FORM) return `${service.code}${digits}`;
	return digits;
}

/**
 * How a number reads: one of the service country's national forms, or the country code it begins
 * with (country codes are prefix-free: at most one fits).
 */
function readNumber(digits: string): NumberReading | undefined {
	if (
		SERVICE_TRUNK_FORM.lengths.includes(digits.length) &&
		digits.startsWith(SERVICE_TRUNK_FORM.code)
	)
		return SERVICE_TRUNK_FORM;
	if (
		SERVICE_NATIONAL_FORM.lengths.includes(digits.length) &&
		digits.startsWith(SERVICE_NATIONAL_FORM.code)
	)
		return SERVICE_NATIONAL_FORM;
	for (let size = 1; size <= 3; size++) {
		const code = digits.slice(0, size);
		const plan = COUNTRY_CODES[code];
		if (plan) {
			return {
				code,
				described: `country code ${code} (${firstThree(plan.regions)})`,
				lengths: plan.nationalLengths.map((length) => length + size),
			};
		}
	}
	return digits.startsWith(SERVICE_TRUNK_FORM.code) ? SERVICE_TRUNK_FORM : undefined;
}

/** The regions of a country code, for messages: "RU, KZ", "US, AG, AI …". */
function firstThree(regions: readonly string[]): string {
	return `${regions.slice(0, 3).join(', ')}${regions.length > 3 ? ' …' : ''}`;
}

/** "11", "11 or 12", "9 to 12". */
export function describeLengths(lengths: readonly number[]): string {
	const sorted = [...lengths].sort((a, b) => a - b);
	const consecutive = sorted.every(
		(length, index) => index === 0 || length === sorted[index - 1] + 1,
	);
	if (sorted.length === 1) return String(sorted[0]);
	if (consecutive && sorted.length > 2) return `${sorted[0]} to ${sorted[sorted.length - 1]}`;
	return `${sorted.slice(0, -1).join(', ')} or ${sorted[sorted.length - 1]}`;
}

/** A national number of Default Country, in words: "a national number of GB (9 or 10 digits after the trunk 0)". */
function nationalInWords(country: string): string {
	const trunkPrefix = COUNTRIES[country].trunkPrefixes?.[0];
	return `a national number of ${country} (${describeLengths(nationalLengthsOf(country))} digits${trunkPrefix ? ` after the trunk ${trunkPrefix}` : ''})`;
}

/** Why a number of a person's length cannot be dialled as it is: the refusal's words, and in short. */
export interface LengthProblem {
	reason: string;
	inShort: string;
	/** What the workflow's builder may do about it (the words after the reason). */
	builderFix?: string;
}

/** A problem in words: `inShort`, and the reason `<subject> <inShort>, so nothing was called`. */
function problemOf(subject: string, inShort: string, builderFix?: string): LengthProblem {
	return { inShort, reason: `${subject} ${inShort}, so nothing was called`, builderFix };
}

/**
 * Why a number of a person's length cannot be dialled as it is, or undefined when it can. The words
 * name no country the number does not belong to: a number without its country code ((212) 555-0147)
 * would begin with another country's code (212, Morocco), so the way out, Default Country, is named
 * instead, with the user's own number as the example.
 */
export function lengthProblem(digits: string, defaultCountry?: string): LengthProblem | undefined {
	const reading = readNumber(digits);
	if (reading !== undefined && reading.lengths.includes(digits.length)) return undefined;
	const fitsNoCode =
		reading === undefined
			? 'begins with no country code'
			: `has ${digits.length} digits, which fits no country code (${reading === SERVICE_TRUNK_FORM ? reading.described : `a number beginning with ${reading.code}`} has ${describeLengths(reading.lengths)})`;
	if (defaultCountry !== undefined)
		return problemOf(digits, `${fitsNoCode}, nor is it ${nationalInWords(defaultCountry)}`);
	// The user's own number as the example; a trunk 0 is not written after the country code.
	const national = digits.replace(/^0+/, '');
	const writeIt = `write it with + and its country code (+<country code> ${national}${national !== digits ? ', without the leading 0' : ''})`;
	if (reading !== SERVICE_TRUNK_FORM && countriesWithNational(digits).length > 0) {
		return problemOf(
			digits,
			`has no country code (a national number of ${digits.length} digits)`,
			`set Default Country in Options to the country of the number, or ${writeIt}`,
		);
	}
	return problemOf(
		digits,
		fitsNoCode,
		`${writeIt}, or set Default Country in Options to complete numbers written without it`,
	);
}

/**
 * Why a number of the right length is no number of a person, or undefined when it is one (or when the
 * metadata knows no country of its code): its national part is no landline or mobile number of a country
 * of its code. `completedFrom`: the number as written, when Default Country gave it its code.
 */
export function validityProblem(
	digits: string,
	defaultCountry?: string,
	completedFrom?: string,
): LengthProblem | undefined {
	const reading = readNumber(digits);
	if (reading === undefined || !reading.lengths.includes(digits.length)) return undefined;
	if (reading === SERVICE_TRUNK_FORM || reading === SERVICE_NATIONAL_FORM) {
		const national = reading === SERVICE_TRUNK_FORM ? digits.slice(reading.code.length) : digits;
		if (isNumberOf(SERVICE_COUNTRY, national)) return undefined;
		return problemOf(
			`${digits} is`,
			`not a valid number of ${SERVICE_COUNTRY} (${reading.described})`,
			'correct the number',
		);
	}
	if (isValidNumber(reading.code, digits.slice(reading.code.length))) return undefined;
	if (defaultCountry !== undefined && completedFrom !== undefined) {
		return problemOf(
			`${completedFrom} is`,
			`not a valid number of ${defaultCountry} (Default Country)`,
			`correct the number, or set Default Country to the country of the number`,
		);
	}
	return problemOf(
		`${digits} is`,
		`not a valid number of country code ${reading.code} (${firstThree(countriesOf(reading.code))})`,
		'correct the number',
	);
}

/** The words of lengthProblem(), or undefined when the number can be dialled. */
export function wrongLength(digits: string, defaultCountry?: string): string | undefined {
	return lengthProblem(digits, defaultCountry)?.reason;
}

/**
 * A number written with + whose digits are fewer than its country code's numbers have: cut off
 * (+7 999), whatever its last digits would reach. The refusal's words and in short, or undefined.
 */
export function cutOff(written: string, digits: string): LengthProblem | undefined {
	const reading = readNumber(digits);
	if (reading === undefined || reading === SERVICE_TRUNK_FORM || reading === SERVICE_NATIONAL_FORM)
		return undefined;
	if (digits.length >= Math.min(...reading.lengths)) return undefined;
	return problemOf(
		`${written} is`,
		`cut off: it has ${digits.length} digits, and a number with country code ${reading.code} has ${describeLengths(reading.lengths)}`,
	);
}
