// The digits of a number as written: "+7 (999) 123-45-67" is 79991234567, the platform's form.

/** The longest number the international plan (E.164) allows, in digits. */
export const PHONE_MAX_DIGITS = 15;

/** A phone number of a person has at least this many digits; shorter ones are internal or service lines. */
export const MIN_PERSON_PHONE_DIGITS = 7;

/** One text of numbers separated by commas, semicolons or new lines (LF, CR LF or a lone CR). */
export function splitPhoneText(text: string): string[] {
	return text
		.split(/[,;\r\n]+/)
		.map((part) => part.trim())
		.filter((part) => part !== '');
}

/** A number's digits (spaces, brackets, dots, dashes and a leading + dropped), or undefined when it is no number. */
export function phoneDigits(phone: unknown): string | undefined {
	if (typeof phone === 'number') {
		return Number.isSafeInteger(phone) && phone > 0 ? String(phone) : undefined;
	}
	if (typeof phone !== 'string' || !/^\+?[0-9()\-. ]*[0-9][0-9()\-. ]*$/.test(phone.trim()))
		return undefined;
	return phone.replace(/[^0-9]/g, '');
}

/** Whether a number was written with + (then it carries its country code). */
export function writtenWithPlus(phone: unknown): boolean {
	return typeof phone === 'string' && phone.trim().startsWith('+');
}
