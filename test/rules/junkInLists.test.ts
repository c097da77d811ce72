/**
 * Junk in a CRM's list does not block the good numbers: entries that cannot be dialled (an emergency
 * number, a number cut off, one of a wrong length, no number at all) are left out, each named in the
 * item's output with why (`skippedNumbers`), and the rest are called in the CRM's order. No such entry is
 * ever sent; the lead is refused only when nothing callable remains, with each entry's true reason. A
 * single number typed or mapped as text is refused as before. Through n8n-core's engine against the
 * simulator, on every operation that dials.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, jsonOf, runAction, useDialling } from '../actions/fixtures';

jest.setTimeout(120_000);

const { sim, operations, candidatesSent: sent } = useDialling('Junk in lists');

const phonesSent = sent;

describe.each(Object.keys(operations))('%s', (name) => {
	test('a Bitrix24 lead with 123 and a good mobile: the mobile is called, the output names 123 and why', async () => {
		const phone = [
			{ VALUE: '123', VALUE_TYPE: 'WORK' },
			{ VALUE: '+7 999 000-55-51', VALUE_TYPE: 'MOBILE' },
		];
		const result = await runAction(sim, operations[name](), [{ phone }]);
		expect(result.error).toBeUndefined();
		expect(phonesSent()).toEqual([['79990005551']]);
		expect(jsonOf(result)[0].skippedNumbers).toEqual([
			{ number: '123', reason: 'an emergency number (123); no bot may call it' },
		]);
	});

	test('a Pipedrive list whose primary entry is cut off (+7 999): the next one is called, and +7 999 is named cut off, not an emergency number', async () => {
		const phone = [
			{ label: 'work', value: '+7 999', primary: true },
			{ label: 'mobile', value: '+7 999 000-55-52', primary: false },
		];
		const result = await runAction(sim, operations[name](), [{ phone }]);
		expect(result.error).toBeUndefined();
		expect(phonesSent()).toEqual([['79990005552']]);
		expect(jsonOf(result)[0].skippedNumbers).toEqual([
			{
				number: '+7 999',
				reason: 'cut off: it has 4 digits, and a number with country code 7 has 11',
			},
		]);
	});

	test("junk of every kind between good numbers: the good ones are called in the list's order, every dropped entry is named", async () => {
		const phone = [
			'call me',
			'+7 999 000-55-53',
			'12345',
			'7999000555511',
			'+7 999 000-55-54',
			'911',
		];
		const result = await runAction(sim, operations[name](), [{ phone }]);
		expect(result.error).toBeUndefined();
		expect(phonesSent()).toEqual([['79990005553', '79990005554']]);
		expect(
			(jsonOf(result)[0].skippedNumbers as IDataObject[]).map(({ number, reason }) => [
				number,
				String(reason).split(/[ (;]/)[0],
			]),
		).toEqual([
			['call me', 'not'],
			['12345', '5'],
			['7999000555511', 'has'],
			['911', 'an'],
		]);
	});

	test('nothing callable left: the lead is refused with 0 requests, naming every entry and why; its error item lists them too', async () => {
		const phone = [{ VALUE: '123' }, { VALUE: '+7 999' }];
		const result = await runAction(
			sim,
			operations[name](),
			[{ phone }, { phone: [{ VALUE: '+7 999 000-55-55' }] }],
			{ continueOnFail: true },
		);
		expect(
			apiRequests(sim).filter((request) => JSON.stringify(request.body).includes('123')),
		).toEqual([]);
		expect(phonesSent()).toEqual([['79990005555']]);
		const refused = jsonOf(result)[0];
		expect(refused.error).toBe(
			'Refused: no number of the list can be called (123: an emergency number (123); no bot may call it. +7 999: cut off: it has 4 digits, and a number with country code 7 has 11), so nothing was called [item 0]',
		);
		expect(refused.skippedNumbers).toEqual([
			{ number: '123', reason: 'an emergency number (123); no bot may call it' },
			{
				number: '+7 999',
				reason: 'cut off: it has 4 digits, and a number with country code 7 has 11',
			},
		]);
		expect(jsonOf(result)[1].skippedNumbers).toBeUndefined();
	});

	test('a single number typed or mapped as text is refused as before, with its true reason', async () => {
		const result = await runAction(
			sim,
			operations[name](),
			[{ phone: '123' }, { phone: '+7 999' }, { phone: '123, +7 999 000-55-56' }],
			{
				continueOnFail: true,
			},
		);
		expect(apiRequests(sim)).toHaveLength(0);
		expect(jsonOf(result).map((json) => json.error)).toEqual([
			'Refused: 123 is an emergency number (123); no bot may call it, so nothing was called [item 0]',
			'Refused: +7 999 is cut off: it has 4 digits, and a number with country code 7 has 11, so nothing was called [item 1]',
			'Refused: 123 is an emergency number (123); no bot may call it, so nothing was called [item 2]',
		]);
	});
});
