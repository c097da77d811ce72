import type { IDataObject, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { parseTimezone } from './convert';
import type { ReadItemParameter } from './parameters';
import { describeValue, InputError, optionalString, toObject, toPhones, toVariables } from './validation';

/**
 * How the candidate operations read a candidate: from fields the user defines (expressions
 * resolved per item), or straight from each input item by field name (parameters read once per run,
 * which is what makes thousands of rows fast).
 */

export type CandidateKind = 'single' | 'batch' | 'addToTask';

export interface Candidate {
	phone: string[];
	variables?: Record<string, string>;
	callbackData?: IDataObject;
	timezone?: number;
	clientExternalId?: string;
	checkPhone?: boolean;
}

const TIMEZONE_OFFSETS: string[] = [
	...Array.from({ length: 25 }, (_, index) => index - 12).map((hours) => `${hours < 0 ? '-' : '+'}${String(Math.abs(hours)).padStart(2, '0')}:00`),
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

export function candidateFields(kind: CandidateKind): INodeProperties[] {
	const byFieldName = { show: { inputMode: ['fromItems'] } };
	const defined = { show: { inputMode: ['define'] } };
	const withExternalId = kind !== 'single';
	// Only adding to an existing task is de-duplicated by the platform (platform-facts.md); a batch
	// from a template makes a new task, so there the ID is only passed on.
	const promisesOnce = kind === 'addToTask';
	const definedExtras: INodeProperties[] = [
		{
			displayName: 'Callback Data (JSON)',
			name: 'callbackData',
			type: 'json',
			default: '{}',
			description:
				'A JSON object the service returns unchanged in call and candidate events, for example {"crmId": "42"}; use it to find the CRM record when the result comes back',
		},
		...(withExternalId
			? [
					{
						displayName: 'Client External ID',
						name: 'clientExternalId',
						type: 'string',
						default: '',
						description: promisesOnce
							? 'Your ID for this client (for example the CRM ID). The platform adds a repeated ID to a task only once.'
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
			description: 'The candidate\'s time zone; left out, the service picks it from the number',
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
			description: 'Variables as one JSON object of name → text; merged with the name/value pairs (pairs win)',
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
					name: 'Take Fields From Input Items by Name',
					value: 'fromItems',
					description: 'Name the fields of the input items that hold the phone, variables and so on; fastest for thousands of rows',
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
			description: 'Number(s) of the person to call, country code first (79876543210), separated by commas; an expression may also return an array. They are dialled for real: take them from your data or from the person, never make one up.',
		},
		{
			displayName: 'Additional Fields',
			name: 'candidateFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			displayOptions: defined,
			options: definedExtras,
		},
		{
			displayName: 'Phone Field',
			name: 'phoneField',
			type: 'string',
			required: true,
			default: 'phone',
			displayOptions: byFieldName,
			description: 'Field of each input item holding the number(s): a text (commas between numbers) or an array',
		},
		{
			displayName: 'Variables Fields',
			name: 'variablesFields',
			type: 'string',
			default: '',
			placeholder: 'e.g. name, company',
			displayOptions: byFieldName,
			description: 'Fields of each item sent as variables, separated by commas; a field holding an object adds all its entries',
		},
		{
			displayName: 'Callback Data Fields',
			name: 'callbackDataFields',
			type: 'string',
			default: '',
			placeholder: 'e.g. crmId',
			displayOptions: byFieldName,
			description: 'Fields of each item put into callbackData, separated by commas; the service returns them in call and candidate events',
		},
		{
			displayName: 'Time Zone Field',
			name: 'timezoneField',
			type: 'string',
			default: '',
			placeholder: 'e.g. timezone',
			displayOptions: byFieldName,
			description: 'Field holding the time zone as seconds (10800) or an offset (+03:00); leave empty to let the service choose',
		},
		...(withExternalId
			? [
					{
						displayName: 'Client External ID Field',
						name: 'clientExternalIdField',
						type: 'string',
						default: '',
						placeholder: 'e.g. crmId',
						displayOptions: byFieldName,
						description: promisesOnce
							? 'Field holding your ID for the client; the platform adds a repeated ID to a task only once'
							: 'Field holding your ID for the client (for example the CRM ID), passed on to the service with the candidate',
					} as INodeProperties,
				]
			: []),
	];
}

function splitNames(value: unknown): string[] {
	return String(value ?? '')
		.split(',')
		.map((name) => name.trim())
		.filter((name) => name !== '');
}

function readPath(json: IDataObject, path: string): unknown {
	if (path in json) return json[path];
	let current: unknown = json;
	for (const part of path.split('.')) {
		if (typeof current !== 'object' || current === null) return undefined;
		current = (current as IDataObject)[part];
	}
	return current;
}

function pairsToObject(value: unknown): IDataObject {
	const pairs = ((value as IDataObject | undefined)?.variable ?? []) as IDataObject[];
	const result: IDataObject = {};
	pairs.forEach((pair, index) => {
		const name = optionalString(pair.name, `variables[${index}].name`);
		if (name !== undefined) result[name] = pair.value as string;
		else if (optionalString(pair.value, `variables[${index}].value`) !== undefined) {
			throw new InputError(`variables[${index}].name`, pair.name, `is empty while the value is ${describeValue(pair.value)}; enter the variable's name`);
		}
	});
	return result;
}

function readTimezone(value: unknown, custom: unknown): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (value === 'custom') return parseTimezone('timezoneSeconds', custom);
	return parseTimezone('timezone', value);
}

/** Returns a reader: item index → candidate. Throws InputError (the caller adds the item). */
export function candidateReader(
	parameter: ReadItemParameter,
	items: INodeExecutionData[],
	kind: CandidateKind,
): (itemIndex: number) => Candidate {
	const mode = parameter('inputMode', 0, 'define') as string;
	if (mode === 'fromItems') {
		const phoneField = requireRunParameter('phoneField', parameter('phoneField', 0, 'phone'));
		const variablesFields = splitNames(parameter('variablesFields', 0, ''));
		const callbackDataFields = splitNames(parameter('callbackDataFields', 0, ''));
		const timezoneField = String(parameter('timezoneField', 0, '')).trim();
		const clientExternalIdField =
			kind === 'single' ? '' : String(parameter('clientExternalIdField', 0, '')).trim();
		return (itemIndex) => {
			const json = items[itemIndex].json;
			const candidate: Candidate = { phone: toPhones(`phone (field "${phoneField}")`, readPath(json, phoneField)) };
			if (variablesFields.length > 0) {
				const variables: IDataObject = {};
				for (const name of variablesFields) {
					const value = readPath(json, name);
					if (typeof value === 'object' && value !== null && !Array.isArray(value)) Object.assign(variables, value);
					else if (value !== undefined && value !== null) variables[name] = value as string;
				}
				candidate.variables = toVariables('variables', variables);
			}
			if (callbackDataFields.length > 0) {
				const callbackData: IDataObject = {};
				for (const name of callbackDataFields) {
					const value = readPath(json, name);
					if (value !== undefined) callbackData[name] = value as IDataObject;
				}
				candidate.callbackData = callbackData;
			}
			if (timezoneField) {
				const value = readPath(json, timezoneField);
				if (value !== undefined && value !== null && value !== '') {
					candidate.timezone = parseTimezone(`timezone (field "${timezoneField}")`, value);
				}
			}
			if (clientExternalIdField) {
				const value = optionalString(readPath(json, clientExternalIdField), `clientExternalId (field "${clientExternalIdField}")`);
				if (value !== undefined) candidate.clientExternalId = value;
			}
			return candidate;
		};
	}
	return (itemIndex) => {
		const extra = parameter('candidateFields', itemIndex, {}) as IDataObject;
		const candidate: Candidate = { phone: toPhones('phone', parameter('phone', itemIndex)) };
		const jsonVariables = toVariables('variablesJson', extra.variablesJson) ?? {};
		const pairVariables = toVariables('variables', pairsToObject(extra.variables)) ?? {};
		if (Object.keys(jsonVariables).length + Object.keys(pairVariables).length > 0) {
			candidate.variables = { ...jsonVariables, ...pairVariables };
		}
		const callbackData = toObject('callbackData', extra.callbackData);
		if (callbackData && Object.keys(callbackData).length > 0) candidate.callbackData = callbackData;
		const timezone = readTimezone(extra.timezone, extra.timezoneSeconds);
		if (timezone !== undefined) candidate.timezone = timezone;
		const clientExternalId = optionalString(extra.clientExternalId, 'clientExternalId');
		if (kind !== 'single' && clientExternalId !== undefined) candidate.clientExternalId = clientExternalId;
		return candidate;
	};
}

/** Checks a required text parameter that is read once per run (e.g. the bot script). */
export function requireRunParameter(name: string, value: unknown): string {
	const text = optionalString(value, name);
	if (text === undefined) throw new InputError(name, value, 'is empty; enter a value');
	return text;
}
