/**
 * Phones as CRMs keep them (toPhones) and Default Country (completerFor), as pure functions. Through
 * n8n's engine, on every path that dials: test/rules/crmPhones.test.ts.
 */
import { readDefaultCountry, readPhones } from '../../nodes/shared/phones';

const toPhones = (field: string, value: unknown, rules = {}) =>
	readPhones(field, value, rules).phones;

describe("a CRM's phone list", () => {
	test.each([
		[
			'Pipedrive, the primary number first',
			[
				{ label: 'work', value: '+7 999 000-55-51', primary: false },
				{ label: 'mobile', value: '+7 999 000-55-52', primary: true },
			],
			['79990005552', '79990005551'],
		],
		[
			'Bitrix24, in its order',
			[
				{ ID: '1', VALUE_TYPE: 'WORK', VALUE: '+7 999 000-55-51', TYPE_ID: 'PHONE' },
				{ VALUE: '8 999 000 55 52', VALUE_TYPE: 'MOBILE' },
			],
			['79990005551', '89990005552'],
		],
		[
			'Kommo, the PHONE field only',
			[
				{
					field_id: 1,
					field_name: 'Email',
					field_code: 'EMAIL',
					values: [{ value: 'a@b.c', enum_code: 'WORK' }],
				},
				{
					field_id: 2,
					field_name: 'Phone',
					field_code: 'PHONE',
					values: [
						{ value: '+79990005551', enum_code: 'WORK' },
						{ value: '+7 999 000-55-52', enum_code: 'MOB' },
					],
				},
			],
			['79990005551', '79990005552'],
		],
		[
			'Kommo, the contact itself',
			{
				id: 5,
				custom_fields_values: [
					{ field_id: 2, field_code: 'PHONE', values: [{ value: '+79990005551' }] },
				],
			},
			['79990005551'],
		],
		[
			'strings, empty entries dropped',
			['', '+79990005551', null, '  ', '79990005552'],
			['79990005551', '79990005552'],
		],
		[
			'Pipedrive, an empty entry dropped',
			[
				{ value: '', primary: true },
				{ value: '+79990005551', primary: false },
			],
			['79990005551'],
		],
	])('%s', (_name, value, expected) => {
		expect(toPhones('phone', value)).toEqual(expected);
	});

	test.each([
		[
			'an entry that is no phone',
			[{ number: 1 }],
			/^Invalid phone: \[\{"number":1\}\] has \{"number":1\}, which is not a phone number; pick the field/,
		],
		[
			'an object that is no phone list',
			{ name: 'Ann' },
			/^Invalid phone: \{"name":"Ann"\} is an object, not a phone number; pick the field/,
		],
		[
			'a Kommo list without a PHONE field',
			[{ field_code: 'EMAIL', values: [{ value: 'a@b.c' }] }],
			/holds no phone number/,
		],
		[
			'a Pipedrive entry with text',
			[{ value: 'call me', primary: true }],
			/has "call me", which is not a phone number/,
		],
		['only empty entries', ['', { value: '' }], /holds no phone number/],
	])('%s is refused by name', (_name, value, message) => {
		expect(() => toPhones('phone', value)).toThrow(message);
	});
});

describe('Default Country', () => {
	const read = (country: string, value: unknown) => toPhones('phone', value, { country });
	test.each([
		{ country: 'US', written: '(212) 555-0147', called: '12125550147' },
		{ country: 'US', written: '1 (212) 555-0147', called: '12125550147' },
		{ country: 'US', written: '+1 212 555 0147', called: '12125550147' },
		{ country: 'GB', written: '020 7946 0958', called: '442079460958' },
		{ country: 'GB', written: '07946 095 800', called: '447946095800' },
		{ country: 'GB', written: '+44 20 7946 0958', called: '442079460958' },
		{ country: 'GB', written: '0044 20 7946 0958', called: '442079460958' },
		{ country: 'GB', written: '442079460958', called: '442079460958' },
		{ country: 'GB', written: '+7 999 000-55-55', called: '79990005555' },
		{ country: 'US', written: '+7 999 000-55-55', called: '79990005555' },
		{ country: 'US', written: '79990005555', called: '79990005555' },
		{ country: 'RU', written: '8 999 000-55-55', called: '79990005555' },
		{ country: 'RU', written: '999 000-55-55', called: '79990005555' },
		{ country: 'RU', written: '+7 999 000-55-55', called: '79990005555' },
		{ country: 'BY', written: '8 029 123-45-67', called: '375291234567' },
		{ country: 'BY', written: '029 123-45-67', called: '375291234567' },
		{ country: 'IT', written: '06 1234 5678', called: '390612345678' },
	])('$country: $written is called as $called', ({ country, written, called }) => {
		expect(read(country, written)).toEqual([called]);
	});
	test('a number written twice, nationally and internationally, is called once', () => {
		expect(read('GB', ['020 7946 0958', '+44 20 7946 0958'])).toEqual(['442079460958']);
	});
	test.each([
		['us', 'US'],
		[' gb ', 'GB'],
		['', undefined],
		[undefined, undefined],
	])('%p reads as %p', (value, country) => {
		expect(readDefaultCountry(value)).toBe(country);
	});
	test.each(['USA', 'XX', 'United States', 1])('%p is refused by name', (value) => {
		expect(() => readDefaultCountry(value)).toThrow(
			/^Invalid defaultCountry: .* is not a country code; enter a two-letter country code \(ISO 3166\), such as US, GB or DE$/,
		);
	});
});
