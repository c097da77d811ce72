import type { INodeProperties } from 'n8n-workflow';

// Callback Data in the candidate's Additional Fields: a JSON object (every version), and from
// version 3 on name/value pairs, the way n8n's HTTP Request node takes body fields.

/** Callback Data as one JSON object: the only way in versions 1 and 2, still there from version 3 on. */
export const callbackDataJsonField: INodeProperties = {
	displayName: 'Callback Data (JSON)',
	name: 'callbackData',
	type: 'json',
	default: '{}',
	description:
		'A JSON object the service returns unchanged with each call result of this person, e.g. {"lead": "42"}',
	hint: 'Use it to find the CRM record when the result comes back.',
};

/** Callback Data as name/value pairs (version 3 on); each value a plain text or an expression. */
export const callbackDataPairsField: INodeProperties = {
	displayName: 'Callback Data',
	name: 'callbackDataPairs',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Callback Data Field',
	default: {},
	options: [
		{
			displayName: 'Field',
			name: 'field',
			values: [
				{
					displayName: 'Name',
					name: 'name',
					type: 'string',
					default: '',
					placeholder: 'e.g. lead',
				},
				{
					displayName: 'Value',
					name: 'value',
					type: 'string',
					default: '',
					placeholder: 'e.g. {{ $json.body.crmId }}',
				},
			],
		},
	],
	description:
		"Fields the service returns unchanged with each call result of this person, e.g. the lead's ID in your CRM",
	hint: 'Use them to find the CRM record when the result comes back. Merged with Callback Data (JSON) (these win).',
};
