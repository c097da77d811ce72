import { InputError, isBlank } from '../validation';
import { COUNTRIES, COUNTRY_CODES } from './countries';

/**
 * Completes a number written without its country code (Default Country): `digits` as read, and
 * whether it was written with + (then it has its country code).
 */
export type CompletePhone = (digits: string, international: boolean) => string;

// Default Country: a number written without its country code, as CRMs of one country keep them
// ((212) 555-0147, 020 7946 0958), is completed with that country's code before the number rules apply.

/** The Default Country option as a country of the metadata (upper case), or undefined when not set. */
export function readDefaultCountry(value: unknown): string | undefined {
	if (isBlank(value)) return undefined;
	const code = typeof value === 'string' ? value.trim().toUpperCase() : '';
	if (!/^[A-Z]{2}$/.test(code) || COUNTRIES[code] === undefined) {
		throw new InputError(
			'defaultCountry',
			value,
			'is not a country code; enter a two-letter country code (ISO 3166), such as US, GB or DE',
		);
	}
	return code;
}

/** The national numbers of a country, for messages: "GB (Default Country): 9 or 10 digits after the trunk 0". */
export function nationalLengthsOf(country: string): readonly number[] {
	return COUNTRY_CODES[COUNTRIES[country].code]?.nationalLengths ?? [];
}

/**
 * How the numbers of one run are completed with Default Country: `international` says the number was
 * written with + (it keeps its country code). A number written with 00 keeps its code too. Otherwise a
 * number that reads as a national number of the country (of a national length once its trunk prefix,
 * if written, is dropped) gets the country's code; any other number is left as written, for the length check to judge.
 */
export function completerFor(country: string): CompletePhone {
	const { code, trunkPrefixes = [] } = COUNTRIES[country];
	const lengths = nationalLengthsOf(country);
	const isNational = (national: string) => lengths.includes(national.length);
	// The longest first: Belarus's 8 0xx is read with its prefix 80.
	const prefixes = [...trunkPrefixes].sort((a, b) => b.length - a.length);
	return (digits, international) => {
		if (international) return digits;
		if (digits.startsWith('00')) return digits.slice(2);
		const prefix = prefixes.find(
			(trunk) => digits.startsWith(trunk) && isNational(digits.slice(trunk.length)),
		);
		if (prefix !== undefined) return code + digits.slice(prefix.length);
		// A number of a national length is national (as libphonenumber reads it); any other, such as one written with
		// the country's code but without the + (442079460958 with GB), is left as written.
		return isNational(digits) ? code + digits : digits;
	};
}
