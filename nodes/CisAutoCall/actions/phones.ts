import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { type ListError, readDefaultCountry, readPhones, type ReadItemPhones, type SkippedNumber } from '../../shared/phones';
import type { OperationTraits } from './runFeatures/feature';
import { undiallable } from './runFeatures/guardrails';

// The phones of a run: the Default Country option, and the one reading of phones (nodes/shared/phones)
// with this run's rules, for every operation that names a person by phone.

/**
 * Numbers written without their country code, as a CRM of one country keeps them, get this country's
 * code when read.
 */
export const defaultCountryOption: INodeProperties = {
	displayName: 'Default Country',
	name: 'defaultCountry',
	type: 'string',
	default: '',
	noDataExpression: true,
	placeholder: 'e.g. US',
	description:
		'The country of numbers written without their country code, as a two-letter code (US, GB, DE …). Such a number is called with that country\'s code: (212) 555-0147 with US as +1 212 555 0147, 020 7946 0958 with GB as +44 20 7946 0958. A number written with + or 00 keeps its own code. Empty: numbers must be written country code first.',
};

/** The phone options of an operation with these traits. */
export function phoneOptions(traits: OperationTraits): INodeProperties[] {
	return traits.dials ? [defaultCountryOption] : [];
}

/**
 * How this run reads phones: Default Country read once, and for an operation that dials, the numbers
 * no bot may dial and the lengths a number must have. The entries left out of an item's list go
 * into `skipped` (by item), for its output. Throws InputError naming a bad option.
 */
export function phoneReaderOf(
	traits: OperationTraits,
	options: IDataObject,
	saved: IDataObject,
	skipped: Map<number, SkippedNumber[]>,
): ReadItemPhones {
	const country = traits.dials ? readDefaultCountry(options.defaultCountry) : undefined;
	const allowShortNumbers = saved.allowShortNumbers === true;
	const rules = traits.dials
		? { country, checkLengths: true, screen: (digits: string) => undiallable(digits, allowShortNumbers) }
		: {};
	return (field, value, itemIndex) => {
		try {
			const list = readPhones(field, value, rules);
			if (list.skipped.length > 0) skipped.set(itemIndex, list.skipped);
			return list.phones;
		} catch (error) {
			const left = (error as ListError).skippedNumbers;
			if (left) skipped.set(itemIndex, left);
			throw error;
		}
	};
}
