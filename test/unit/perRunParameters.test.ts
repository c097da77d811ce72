import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { perRunParameters } from '../../nodes/CisAutoCall/helpers/perRunParameters';

/**
 * A stand-in for n8n's context: raw parameters as saved in the workflow, the items, and
 * getNodeParameter answering with `valueOf` (each call recorded as `name#itemIndex`).
 */
function standIn(
	parameters: Record<string, unknown>,
	items: IDataObject[],
	valueOf: (value: unknown, itemIndex: number) => unknown,
) {
	const calls: string[] = [];
	const context = {
		getNode: () => ({ parameters }),
		getInputData: () => items.map((json) => ({ json })),
		getNodeParameter: (name: string, itemIndex: number) => {
			calls.push(`${name}#${itemIndex}`);
			return valueOf(parameters[name], itemIndex);
		},
	} as unknown as IExecuteFunctions;
	return { context, calls };
}

/** Values per item: an expression gives its text and the item's index. */
function contextWith(parameters: Record<string, unknown>, items: IDataObject[] = []) {
	return standIn(parameters, items, (value, itemIndex) =>
		typeof value === 'string' && value.startsWith('=') ? `${value.slice(1)}-${itemIndex}` : value,
	);
}

test('a parameter without expression is resolved once per run, one with an expression per item', () => {
	const { context, calls } = contextWith({
		botSettingsId: 'bot-1',
		phone: '={{ $json.phone }}',
		candidateFields: { timezone: '+03:00', callbackData: '={{ $json.crm }}' },
		taskSettings: { checkPhone: true },
	});
	const parameter = perRunParameters(context);
	for (const itemIndex of [0, 1, 2]) {
		expect(parameter('botSettingsId', itemIndex)).toBe('bot-1');
		expect(parameter('phone', itemIndex)).toBe(`{{ $json.phone }}-${itemIndex}`);
		parameter('candidateFields', itemIndex);
		parameter('taskSettings', itemIndex);
	}
	expect(calls.filter((call) => call.startsWith('botSettingsId'))).toEqual(['botSettingsId#0']);
	expect(calls.filter((call) => call.startsWith('taskSettings'))).toEqual(['taskSettings#0']);
	expect(calls.filter((call) => call.startsWith('phone'))).toEqual([
		'phone#0',
		'phone#1',
		'phone#2',
	]);
	expect(calls.filter((call) => call.startsWith('candidateFields'))).toHaveLength(3);
});

/** A stand-in whose getNodeParameter resolves `{{ $json.<field> }}` of the item, as n8n does. */
function resolvingContext(
	parameters: Record<string, unknown>,
	items: IDataObject[],
	differs = false,
) {
	return standIn(parameters, items, (value, itemIndex) => {
		const field =
			typeof value === 'string' ? /^=\{\{ \$json\.(\w+) \}\}$/.exec(value)?.[1] : undefined;
		if (!field) return value;
		return differs ? `n8n:${String(items[itemIndex][field])}` : items[itemIndex][field];
	});
}

test('an expression that only copies a field of the item: checked against n8n on the first and last item, the others read from their own field', () => {
	const items = [{ phone: '79990000001' }, { phone: '79990000002' }, { phone: '79990000003' }];
	const { context, calls } = resolvingContext({ phone: '={{ $json.phone }}' }, items);
	const parameter = perRunParameters(context);
	expect(items.map((_, itemIndex) => parameter('phone', itemIndex))).toEqual([
		'79990000001',
		'79990000002',
		'79990000003',
	]);
	expect(calls).toEqual(['phone#0', 'phone#2']);
});

test('in a long run n8n is asked on the first item, every 100th and the last', () => {
	const items = Array.from({ length: 250 }, (_, index) => ({
		phone: `7999${String(index).padStart(7, '0')}`,
	}));
	const { context, calls } = resolvingContext({ phone: '={{ $json.phone }}' }, items);
	const parameter = perRunParameters(context);
	expect(items.map((_, itemIndex) => parameter('phone', itemIndex))).toEqual(
		items.map((item) => item.phone),
	);
	expect(calls).toEqual(['phone#0', 'phone#100', 'phone#200', 'phone#249']);
});

test('a difference found on a sample (item 100) hands every later item to n8n', () => {
	const items = Array.from({ length: 150 }, (_, index) => ({
		phone: `7999${String(index).padStart(7, '0')}`,
	}));
	const { context, calls } = resolvingContext({ phone: '={{ $json.phone }}' }, items);
	const getNodeParameter = context.getNodeParameter.bind(context);
	// n8n gives something else from item 100 on (as it would for an expression form read wrongly).
	(context as unknown as { getNodeParameter: typeof getNodeParameter }).getNodeParameter = ((
		name: string,
		itemIndex: number,
	) => {
		const value = getNodeParameter(name, itemIndex);
		return itemIndex >= 100 ? `n8n:${String(value)}` : value;
	}) as typeof getNodeParameter;
	const parameter = perRunParameters(context);
	const values = items.map((_, itemIndex) => parameter('phone', itemIndex));
	expect(values.slice(100)).toEqual(items.slice(100).map((item) => `n8n:${item.phone}`));
	expect(calls.length).toBe(1 + 50);
});

test('a value read once for the run is frozen: a caller cannot change what the next item gets', () => {
	const { context } = contextWith({ candidateFields: { callbackData: { crm: { id: 1 } } } });
	const parameter = perRunParameters(context);
	const first = parameter('candidateFields', 0) as { callbackData: { crm: { id: number } } };
	expect(() => {
		first.callbackData.crm.id = 2;
	}).toThrow(TypeError);
	expect(parameter('candidateFields', 1)).toEqual({ callbackData: { crm: { id: 1 } } });
});

test('when n8n resolves the first item differently, n8n resolves every item', () => {
	const items = [{ phone: '79990000001' }, { phone: '79990000002' }];
	const { context, calls } = resolvingContext({ phone: '={{ $json.phone }}' }, items, true);
	const parameter = perRunParameters(context);
	expect(items.map((_, itemIndex) => parameter('phone', itemIndex))).toEqual([
		'n8n:79990000001',
		'n8n:79990000002',
	]);
	expect(calls).toEqual(['phone#0', 'phone#1']);
});

test('an item whose field is missing or not plain JSON is left to n8n', () => {
	const items: IDataObject[] = [
		{ phone: '79990000001' },
		{},
		{ phone: new Date(0) as unknown as string },
		{ phone: '79990000004' },
	];
	const { context, calls } = resolvingContext({ phone: '={{ $json.phone }}' }, items);
	const parameter = perRunParameters(context);
	expect(items.map((_, itemIndex) => parameter('phone', itemIndex))).toEqual([
		'79990000001',
		undefined,
		new Date(0),
		'79990000004',
	]);
	// items 1 and 2 cannot be read from fields; item 3 is the last, compared with n8n.
	expect(calls).toEqual(['phone#0', 'phone#1', 'phone#2', 'phone#3']);
});
