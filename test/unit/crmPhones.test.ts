/**
 * Phones as CRMs keep them (toPhones) and Default Country (completerFor), as pure functions. Through
 * n8n's engine, on every path that dials: test/rules/crmPhones.test.ts.
 */
import { completerFor, readDefaultCountry } from '../../nodes/CisAutoCall/actions/runFeatures/guardrails';
import { toPhones } from '../../nodes/shared/validation';

describe('a CRM\'s phone list', () => {
	test.each([
		['Pipedrive, the primary number first', [{ label: 'work', value: '+7 999 000-55-51', primary: false }, { label: 'mobile', value: '+7 999 000-55-52', primary: true }], ['79990005552', '79990005551']],
		['Bitrix24, in its order', [{ ID: '1', VALUE_TYPE: 'WORK', VALUE: '+7 999 000-55-51', TYPE_ID: 'PHONE' }, { VALUE: '8 999 000 55 52', VALUE_TYPE: 'MOBILE' }], ['79990005551', '89990005552']],
		[
			'Kommo, the PHONE field only',
			[
				{ field_id: 1, field_name: 'Email', field_code: 'EMAIL', values: [{ value: 'a@b.c', enum_code: 'WORK' }] },
				{ field_id: 2, field_name: 'Phone', field_code: 'PHONE', values: [{ value: '+79990005551', enum_code: 'WORK' }, { value: '+7 999 000-55-52', enum_code: 'MOB' }] },
			],
			['79990005551', '79990005552'],
		],
		['Kommo, the contact itself', { id: 5, custom_fields_values: [{ field_id: 2, field_code: 'PHONE', values: [{ value: '+79990005551' }] }] }, ['79990005551']],
		['strings, empty entries dropped', ['', '+79990005551', null, '  ', '79990005552'], ['79990005551', '79990005552']],
		['Pipedrive, an empty entry dropped', [{ value: '', primary: true }, { value: '+79990005551', primary: false }], ['79990005551']],
	])('%s', (_name, value, expected) => {
		expect(toPhones('phone', value)).toEqual(expected);
	});

	test.each([
		['an entry that is no phone', [{ number: 1 }], /^Invalid phone: \[\{"number":1\}\] has \{"number":1\}, which is not a phone number; pick the field/],
		['an object that is no phone list', { name: 'Ann' }, /^Invalid phone: \{"name":"Ann"\} is an object, not a phone number; pick the field/],
		['a Kommo list without a PHONE field', [{ field_code: 'EMAIL', values: [{ value: 'a@b.c' }] }], /holds no phone number/],
		['a Pipedrive entry with text', [{ value: 'call me', primary: true }], /has "call me", which is not a phone number/],
		['only empty entries', ['', { value: '' }], /holds no phone number/],
	])('%s is refused by name', (_name, value, message) => {
		expect(() => toPhones('phone', value)).toThrow(message);
	});
});

describe('Default Country', () => {
	const read = (country: string, value: unknown) => toPhones('phone', value, completerFor(country));
	test.each([
		['US', '(212) 555-0147', '12125550147'],
		['US', '1 (212) 555-0147', '12125550147'],
		['US', '+1 212 555 0147', '12125550147'],
		['GB', '020 7946 0958', '442079460958'],
		['GB', '07946 095 800', '447946095800'],
		['GB', '+44 20 7946 0958', '442079460958'],
		['GB', '0044 20 7946 0958', '442079460958'],
		['GB', '442079460958', '442079460958'],
		['GB', '+7 999 000-55-55', '79990005555'],
		['US', '+7 999 000-55-55', '79990005555'],
		['US', '79990005555', '79990005555'],
		['RU', '8 999 000-55-55', '79990005555'],
		['RU', '999 000-55-55', '79990005555'],
		['RU', '+7 999 000-55-55', '79990005555'],
	])('%s: %s is called as %s', (country, written, digits) => {
		expect(read(country, written)).toEqual([digits]);
	});
	test('a number written twice, nationally and internationally, is called once', () => {
		expect(read('GB', ['020 7946 0958', '+44 20 7946 0958'])).toEqual(['442079460958']);
	});
	test.each([['us', 'US'], [' gb ', 'GB'], ['', undefined], [undefined, undefined]])('%p reads as %p', (value, country) => {
		expect(readDefaultCountry(value)).toBe(country);
	});
	test.each(['USA', 'XX', 'United States', 1])('%p is refused by name', (value) => {
		expect(() => readDefaultCountry(value)).toThrow(/^Invalid defaultCountry: .* is not a country code; enter a two-letter country code \(ISO 3166\), such as US, GB or DE$/);
	});
});
