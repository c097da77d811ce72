/**
 * Phones: the one way in (nothing outside this folder imports its files). What a phone number is,
 * how each CRM keeps it (shapes/), its digits, the country metadata (countryCodes.json, generated
 * from libphonenumber's), the completion with Default Country, and the lengths a number must have.
 * What may be dialled at all (emergency and short numbers, Allowed Numbers) is policy: the guardrails'.
 */
export { readPhones, type ReadItemPhones, type SkippedNumber } from './read';
export { MIN_PERSON_PHONE_DIGITS } from './digits';
export { readDefaultCountry } from './defaultCountry';
export { asTheServiceDials, describeLengths, wrongLength } from './lengths';
