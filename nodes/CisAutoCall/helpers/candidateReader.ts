import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { parseTimezone } from '../../shared/convert';
import type { CandidateKind } from '../descriptions/candidateFields';
import type { ReadItemParameter } from '../../shared/parameterReaders';
import type { ReadItemPhones } from '../../shared/phones';
import { readCallbackData } from './callbackData';
import { fieldAt } from './itemPaths';
import {
	describeValue,
	InputError,
	isPlainObject,
	optionalString,
	requireNestingWithin,
	requireString,
	setUserKey,
	toVariables,
} from '../../shared/validation';

/**
 * How the candidate operations read a candidate: from fields the user defines (expressions
 * resolved per item), or straight from each input item by field name (parameters read once per run,
 * which is what makes thousands of rows fast).
 */

/** A candidate as read from one item, before it becomes a request body. */
export interface Candidate {
	phone: string[];
	variables?: Record<string, string>;
	callbackData?: IDataObject;
	timezone?: number;
	clientExternalId?: string;
	checkPhone?: boolean;
}

function splitNames(value: unknown): string[] {
	return String(value ?? '')
		.split(',')
		.map((name) => name.trim())
		.filter((name) => name !== '');
}

function pairsToObject(value: unknown): IDataObject {
	const pairs = ((value as IDataObject | undefined)?.variable ?? []) as IDataObject[];
	const result: IDataObject = {};
	pairs.forEach((pair, index) => {
		const name = optionalString(pair.name, `variables[${index}].name`);
		if (name !== undefined) setUserKey(result, `variables[${index}].name`, name, pair.value);
		else if (optionalString(pair.value, `variables[${index}].value`) !== undefined) {
			throw new InputError(
				`variables[${index}].name`,
				pair.name,
				`is empty while the value is ${describeValue(pair.value)}; enter the variable's name`,
			);
		}
	});
	return result;
}

/** Field-name parameters of the by-field-name mode, with what their field holds (for messages). */
export const FIELD_NAME_PARAMETERS = {
	phoneField: 'the phone number(s)',
	variablesFields: 'variables',
	callbackDataFields: 'callback data',
	timezoneField: 'the time zone',
	clientExternalIdField: 'your ID for the client',
} as const;

function fieldsOf(json: IDataObject): string {
	const names = Object.keys(json);
	if (names.length === 0) return 'it has no fields';
	return `its fields: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ', …' : ''}`;
}

/**
 * These parameters want a field NAME. A value dragged in ({{ $json.phone }}) arrives as the value
 * of the first item ("79990001111"), which names no field: say that in plain words, before any
 * request, instead of reporting an empty phone.
 */
function refuseValueAsFieldName(
	parameterName: keyof typeof FIELD_NAME_PARAMETERS,
	fieldName: string,
	json: IDataObject,
): void {
	if (fieldAt(json, fieldName) !== undefined) return;
	const holder = Object.keys(json).find((key) => {
		const value = json[key];
		return (
			(typeof value === 'string' || typeof value === 'number') && String(value).trim() === fieldName
		);
	});
	if (holder === undefined) return;
	throw new InputError(
		parameterName,
		fieldName,
		`is a value (the item's field "${holder}"), not a field name. Enter the name of the field, ${holder}, as plain text, not an expression such as {{ $json.${holder} }}`,
	);
}

/** The value of a field the item must have; a name that is not a field of the item is refused. */
function readRequiredField(
	json: IDataObject,
	parameterName: keyof typeof FIELD_NAME_PARAMETERS,
	fieldName: string,
): unknown {
	const value = fieldAt(json, fieldName);
	if (value === undefined) {
		throw new InputError(
			parameterName,
			fieldName,
			`names no field of this item (${fieldsOf(json)}); enter the name of the field that holds ${FIELD_NAME_PARAMETERS[parameterName]}`,
		);
	}
	return value;
}

interface FieldNames {
	phoneField: string;
	variablesFields: string[];
	callbackDataFields: string[];
	timezoneField: string;
	clientExternalIdField: string;
}

/**
 * The field names for one item. A name without an expression is resolved once per run (see
 * perRunParameters); one given by an expression is resolved for this item, like any parameter.
 */
function readFieldNames(
	parameter: ReadItemParameter,
	itemIndex: number,
	kind: CandidateKind,
	json: IDataObject,
): FieldNames {
	const names: FieldNames = {
		phoneField: requireString('phoneField', parameter('phoneField', itemIndex, 'phone')),
		variablesFields: splitNames(parameter('variablesFields', itemIndex, '')),
		callbackDataFields: splitNames(parameter('callbackDataFields', itemIndex, '')),
		timezoneField: String(parameter('timezoneField', itemIndex, '')).trim(),
		clientExternalIdField:
			kind === 'single' ? '' : String(parameter('clientExternalIdField', itemIndex, '')).trim(),
	};
	refuseValueAsFieldName('phoneField', names.phoneField, json);
	for (const name of names.variablesFields) refuseValueAsFieldName('variablesFields', name, json);
	for (const name of names.callbackDataFields)
		refuseValueAsFieldName('callbackDataFields', name, json);
	if (names.timezoneField) refuseValueAsFieldName('timezoneField', names.timezoneField, json);
	if (names.clientExternalIdField)
		refuseValueAsFieldName('clientExternalIdField', names.clientExternalIdField, json);
	return names;
}

function readTimezone(value: unknown, custom: unknown): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (value === 'custom') return parseTimezone('timezoneSeconds', custom);
	return parseTimezone('timezone', value);
}

/**
 * Returns a reader: item index → candidate. Throws InputError (the caller adds the item). `readPhones`:
 * the run's one reading of phones (Default Country and the number rules).
 */
export function candidateReader(
	parameter: ReadItemParameter,
	items: INodeExecutionData[],
	kind: CandidateKind,
	readPhones: ReadItemPhones,
): (itemIndex: number) => Candidate {
	const mode = parameter('inputMode', 0, 'define') as string;
	if (mode === 'fromItems') {
		return (itemIndex) => {
			const json = items[itemIndex].json;
			const {
				phoneField,
				variablesFields,
				callbackDataFields,
				timezoneField,
				clientExternalIdField,
			} = readFieldNames(parameter, itemIndex, kind, json);
			const phones = readRequiredField(json, 'phoneField', phoneField);
			const candidate: Candidate = {
				phone: readPhones(`phone (field "${phoneField}")`, phones, itemIndex),
			};
			if (variablesFields.length > 0) {
				const variables: IDataObject = {};
				for (const name of variablesFields) {
					const value = fieldAt(json, name);
					if (isPlainObject(value)) {
						for (const [key, entry] of Object.entries(value))
							setUserKey(variables, `variables (field "${name}")`, key, entry);
					} else if (value !== undefined && value !== null)
						setUserKey(variables, `variables (field "${name}")`, name, value);
				}
				candidate.variables = toVariables('variables', variables);
			}
			if (callbackDataFields.length > 0) {
				const callbackData: IDataObject = {};
				for (const name of callbackDataFields) {
					const value = fieldAt(json, name);
					if (value !== undefined)
						setUserKey(callbackData, `callbackData (field "${name}")`, name, value);
				}
				requireNestingWithin('callbackData', callbackData);
				candidate.callbackData = callbackData;
			}
			if (timezoneField) {
				const value = fieldAt(json, timezoneField);
				if (value !== undefined && value !== null && value !== '') {
					candidate.timezone = parseTimezone(`timezone (field "${timezoneField}")`, value);
				}
			}
			if (clientExternalIdField) {
				const value = optionalString(
					fieldAt(json, clientExternalIdField),
					`clientExternalId (field "${clientExternalIdField}")`,
				);
				if (value !== undefined) candidate.clientExternalId = value;
			}
			return candidate;
		};
	}
	return (itemIndex) => {
		const extra = parameter('candidateFields', itemIndex, {}) as IDataObject;
		const candidate: Candidate = {
			phone: readPhones('phone', parameter('phone', itemIndex), itemIndex),
		};
		const jsonVariables = toVariables('variablesJson', extra.variablesJson) ?? {};
		const pairVariables = toVariables('variables', pairsToObject(extra.variables)) ?? {};
		if (Object.keys(jsonVariables).length + Object.keys(pairVariables).length > 0) {
			candidate.variables = { ...jsonVariables, ...pairVariables };
		}
		const callbackData = readCallbackData(extra);
		if (callbackData) candidate.callbackData = callbackData;
		const timezone = readTimezone(extra.timezone, extra.timezoneSeconds);
		if (timezone !== undefined) candidate.timezone = timezone;
		const clientExternalId = optionalString(extra.clientExternalId, 'clientExternalId');
		if (kind !== 'single' && clientExternalId !== undefined)
			candidate.clientExternalId = clientExternalId;
		return candidate;
	};
}
