/**
 * A number is read the way the service dials it (country code first, or the Russian form
 * with 8 first), and one whose length does not fit its country code (+7: 11 digits) is refused by
 * name, before any request, on every operation that dials, on every node version, also as an AI
 * Agent's tool. Through n8n-core's engine against the simulator, which counts 0 API requests.
 * The waiting operations: numberLengthsWaiting.test.ts. The lengths: libphonenumber-js's metadata
 * (scripts/country-codes.js), checked here against the committed table.
 */
import { execFileSync } from 'child_process';
import * as path from 'path';
import type { IDataObject } from 'n8n-workflow';

import { describeLengths, wrongLength } from '../../nodes/shared/phones';
import {
	apiRequests,
	createAndRunTool,
	diallingOperations,
	jsonOf,
	runAction,
	runTool,
	useSimulatorWithTask,
} from '../actions/fixtures';

jest.setTimeout(120_000);

const { sim, taskId } = useSimulatorWithTask('Numbers task');

/** Numbers missing a digit or with digits too many, and what the refusal says of each. */
export const WRONG_LENGTH: [string, string][] = [
	[
		'+7 999 000-55',
		'Refused: +7 999 000-55 is cut off: it has 9 digits, and a number with country code 7 has 11, so nothing was called',
	],
	[
		'7999000555',
		'Refused: 7999000555 has no country code (a national number of 10 digits), so nothing was called; set Default Country in Options to the country of the number, or write it with + and its country code (+<country code> 7999000555)',
	],
	[
		'7999000555511',
		'Refused: 7999000555511 has 13 digits, which fits no country code (a number beginning with 7 has 11), so nothing was called; write it with + and its country code (+<country code> 7999000555511), or set Default Country in Options to complete numbers written without it',
	],
	[
		'8 999 000 55',
		'Refused: 899900055 has 9 digits, which fits no country code (a Russian number written with 8 first has 11), so nothing was called; write it with + and its country code (+<country code> 899900055), or set Default Country in Options to complete numbers written without it',
	],
	[
		'+375 29 123-45',
		'Refused: +375 29 123-45 is cut off: it has 10 digits, and a number with country code 375 has 12, so nothing was called',
	],
	[
		'0999 000 55 55',
		'Refused: 09990005555 has no country code (a national number of 11 digits), so nothing was called; set Default Country in Options to the country of the number, or write it with + and its country code (+<country code> 9990005555, without the leading 0)',
	],
];

/**
 * Whole numbers: Russian (international, with 8 first, and a mobile number without its 7, which RU
 * normalisation completes), Belarusian, Uzbek, Kazakh, British; sent as their digits.
 */
export const WHOLE: [string, string][] = [
	['+7 999 000-55-55', '79990005555'],
	['8 999 000 55 55', '89990005555'],
	['916 123-45-67', '9161234567'],
	['+375 29 123-45-67', '375291234567'],
	['+998 90 123 45 67', '998901234567'],
	['+7 701 123 45 67', '77011234567'],
	['+44 20 7946 0000', '442079460000'],
];

const operations = diallingOperations(taskId);

function phonesSent(): string[] {
	return apiRequests(sim).flatMap((request) => {
		const body = request.body as IDataObject;
		const entries = Array.isArray(body.batch) ? (body.batch as IDataObject[]) : [body];
		return entries.flatMap((entry) => (entry.phone as string[] | undefined) ?? []);
	});
}

describe("the lengths come from libphonenumber's metadata", () => {
	test('the committed table matches the installed libphonenumber-js (scripts/country-codes.js --check)', () => {
		const output = execFileSync(
			process.execPath,
			[path.join(__dirname, '..', '..', 'scripts', 'country-codes.js'), '--check'],
			{ encoding: 'utf8' },
		);
		expect(output).toMatch(/matches the installed libphonenumber-js metadata/);
	});
	test.each([
		['79990005555', undefined],
		['89990005555', undefined],
		['12025550100', undefined],
		['1202555010', 'has no country code (a national number of 10 digits)'],
		['19990009993', undefined],
		['4930123456', undefined],
	])('%s', (digits, reason) => {
		if (reason === undefined) expect(wrongLength(digits)).toBeUndefined();
		else expect(wrongLength(digits)).toContain(reason);
	});
	test('lengths read as words', () => {
		expect([
			describeLengths([11]),
			describeLengths([11, 12]),
			describeLengths([9, 10, 11, 12]),
			describeLengths([9, 11, 12]),
		]).toEqual(['11', '11 or 12', '9 to 12', '9, 11 or 12']);
	});
});

describe.each(Object.keys(operations))('%s', (name) => {
	for (const typeVersion of [1, 2, 3]) {
		test(`version ${typeVersion}: a number of the wrong length is refused by name and item, with 0 requests`, async () => {
			const items = WRONG_LENGTH.map(([phone]) => ({ phone }));
			const result = await runAction(sim, operations[name](), items, {
				typeVersion,
				continueOnFail: true,
			});
			expect(apiRequests(sim)).toHaveLength(0);
			const outputs = jsonOf(result);
			expect(outputs.map((json) => json.error)).toEqual(
				WRONG_LENGTH.map(([, message], index) => `${message} [item ${index}]`),
			);
			result.items.forEach((item, index) => expect(item.pairedItem).toEqual({ item: index }));
		});
	}

	test('without Continue On Fail the run stops before any request, naming the number, the length and the item', async () => {
		const items = [{ phone: '+7 999 000-55-55' }, { phone: '+7 999 000-55' }];
		const result = await runAction(sim, operations[name](), items);
		expect(apiRequests(sim)).toHaveLength(0);
		expect((result.error as Error).message).toBe(`${WRONG_LENGTH[0][1]} [item 1]`);
	});

	test('whole numbers of Russia (also with 8 first) and of other served countries pass, sent as their digits', async () => {
		const result = await runAction(
			sim,
			operations[name](),
			WHOLE.map(([phone]) => ({ phone })),
			{ continueOnFail: true },
		);
		expect(jsonOf(result).map((json) => json.error)).toEqual(WHOLE.map(() => undefined));
		expect(phonesSent().sort()).toEqual(WHOLE.map(([, digits]) => digits).sort());
	});

	test('"Allow Short Numbers" keeps its meaning: a 6-digit line passes, a 10-digit +7 number is still refused', async () => {
		const result = await runAction(
			sim,
			operations[name]({ allowShortNumbers: true }),
			[{ phone: '123456' }, { phone: '7999000555' }],
			{
				continueOnFail: true,
			},
		);
		const outputs = jsonOf(result);
		expect(outputs[0].error).toBeUndefined();
		expect(outputs[1].error).toBe(`${WRONG_LENGTH[1][1]} [item 1]`);
		expect(phonesSent()).toEqual(['123456']);
	});
});

describe('Dry Run', () => {
	test('shows the refusal, sends nothing', async () => {
		const result = await runAction(
			sim,
			operations['Create and Run']({ dryRun: true }),
			[{ phone: '7999000555511' }],
			{ continueOnFail: true },
		);
		expect(apiRequests(sim)).toHaveLength(0);
		expect(jsonOf(result)[0].error).toBe(`${WRONG_LENGTH[2][1]} [item 0]`);
	});
});

describe.each(['engineRequest', 'supplyData'] as const)('as an AI Agent tool (%s)', (via) => {
	test("a number of the wrong length: refused with 0 requests, and the model reads why (not the builder's fix); a whole one is called", async () => {
		const calls = [
			...WRONG_LENGTH.slice(0, 3).map(([phone]) => ({ phone })),
			{ phone: '+7 999 000-55-55' },
		];
		const result = await runTool(sim, createAndRunTool({ maxCallsPerRun: 10 }), calls, { via });
		const answers = result.observations.map((text) => (JSON.parse(text) as IDataObject[])[0]);
		expect(answers).toHaveLength(4);
		answers.slice(0, 3).forEach((answer, index) => {
			expect(answer.outcome).toBe('refused');
			expect(answer.message).toContain(
				WRONG_LENGTH[index][1].replace(/^Refused: /, '').split(/; (?:write|set) /)[0],
			);
			expect(answer.message).not.toMatch(/Default Country|Options/);
		});
		expect(answers[3].outcome).not.toBe('refused');
		expect(phonesSent()).toEqual(['79990005555']);
	});
});
