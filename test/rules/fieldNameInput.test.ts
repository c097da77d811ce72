import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiRequests, runAction, useActionSimulator } from '../actions/fixtures';

/**
 * Issue 11, point 5: "Use Fields of the Input Items" wants field NAMES. A value dragged in
 * ({{ $json.phone }}) used to give "Invalid phone (field "79990000001"): nothing holds no phone number".
 */
const sim = useActionSimulator();

const byName = (fields: INodeParameters): INodeParameters => ({
	resource: 'candidate',
	operation: 'createBatch',
	inputMode: 'fromItems',
	phoneField: 'phone',
	...fields,
});

const rows: IDataObject[] = [
	{ phone: '79990000001', name: 'Ann', crm: 'C-1' },
	{ phone: '79990000002', name: 'Bob', crm: 'C-2' },
];

const cases: Array<[string, INodeParameters, RegExp]> = [
	[
		'the phone dragged into Phone Field',
		byName({ phoneField: '={{ $json.phone }}' }),
		/^Invalid phoneField: "79990000001" is a value \(the item's field "phone"\), not a field name\. Enter the name of the field, phone, as plain text, not an expression such as \{\{ \$json\.phone \}\} \[item 0\]$/,
	],
	[
		'a name dragged into Variables Fields',
		byName({ variablesFields: '={{ $json.name }}' }),
		/^Invalid variablesFields: "Ann" is a value \(the item's field "name"\), not a field name\..*\{\{ \$json\.name \}\} \[item 0\]$/,
	],
	[
		'a CRM id dragged into Client External ID Field',
		byName({ clientExternalIdField: '={{ $json.crm }}' }),
		/^Invalid clientExternalIdField: "C-1" is a value \(the item's field "crm"\).*\[item 0\]$/,
	],
];

test.each(cases)('%s: said in plain words, nothing sent', async (_name, parameters, message) => {
	const result = await runAction(sim, parameters, rows);
	expect(result.error).toBeInstanceOf(NodeOperationError);
	expect(result.error?.message).toMatch(message);
	expect(result.error?.message).not.toMatch(/nothing holds/);
	expect(apiRequests(sim)).toHaveLength(0);
});

test('a Phone Field that names no field of an item lists the fields the item has', async () => {
	const result = await runAction(sim, byName({ phoneField: 'mobile' }), [{ mobile: '79990000001' }, { name: 'no phone', crm: 'C-9' }]);
	expect(result.error?.message).toBe(
		'Invalid phoneField: "mobile" names no field of this item (its fields: name, crm); enter the name of the field that holds the phone number(s) [item 1]',
	);
	expect(apiRequests(sim)).toHaveLength(0);
});

test('an empty phone says "is empty", not "nothing holds no phone number"', async () => {
	const result = await runAction(sim, { resource: 'candidate', operation: 'createAndRun', botSettingsId: 'bot-1', phone: '={{ $json.phone }}' }, [{}]);
	expect(result.error?.message).toBe('Invalid phone: nothing is empty; enter at least one phone number [item 0]');
});

test('field names that are fields still work, including a field that holds a number', async () => {
	const result = await runAction(sim, byName({ variablesFields: 'name', clientExternalIdField: 'crm' }), rows);
	expect(result.error).toBeUndefined();
	expect(apiRequests(sim)).toHaveLength(1);
});
