/**
 * Default Country per item, and only valid numbers. Default Country may be an expression, read for
 * each item (empty: none). A number completed with it must be a valid number of that country, and a
 * number that carries its country code a valid number of a country of that code, by libphonenumber's
 * national number patterns (generated into the package): `999 000-99-93` with US is refused, naming
 * US, with 0 requests. Through n8n-core's engine against the simulator, on every operation that dials.
 */
import { apiRequests, jsonOf, runAction, useDialling } from '../actions/fixtures';

jest.setTimeout(120_000);

const { sim, operations, candidatesSent: sent } = useDialling('Country per item');
const fromItem = { defaultCountry: '={{ $json.country }}' };

/** The numbers of each candidate sent, candidates sorted. */
const candidatesSent = () => sent().sort((a, b) => a[0].localeCompare(b[0]));

describe.each(Object.keys(operations))('%s', (name) => {
	test('Default Country from an expression: two items, two countries, each completed with its own', async () => {
		const items = [
			{ phone: '(212) 555-0147', country: 'US' },
			{ phone: '020 7946 0958', country: 'gb' },
			{ phone: '+7 999 000-55-55', country: 'US' },
		];
		const result = await runAction(sim, operations[name](fromItem), items);
		expect(result.error).toBeUndefined();
		expect(candidatesSent()).toEqual([['12125550147'], ['442079460958'], ['79990005555']]);
	});

	test('an empty Default Country from the item means none: the national number is refused, pointing to Default Country, not to Morocco', async () => {
		const result = await runAction(
			sim,
			operations[name](fromItem),
			[{ phone: '(212) 555-0147', country: '' }],
			{ continueOnFail: true },
		);
		expect(apiRequests(sim)).toHaveLength(0);
		const error = jsonOf(result)[0].error as string;
		expect(error).toBe(
			'Refused: 2125550147 has no country code (a national number of 10 digits), so nothing was called; set Default Country in Options to the country of the number, or write it with + and its country code (+<country code> 2125550147) [item 0]',
		);
		expect(error).not.toMatch(/212 has|Morocco|\+44/);
	});

	test('999 000-99-93 with US is refused, naming US, with 0 requests; the same number with RU is called', async () => {
		const items = [
			{ phone: '999 000-99-93', country: 'US' },
			{ phone: '999 000-99-93', country: 'RU' },
		];
		const result = await runAction(sim, operations[name](fromItem), items, {
			continueOnFail: true,
		});
		expect(jsonOf(result)[0].error).toBe(
			'Refused: 999 000-99-93 is not a valid number of US (Default Country), so nothing was called; correct the number, or set Default Country to the country of the number [item 0]',
		);
		expect(candidatesSent()).toEqual([['79990009993']]);
	});

	test('a number with + and its code keeps that code and is checked against the countries of that code', async () => {
		const items = [
			{ phone: '+44 20 7946 0958', country: 'US' },
			{ phone: '+1 999 000 9993', country: 'US' },
			{ phone: '+1 212 555 0147' },
		];
		const result = await runAction(sim, operations[name](fromItem), items, {
			continueOnFail: true,
		});
		expect(jsonOf(result)[1].error).toBe(
			'Refused: 19990009993 is not a valid number of country code 1 (US, AG, AI …), so nothing was called; correct the number [item 1]',
		);
		expect(candidatesSent()).toEqual([['12125550147'], ['442079460958']]);
	});

	test("in a CRM list, a number invalid in the item's country is left out and named; the valid one is called", async () => {
		const items = [
			{ phone: [{ VALUE: '999 000-99-93' }, { VALUE: '(646) 555-0199' }], country: 'US' },
		];
		const result = await runAction(sim, operations[name](fromItem), items);
		expect(result.error).toBeUndefined();
		expect(candidatesSent()).toEqual([['16465550199']]);
		expect(jsonOf(result)[0].skippedNumbers).toEqual([
			{ number: '999 000-99-93', reason: 'not a valid number of US (Default Country)' },
		]);
	});

	test('a Default Country that is no country is refused by name for its item only', async () => {
		const result = await runAction(
			sim,
			operations[name](fromItem),
			[
				{ phone: '(212) 555-0147', country: 'USA' },
				{ phone: '(212) 555-0148', country: 'US' },
			],
			{
				continueOnFail: true,
			},
		);
		expect(jsonOf(result)[0].error).toBe(
			'Invalid defaultCountry: "USA" is not a country code; enter a two-letter country code (ISO 3166), such as US, GB or DE [item 0]',
		);
		expect(candidatesSent()).toEqual([['12125550148']]);
	});
});
