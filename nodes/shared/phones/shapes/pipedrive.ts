import type { PhoneShape } from './shape';

/** Pipedrive: `{label, value, primary}`; the primary number is called first. */
export const pipedrive: PhoneShape = {
	described: "Pipedrive's entries with value",
	isEntry: (entry) => 'value' in entry,
	phonesOf: (entry) => ({ phones: [entry.value], primary: entry.primary === true }),
};
