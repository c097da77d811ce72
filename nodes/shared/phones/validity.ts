import { COUNTRIES, COUNTRY_CODES } from './countries';

// A number is valid when its national part is a landline or mobile number of a country of its code, as
// libphonenumber's metadata describes them (its national number patterns, generated into countryCodes.json).
// Numbering plans change: the patterns are as current as the metadata (countryCodes.json names its version).

/** Each country's pattern, compiled once when the module loads (a fixed table, not a memory). */
const PATTERNS: Readonly<Record<string, RegExp>> = Object.freeze(
	Object.fromEntries(
		Object.entries(COUNTRIES).map(([country, { valid }]) => [
			country,
			new RegExp(`^(?:${valid})$`),
		]),
	),
);

/** Whether `national` (digits, without country code or trunk prefix) is a number of `country`. */
export function isNumberOf(country: string, national: string): boolean {
	return PATTERNS[country].test(national);
}

/** The countries of a country code that the metadata describes (none for a non-geographic code, +800 …). */
export function countriesOf(code: string): string[] {
	return (COUNTRY_CODES[code]?.regions ?? []).filter((region) => COUNTRIES[region]?.code === code);
}

/**
 * Whether the number `code` + `national` is valid: true when a country of the code has it, and also
 * when the metadata knows no country of the code (then only its length was checked).
 */
export function isValidNumber(code: string, national: string): boolean {
	const countries = countriesOf(code);
	return countries.length === 0 || countries.some((country) => isNumberOf(country, national));
}

/** The countries whose national numbers `digits` (written without a country code) could be, in the table's order. */
export function countriesWithNational(digits: string): string[] {
	return Object.keys(COUNTRIES).filter((country) => {
		const trunk = (COUNTRIES[country].trunkPrefixes ?? []).find(
			(prefix) => digits.startsWith(prefix) && isNumberOf(country, digits.slice(prefix.length)),
		);
		return trunk !== undefined || isNumberOf(country, digits);
	});
}
