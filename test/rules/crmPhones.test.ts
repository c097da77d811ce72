/**
 * Phones as CRMs keep them, and Default Country, on every operation that dials, in both candidate
 * input modes, also in Dry Run and as an AI Agent's tool. Through n8n-core's engine against the
 * simulator, which counts the requests and shows the numbers sent. The waiting operations:
 * crmPhonesWaiting.test.ts. The reading itself: test/unit/crmPhones.test.ts.
 */
import type { IDataObject, INodeParameters, INodeProperties } from 'n8n-workflow';

import { CisAutoCall } from '../../nodes/CisAutoCall/CisAutoCall.node';
import {
	apiRequests,
	BITRIX24,
	byId,
	createAndRunTool,
	jsonOf,
	KOMMO,
	PIPEDRIVE,
	runAction,
	runTool,
	useSimulatorWithTask,
} from '../actions/fixtures';

jest.setTimeout(120_000);

const { sim, taskId } = useSimulatorWithTask('CRM phones');

/** The operations that dial, in each candidate input mode, the phones from the items' field `phones`. */
function operations(): Record<string, (options?: IDataObject) => INodeParameters> {
	const define = { phone: '={{ $json.phones }}' };
	const fromItems = { inputMode: 'fromItems', phoneField: 'phones' };
	const each = (label: string, base: () => IDataObject) => ({
		[`${label}, Define Each Field`]: (options: IDataObject = {}) =>
			({ ...base(), ...define, options }) as INodeParameters,
		[`${label}, Use Fields of the Input Items`]: (options: IDataObject = {}) =>
			({ ...base(), ...fromItems, options }) as INodeParameters,
	});
	return {
		...each('Create and Run', () => ({
			resource: 'candidate',
			operation: 'createAndRun',
			botSettingsId: 'bot-1',
		})),
		...each('Add to Task', () => ({
			resource: 'candidate',
			operation: 'addToTask',
			autoCallId: byId(taskId()),
		})),
		...each('Add Many to Task', () => ({
			resource: 'candidate',
			operation: 'addManyToTask',
			autoCallId: byId(taskId()),
		})),
		...each('Create Batch From Template', () => ({
			resource: 'candidate',
			operation: 'createBatch',
		})),
	};
}

/** The numbers of each candidate sent, in the order of the numbers, candidates sorted (Add to Task sends items at once). */
function candidatesSent(): string[][] {
	return apiRequests(sim)
		.flatMap((request) => {
			const body = request.body as IDataObject;
			return Array.isArray(body.batch) ? (body.batch as IDataObject[]) : [body];
		})
		.map((entry) => entry.phone as string[])
		.sort((a, b) => a[0].localeCompare(b[0]));
}

const NATIONAL_REFUSED =
	'Refused: 2125550147 has no country code (a national number of 10 digits), so nothing was called; set Default Country in Options to the country of the number, or write it with + and its country code (+<country code> 2125550147)';

describe.each(Object.entries(operations()))('%s', (_name, parameters) => {
	test('a Pipedrive, a Bitrix24 and a Kommo contact: one candidate each, the primary number first, then the rest in order', async () => {
		const result = await runAction(sim, parameters(), [
			{ phones: PIPEDRIVE },
			{ phones: BITRIX24 },
			{ phones: KOMMO },
		]);
		expect(result.error).toBeUndefined();
		expect(candidatesSent()).toEqual([
			['79990005552', '79990005551'],
			['79990005553', '89990005554'],
			['79990005555', '79990005556'],
		]);
		expect(result.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
	});

	test('Default Country US: a national number gets +1, an international one keeps its code, a Pipedrive list too', async () => {
		const items = [
			{ phones: '(212) 555-0147' },
			{ phones: '+44 20 7946 0958' },
			{ phones: [{ label: 'work', value: '(646) 555-0199', primary: true }] },
		];
		const result = await runAction(sim, parameters({ defaultCountry: 'US' }), items);
		expect(result.error).toBeUndefined();
		expect(candidatesSent()).toEqual([['12125550147'], ['16465550199'], ['442079460958']]);
	});

	test('Default Country GB: the trunk 0 is dropped; +7 and 8 first keep their reading', async () => {
		const items = [
			{ phones: '020 7946 0958' },
			{ phones: '+7 999 000-55-57' },
			{ phones: BITRIX24.map((entry) => ({ ...entry, VALUE: '07946 095 800' })).slice(0, 1) },
		];
		const result = await runAction(sim, parameters({ defaultCountry: 'GB' }), items);
		expect(result.error).toBeUndefined();
		expect(candidatesSent()).toEqual([['442079460958'], ['447946095800'], ['79990005557']]);
	});

	test('without Default Country a national number is refused by name and item, naming Default Country and no other country', async () => {
		const result = await runAction(
			sim,
			parameters(),
			[{ phones: '+7 999 000-55-58' }, { phones: '(212) 555-0147' }],
			{ continueOnFail: true },
		);
		const outputs = jsonOf(result);
		expect(outputs[1].error).toBe(`${NATIONAL_REFUSED} [item 1]`);
		expect(String(outputs[1].error)).not.toMatch(/\b(MA|EH)\b|Morocco/);
		expect(candidatesSent()).toEqual([['79990005558']]);
	});

	test('an entry of a phone list that is no phone: the run stops before any request, naming the field, the value and the item', async () => {
		const result = await runAction(sim, parameters(), [
			{ phones: PIPEDRIVE },
			{ phones: [{ label: 'work', number: '+7 999 000-55-59' }] },
		]);
		expect(apiRequests(sim)).toHaveLength(0);
		expect(result.error?.message).toMatch(
			/^Invalid phone( \(field "phones"\))?: \[\{"label":"work","number":"\+7 999 000-55-59"\}\] has \{"label":"work","number":"\+7 999 000-55-59"\}, which is not a phone number; pick the field that holds the number, or a CRM's phone list .* \[item 1\]$/,
		);
	});
});

test('a Default Country that is no country is refused by name before any request', async () => {
	const result = await runAction(
		sim,
		operations()['Create and Run, Define Each Field']({ defaultCountry: 'USA' }),
		[{ phones: '(212) 555-0147' }],
	);
	expect(apiRequests(sim)).toHaveLength(0);
	expect(result.error?.message).toBe(
		'Invalid defaultCountry: "USA" is not a country code; enter a two-letter country code (ISO 3166), such as US, GB or DE [item 0]',
	);
});

test('with Default Country, a number that is neither international nor national says so', async () => {
	const result = await runAction(
		sim,
		operations()['Create and Run, Define Each Field']({ defaultCountry: 'GB' }),
		[{ phones: '7999000555511' }],
		{ continueOnFail: true },
	);
	expect(apiRequests(sim)).toHaveLength(0);
	expect(jsonOf(result)[0].error).toBe(
		'Refused: 7999000555511 has 13 digits, which fits no country code (a number beginning with 7 has 11), nor is it a national number of GB (9 or 10 digits after the trunk 0), so nothing was called [item 0]',
	);
});

describe('Dry Run', () => {
	test("shows a Kommo contact's numbers completed with Default Country, sends nothing", async () => {
		const kommo = [
			{ ...KOMMO[1], values: [{ value: '020 7946 0958' }, { value: '+7 999 000-55-55' }] },
		];
		const result = await runAction(
			sim,
			operations()['Create and Run, Use Fields of the Input Items']({
				dryRun: true,
				defaultCountry: 'GB',
			}),
			[{ phones: kommo }],
		);
		expect(apiRequests(sim)).toHaveLength(0);
		expect(jsonOf(result)[0]).toMatchObject({
			dryRun: true,
			sent: false,
			wouldSend: { body: { phone: ['442079460958', '79990005555'] } },
		});
	});

	test('refuses a national number without Default Country as a real run does', async () => {
		const result = await runAction(
			sim,
			operations()['Create Batch From Template, Use Fields of the Input Items']({ dryRun: true }),
			[{ phones: '(212) 555-0147' }],
			{
				continueOnFail: true,
			},
		);
		expect(apiRequests(sim)).toHaveLength(0);
		expect(jsonOf(result)[0].error).toBe(`${NATIONAL_REFUSED} [item 0]`);
	});
});

describe.each(['engineRequest', 'supplyData'] as const)('as an AI Agent tool (%s)', (via) => {
	test('Default Country US completes the number the model gives; without it the model reads the reason and asks for the whole number, the builder reads Default Country', async () => {
		const completed = await runTool(
			sim,
			createAndRunTool({ defaultCountry: 'US' }),
			[{ phone: '(212) 555-0147' }],
			{ via },
		);
		expect((JSON.parse(completed.observations[0]) as IDataObject[])[0].outcome).not.toBe('refused');
		expect(candidatesSent()).toEqual([['12125550147']]);
		const refused = await runTool(sim, createAndRunTool(), [{ phone: '(212) 555-0147' }], { via });
		const answer = (JSON.parse(refused.observations[0]) as IDataObject[])[0];
		expect(answer.outcome).toBe('refused');
		const [reason, builderFix] = NATIONAL_REFUSED.replace(/^Refused: /, '').split('; set');
		expect(answer.message).toBe(
			`Refused: ${reason}. Ask the user for the full number with its country code, then call with it; never guess, complete or change a number yourself.`,
		);
		if (via === 'engineRequest') {
			const hints = Object.values(refused.runData)
				.flat()
				.flatMap((task) => task.hints ?? []);
			expect(hints.map((hint) => hint.message)).toEqual([
				`This tool call sent nothing: ${reason}. Set${builderFix}.`,
			]);
		}
		expect(candidatesSent()).toEqual([['12125550147']]);
	});
});

test('the editor: Default Country is in the Options of every operation that dials or names people by phone (Cancel), and only there; it takes an expression', () => {
	const properties = new CisAutoCall().description.properties as INodeProperties[];
	const withIt = properties
		.filter(
			(property) =>
				property.name === 'options' &&
				(property.options as INodeProperties[]).some((option) => option.name === 'defaultCountry'),
		)
		.flatMap((property) => property.displayOptions?.show?.operation as string[]);
	expect(withIt.sort()).toEqual([
		'addManyToTask',
		'addToTask',
		'addToTaskAndWait',
		'cancel',
		'createAndRun',
		'createAndRunAndWait',
		'createBatch',
	]);
	const option = properties
		.flatMap((property) =>
			property.name === 'options' ? (property.options as INodeProperties[]) : [],
		)
		.find((entry) => entry.name === 'defaultCountry');
	expect(option?.hint).toMatch(/\(212\) 555-0147 with US as \+1 212 555 0147/);
	expect(option?.noDataExpression).toBeUndefined();
});
