/**
 * Numbers no bot may dial. Emergency numbers (bare, behind a country or trunk code, or an
 * international prefix) are refused on every node version and every operation that takes phones,
 * also as an AI Agent's tool; a number too short to be a person's phone is refused unless "Allow
 * Short Numbers" is on. Refused by name, before any request: the simulator counts 0 API requests.
 * Through n8n-core's engine against the simulator.
 */
import type { IDataObject } from 'n8n-workflow';

import { emergencyNumberIn } from '../../nodes/CisAutoCall/actions/runFeatures/guardrails';
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

const EMERGENCY = ['112', '911', '999', '000', '110', '101', '102', '103', '104', '119', '100'];
/** Each emergency number as a CRM field may hold it: bare, and behind a country code. */
const dialled = EMERGENCY.flatMap((number) => [
	number,
	`+1 ${number}`,
	`+44 ${number}`,
	`+7 ${number}`,
]);

/**
 * The refusal of each: a bare emergency number is named as one; behind a country code written with +
 * (+7 999) the number is cut off (999 is no emergency number in Russia), and refused as such.
 */
function refusalOf(written: string): RegExp {
	const digits = written.replace(/[^0-9]/g, '');
	if (!written.startsWith('+'))
		return new RegExp(
			`^Refused: ${digits} is an emergency number \\(${digits}\\); no bot may call it, so nothing was called`,
		);
	return new RegExp(
		`^Refused: \\${written} is cut off: it has ${digits.length} digits, and a number with country code ${written.slice(1).split(' ')[0]} has [0-9 ,a-z]+, so nothing was called`,
	);
}

const operations = diallingOperations(taskId);

describe("emergency numbers are recognised bare and behind a code, never in a person's phone", () => {
	test.each(dialled)('%s is an emergency number', (number) => {
		expect(emergencyNumberIn(number.replace(/[^0-9]/g, ''))).toBe(number.split(' ').pop());
	});
	test.each(['0044999', '011911', '8112'])(
		'%s (an international or trunk prefix) is an emergency number',
		(number) => {
			expect(emergencyNumberIn(number)).toBeDefined();
		},
	);
	test.each(['79991234567', '4420794600000', '19115550100', '1120000', '9110000'])(
		"%s is a person's phone",
		(number) => {
			expect(emergencyNumberIn(number)).toBeUndefined();
		},
	);
});

describe.each(Object.keys(operations))('%s', (name) => {
	for (const typeVersion of [1, 2]) {
		test(`version ${typeVersion}: each emergency number, bare and behind a country code, is refused by name with 0 requests`, async () => {
			const items = dialled.map((phone) => ({ phone }));
			const result = await runAction(sim, operations[name](), items, {
				typeVersion,
				continueOnFail: true,
			});
			expect(apiRequests(sim)).toHaveLength(0);
			const outputs = jsonOf(result);
			expect(outputs).toHaveLength(items.length);
			outputs.forEach((json, index) => {
				expect(json.error).toMatch(refusalOf(dialled[index]));
				expect(json.error).toMatch(new RegExp(`\\[item ${index}\\]$`));
				expect(result.items[index].pairedItem).toEqual({ item: index });
			});
		});
	}

	test('without Continue On Fail the run stops before any request, naming the field, the number and the item', async () => {
		const items = [{ phone: '79990000001' }, { phone: '79990000002' }, { phone: '+1 911' }];
		const result = await runAction(sim, operations[name](), items);
		expect(apiRequests(sim)).toHaveLength(0);
		expect((result.error as Error).message).toBe(
			'Refused: +1 911 is cut off: it has 4 digits, and a number with country code 1 has 11, so nothing was called [item 2]',
		);
	});

	test('a 6-digit number is refused by name with 0 requests; "Allow Short Numbers" lets it through, an emergency number still not', async () => {
		const refused = await runAction(sim, operations[name](), [{ phone: '123456' }], {
			continueOnFail: true,
		});
		expect(apiRequests(sim)).toHaveLength(0);
		expect(jsonOf(refused)[0].error).toBe(
			'Refused: 123456 has 6 digits, too few for a person\'s phone (at least 7), so nothing was called; to call an internal short number, turn on "Allow Short Numbers" in Options [item 0]',
		);
		const allowed = await runAction(
			sim,
			operations[name]({ allowShortNumbers: true }),
			[{ phone: '123456' }, { phone: '+44 999' }],
			{
				continueOnFail: true,
			},
		);
		const outputs = jsonOf(allowed);
		expect(outputs[0].error).toBeUndefined();
		expect(outputs[1].error).toMatch(/^Refused: \+44 999 is cut off: it has 5 digits/);
		const phonesSent = apiRequests(sim).flatMap((request) => {
			const body = request.body as IDataObject | IDataObject[];
			const entries = Array.isArray(body)
				? body
				: Array.isArray((body as IDataObject).batch)
					? ((body as IDataObject).batch as IDataObject[])
					: [body];
			return entries.flatMap((entry) => (entry.phone as string[] | undefined) ?? []);
		});
		expect(phonesSent).toEqual(['123456']);
	});
});

describe.each(['engineRequest', 'supplyData'] as const)('as an AI Agent tool (%s)', (via) => {
	test('"call 911": refused with 0 requests, and the model reads why', async () => {
		const result = await runTool(
			sim,
			createAndRunTool({ maxCallsPerRun: 30 }),
			[...dialled.map((phone) => ({ phone })), { phone: '12345' }],
			{ via },
		);
		expect(apiRequests(sim)).toHaveLength(0);
		const answers = result.observations.map((text) => (JSON.parse(text) as IDataObject[])[0]);
		expect(answers).toHaveLength(dialled.length + 1);
		answers.slice(0, dialled.length).forEach((answer, index) => {
			expect(answer.outcome).toBe('refused');
			expect(answer.message).toMatch(
				new RegExp(refusalOf(dialled[index]).source.replace('^Refused: ', '')),
			);
		});
		expect(answers[dialled.length].message).toContain(
			"12345 has 5 digits, too few for a person's phone",
		);
	});
});
