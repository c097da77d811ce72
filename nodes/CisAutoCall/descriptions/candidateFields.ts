import type { INodeProperties } from 'n8n-workflow';

import { parseTimezone } from '../../shared/convert';
import { beforeVersion3, fromVersion3 } from '../versions';
import { callbackDataJsonField, callbackDataPairsField } from './callbackDataFields';

// The candidate fields of the editor, by operation kind; helpers/candidateReader.ts reads them.

export type CandidateKind = 'single' | 'batch' | 'addToTask';

const TIMEZONE_OFFSETS: string[] = [
	...Array.from({ length: 25 }, (_, index) => index - 12).map(
		(hours) => `${hours < 0 ? '-' : '+'}${String(Math.abs(hours)).padStart(2, '0')}:00`,
	),
	'-09:30',
	'-03:30',
	'+03:30',
	'+04:30',
	'+05:30',
	'+05:45',
	'+06:30',
	'+09:30',
	'+10:30',
].sort((a, b) => offsetSeconds(a) - offsetSeconds(b));

function offsetSeconds(offset: string): number {
	return parseTimezone('timezone', offset);
}

const timezoneOptions = [
	...TIMEZONE_OFFSETS.map((offset) => ({ name: `UTC${offset}`, value: offset })),
	{ name: 'Seconds (Custom)', value: 'custom' },
];

/** On the operations that make the service call people: re-running them while building calls again. */
export const dialsNotice: INodeProperties = {
	displayName:
		"Each run calls real people, and calls cost money. While building, pin this node's output once it has run (the pin icon of its output pane): running the workflow again then reuses that output instead of calling again.",
	name: 'dialsNotice',
	type: 'notice',
	default: '',
	// An AI agent's tool is not built by hand: its own notice (agentToolNotice) applies there.
	displayOptions: { hide: { '@tool': [true] } },
};

export function candidateFields(kind: CandidateKind): INodeProperties[] {
	const byFieldName = { show: { inputMode: ['fromItems'] } };
	const defined = { show: { inputMode: ['define'] } };
	const withExternalId = kind !== 'single';
	// Only adding to an existing task is de-duplicated by the service (docs/service.md, Operations); a batch
	// from a template makes a new task, so there the ID is only passed on.
	const promisesOnce = kind === 'addToTask';
	const definedExtras: INodeProperties[] = [
		callbackDataJsonField,
		...(withExternalId
			? [
					{
						displayName: 'Client External ID',
						name: 'clientExternalId',
						type: 'string',
						default: '',
						description: promisesOnce
							? 'Your ID for this client (for example the CRM ID); the platform adds a repeated ID to a task only once'
							: 'Your ID for this client (for example the CRM ID), passed on to the service with the candidate',
					} as INodeProperties,
				]
			: []),
		{
			displayName: 'Time Zone',
			name: 'timezone',
			type: 'options',
			options: timezoneOptions,
			default: '+03:00',
			description: "The candidate's time zone; left out, the service picks it from the number",
		},
		{
			displayName: 'Time Zone (Seconds)',
			name: 'timezoneSeconds',
			type: 'number',
			typeOptions: { minValue: -43200, maxValue: 43200 },
			default: 0,
			displayOptions: { show: { timezone: ['custom'] } },
			description: 'Offset from UTC in seconds, -43200 to 43200 (10800 = UTC+3)',
		},
		{
			displayName: 'Variables',
			name: 'variables',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			placeholder: 'Add Variable',
			default: {},
			options: [
				{
					displayName: 'Variable',
					name: 'variable',
					values: [
						{ displayName: 'Name', name: 'name', type: 'string', default: '' },
						{ displayName: 'Value', name: 'value', type: 'string', default: '' },
					],
				},
			],
			description: 'Variables of the candidate that the bot script can use (for example the name)',
		},
		{
			displayName: 'Variables (JSON)',
			name: 'variablesJson',
			type: 'json',
			default: '{}',
			description:
				'Variables as one JSON object of name → text; merged with the name/value pairs (pairs win)',
		},
	];
	return [
		{
			displayName: 'Candidate Input',
			name: 'inputMode',
			type: 'options',
			options: [
				{
					name: 'Define Each Field',
					value: 'define',
					description: 'Fields with expressions, resolved for every item; fine for small flows',
				},
				{
					name: 'Use Fields of the Input Items',
					value: 'fromItems',
					description:
						'Name the fields of the input items that hold the phone, variables and so on; fastest for thousands of rows',
				},
			],
			default: 'define',
		},
		{
			displayName: 'Phone Numbers',
			name: 'phone',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. 79876543210',
			displayOptions: defined,
			description:
				'Number(s) of the person to call, separated by commas, country code first or as set in Default Country',
			hint: 'Default Country is in Options. An expression may also return a list, such as a CRM contact\'s phones (Pipedrive, Bitrix24, Kommo). They are dialled for real: take them from your data or from the person, never make one up. As an AI Agent\'s tool: one number per tool call, unless "AI Agent May Give Several Numbers per Call" is on in Options.',
		},
		{
			displayName: 'Additional Fields',
			name: 'candidateFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			displayOptions: { show: { ...defined.show, ...beforeVersion3.show } },
			options: definedExtras,
		},
		{
			displayName: 'Additional Fields',
			name: 'candidateFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			displayOptions: { show: { ...defined.show, ...fromVersion3.show } },
			options: [callbackDataPairsField, ...definedExtras],
		},
		{
			displayName: 'Phone Field',
			name: 'phoneField',
			type: 'string',
			required: true,
			default: 'phone',
			displayOptions: byFieldName,
			placeholder: 'e.g. phone',
			description:
				'Name of the field of each input item that holds the number(s): the name itself, not an expression giving them',
			hint: "The field holds a text (commas between numbers), a list, or a CRM contact's phones as the CRM gives them (Pipedrive's phones, Bitrix24's PHONE, Kommo's custom_fields_values).",
		},
		{
			displayName: 'Variables Fields',
			name: 'variablesFields',
			type: 'string',
			default: '',
			placeholder: 'e.g. name, company',
			displayOptions: byFieldName,
			description:
				'Fields of each item sent as variables, separated by commas; a field holding an object adds all its entries',
		},
		{
			displayName: 'Callback Data Fields',
			name: 'callbackDataFields',
			type: 'string',
			default: '',
			placeholder: 'e.g. lead_number',
			displayOptions: byFieldName,
			description:
				'Fields of each item, separated by commas, that come back unchanged with each call result of that person',
		},
		{
			displayName: 'Time Zone Field',
			name: 'timezoneField',
			type: 'string',
			default: '',
			placeholder: 'e.g. timezone',
			displayOptions: byFieldName,
			description:
				'Field holding the time zone as seconds (10800) or an offset (+03:00); leave empty to let the service choose',
		},
		...(withExternalId
			? [
					{
						displayName: 'Client External ID Field',
						name: 'clientExternalIdField',
						type: 'string',
						default: '',
						placeholder: 'e.g. lead_number',
						displayOptions: byFieldName,
						description: promisesOnce
							? 'Field holding your ID for the client; the platform adds a repeated ID to a task only once'
							: 'Field holding your ID for the client (for example the CRM ID), passed on to the service with the candidate',
					} as INodeProperties,
				]
			: []),
	];
}
