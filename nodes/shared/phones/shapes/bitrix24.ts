import type { PhoneShape } from './shape';

/** Bitrix24: `{VALUE, VALUE_TYPE}`, in its order. */
export const bitrix24: PhoneShape = {
	described: "Bitrix24's entries with VALUE",
	isEntry: (entry) => 'VALUE' in entry,
	phonesOf: (entry) => ({ phones: [entry.VALUE] }),
};
