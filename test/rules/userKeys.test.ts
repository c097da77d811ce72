import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	apiRequests,
	callTaskCreate,
	createAndRunByExpression,
	jsonOf,
	runAction,
	useActionSimulator,
} from '../actions/fixtures';

/**
 * Keys chosen by the user (variable names, callback data fields, extra body fields) are written
 * through n8n's safe property setter: a key it will not write is refused by name, before any
 * request, instead of being dropped without a word or changing the object's prototype.
 */

const sim = useActionSimulator();

const good = { phone: '79990000001' };

/** Items as n8n has them after parsing JSON: `__proto__` is then an own field like any other. */
const parsed = (text: string): IDataObject => JSON.parse(text) as IDataObject;

const cases: Array<[string, INodeParameters, IDataObject[], RegExp]> = [
	[
		'a variable named __proto__ in Variables (JSON)',
		createAndRunByExpression({
			candidateFields: { variablesJson: '{"name": "Ann", "__proto__": "x"}' },
		}),
		[good],
		/Invalid variablesJson: "__proto__" is a name that n8n does not allow as a field name.*\[item 0\]/,
	],
	[
		'a variable named constructor in Variables (JSON), on the second item',
		createAndRunByExpression({ candidateFields: { variablesJson: '={{ $json.vars }}' } }),
		[
			{ ...good, vars: { name: 'Ann' } },
			{ ...good, vars: '{"constructor": "x"}' },
		],
		/Invalid variablesJson: "constructor" is a name that n8n does not allow.*\[item 1\]/,
	],
	[
		'an item field holding __proto__, sent as variables by field name',
		createAndRunByExpression({
			inputMode: 'fromItems',
			phoneField: 'phone',
			variablesFields: 'person',
		}),
		[parsed('{"phone": "79990000001", "person": {"name": "Ann", "__proto__": {"city": "Kazan"}}}')],
		/Invalid variables \(field "person"\): "__proto__" is a name that n8n does not allow.*\[item 0\]/,
	],
	[
		'a callback data field named constructor, by field name',
		createAndRunByExpression({
			inputMode: 'fromItems',
			phoneField: 'phone',
			callbackDataFields: 'crmId, constructor',
		}),
		[parsed('{"phone": "79990000002", "crmId": "c-2", "constructor": "x"}')],
		/Invalid callbackData \(field "constructor"\): "constructor" is a name that n8n does not allow.*\[item 0\]/,
	],
	[
		'a variable pair named __proto__',
		createAndRunByExpression({
			candidateFields: {
				variables: {
					variable: [
						{ name: 'first', value: 'Ann' },
						{ name: '__proto__', value: 'x' },
					],
				},
			},
		}),
		[good],
		/Invalid variables\[1\]\.name: "__proto__" is a name that n8n does not allow.*\[item 0\]/,
	],
	[
		'an Extra Body Fields key named __proto__',
		callTaskCreate({}, { extraFields: '{"taskComment": "x", "__proto__": {"cps": 2}}' }),
		[{}],
		/Invalid extraFields: "__proto__" is a name that n8n does not allow.*\[item 0\]/,
	],
];

describe('a key n8n does not allow is refused, naming the field, the key and the item', () => {
	test.each(cases)('%s', async (_name, parameters, items, message) => {
		const result = await runAction(sim, parameters, items);
		expect(result.error?.message).toMatch(message);
		expect(apiRequests(sim)).toHaveLength(0);
	});
});

test('ordinary keys are sent as they are', async () => {
	const result = await runAction(
		sim,
		createAndRunByExpression({
			candidateFields: {
				variablesJson: '{"name": "Ann", "city": "Kazan"}',
				callbackData: '{"crmId": "42"}',
			},
		}),
		[good],
	);
	expect(result.error).toBeUndefined();
	expect(jsonOf(result)[0].autoCallCandidateId).toEqual(expect.any(String));
	const [request] = apiRequests(sim);
	expect((request.body as IDataObject).variables).toEqual({ name: 'Ann', city: 'Kazan' });
	expect((request.body as IDataObject).callbackData).toEqual({ crmId: '42' });
});
