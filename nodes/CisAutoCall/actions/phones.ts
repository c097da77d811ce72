import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { ReadItemParameter } from '../../shared/parameterReaders';

import {
	readDefaultCountry,
	readPhones,
	type ReadItemPhones,
	type SkippedNumber,
} from '../../shared/phones';
import type { OperationTraits } from './runFeatures/feature';
import { undiallable } from './runFeatures/guardrails';

// The phones of a run: the Default Country option, and the one reading of phones (nodes/shared/phones)
// with this run's rules, for every operation that names a person by phone.

/**
 * Numbers written without their country code, as a CRM of one country keeps them, get this country's
 * code when read; an expression gives each item its own (the CRM's country field).
 */
const defaultCountryOption: INodeProperties = {
	displayName: 'Default Country',
	name: 'defaultCountry',
	type: 'string',
	default: '',
	placeholder: 'e.g. US',
	description:
		'The country of numbers written without their country code, as a two-letter code (US, GB, DE …)',
	hint: "An expression gives each item its own country, e.g. {{ $json.country }}; empty means none. Such a number is called with that country's code: (212) 555-0147 with US as +1 212 555 0147, 020 7946 0958 with GB as +44 20 7946 0958. A number written with + or 00 keeps its own code.",
};

/** The phone options of an operation with these traits. */
export function phoneOptions(traits: OperationTraits): INodeProperties[] {
	return traits.readsPhones ? [defaultCountryOption] : [];
}

/**
 * How this run reads phones: each item's Default Country (read per item: an expression may give each its
 * own), the numbers no bot may dial, and the lengths and validity a number must have, the same for every
 * operation that names people by phone, so that Cancel names the number that was dialled. Short numbers
 * follow Allow Short Numbers where an operation dials, and pass where it only names people (Cancel: a
 * short number may have been called with it on). The entries left out of an item's list go into
 * `skipped` (by item), for its output.
 */
export function phoneReaderOf(
	traits: OperationTraits,
	parameter: ReadItemParameter,
	saved: IDataObject,
	skipped: Map<number, SkippedNumber[]>,
): ReadItemPhones {
	const allowShortNumbers = !traits.dials || saved.allowShortNumbers === true;
	const screen = traits.readsPhones
		? (digits: string) => undiallable(digits, allowShortNumbers)
		: undefined;
	return (field, value, itemIndex) => {
		const country = traits.readsPhones
			? readDefaultCountry(parameter('options.defaultCountry', itemIndex, ''))
			: undefined;
		const onSkipped = (entries: SkippedNumber[]) => skipped.set(itemIndex, entries);
		return readPhones(field, value, {
			country,
			screen,
			checkLengths: traits.readsPhones,
			onSkipped,
		}).phones;
	};
}
