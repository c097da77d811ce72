import type { IExecuteFunctions } from 'n8n-workflow';

import { perRunParameters } from '../../nodes/CisAutoCall/helpers/parameters';

/** A stand-in for n8n's context: raw parameters as saved in the workflow, values per item. */
function contextWith(parameters: Record<string, unknown>) {
	const calls: string[] = [];
	const context = {
		getNode: () => ({ parameters }),
		getNodeParameter: (name: string, itemIndex: number) => {
			calls.push(`${name}#${itemIndex}`);
			const value = parameters[name];
			return typeof value === 'string' && value.startsWith('=') ? `${value.slice(1)}-${itemIndex}` : value;
		},
	} as unknown as IExecuteFunctions;
	return { context, calls };
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
	expect(calls.filter((call) => call.startsWith('phone'))).toEqual(['phone#0', 'phone#1', 'phone#2']);
	expect(calls.filter((call) => call.startsWith('candidateFields'))).toHaveLength(3);
});
