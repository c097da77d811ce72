import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { callTaskFields } from '../shared/callTaskFields';
import { inTriggerWords } from './words';

/**
 * The short panel of "New Call Task" (trigger version 2): what is required and when the task starts
 * stay on the panel; everything else, with defaults a first-time user can keep, sits in two
 * collections. Versions 1 and 1.1 keep every field on the panel. The parameter names are those of
 * version 1, so one reader (`readerFor`) serves both layouts.
 */

/** The first version with the short panel. */
export const SHORT_PANEL_VERSION = 2;

/** Call-task fields that stay on the panel in version 2. */
const ON_PANEL = ['name', 'defaultExecData', 'startType', 'startMoment'];

/** Call-task fields (top level in version 1) that version 2 keeps in "Campaign Settings". */
const CAMPAIGN_FIELDS = [
	'secondExec',
	'secondExecData',
	'cidType',
	'cidData',
	'callWindow',
	'allowCallTimeFrom',
	'allowCallTimeTo',
	'cpsMode',
	'callsPerSecond',
	'secondsBetweenCalls',
	'cps',
	'fullListTime',
	'recordCall',
	'recTrimLeft',
	'redialStrategyEn',
	'redialRules',
];
/** Entries of version 1's "Additional Fields" that version 2 keeps in "Campaign Settings". */
const CAMPAIGN_EXTRAS = ['callStrategy', 'candidateLimit', 'numberLimit', 'scheduleId', 'lifetime', 'taskComment', 'sendReportAfterFinish'];
/** Entries of version 1's "Additional Fields" that version 2 keeps in "Advanced". */
const ADVANCED_EXTRAS = ['checkPhone', 'detectRobot', 'detectRobotMode', 'detectRobotGreeting', 'phoneNormalization', 'normalizationErrorAction', 'providerId', 'extraFields'];
/** Trigger fields (top level in version 1) that version 2 keeps in "Advanced". */
const ADVANCED_FIELDS = ['partialResults', 'delay', 'oldTask'];

const byName = (fields: INodeProperties[], names: string[]) =>
	names.map((name) => {
		const field = fields.find((candidate) => candidate.name === name);
		if (!field) throw new Error(`No call-task field named ${name}`);
		return field;
	});

const extras = (callTaskFields.find((field) => field.name === 'additionalFields')?.options ?? []) as INodeProperties[];

/**
 * A field moved into a collection: never "required" there (the default applies), and shown while
 * the field it depends on is left out (its default then applies too).
 */
function inCollection(field: INodeProperties): INodeProperties {
	const { required: _required, ...rest } = field;
	const moved: INodeProperties = { ...rest };
	if (field.name === 'callsPerSecond') moved.displayOptions = { hide: { cpsMode: ['everyNSeconds', 'raw'] } };
	if (field.name === 'recTrimLeft') moved.displayOptions = { hide: { recordCall: [false] } };
	if (field.name === 'allowCallTimeFrom' || field.name === 'allowCallTimeTo') {
		moved.description = `${field.description} Applies with Call Window "Between Set Hours": in each person's own time zone.`;
	}
	return moved;
}

/** Version 2's panel for New Call Task: fields on the panel, then "Campaign Settings" and "Advanced". */
export function shortPanel(triggerFields: INodeProperties[]): INodeProperties[] {
	const shared = inTriggerWords(callTaskFields);
	return [
		...byName(shared, ON_PANEL),
		{
			displayName: 'Campaign Settings',
			name: 'campaignSettings',
			type: 'collection',
			placeholder: 'Add Setting',
			default: {},
			description: 'How the task calls: caller number, call window, pace, recording, redials and limits. The defaults suit a first task.',
			options: [...byName(shared, CAMPAIGN_FIELDS), ...byName(inTriggerWords(extras), CAMPAIGN_EXTRAS)].map(inCollection),
		},
		{
			displayName: 'Advanced',
			name: 'advanced',
			type: 'collection',
			placeholder: 'Add Setting',
			default: {},
			options: [...byName(triggerFields, ADVANCED_FIELDS), ...byName(inTriggerWords(extras), ADVANCED_EXTRAS)].map(inCollection),
		},
	];
}

type Read = (name: string, fallback: unknown) => unknown;

const DEFAULTS: Record<string, unknown> = {};
for (const field of [...callTaskFields, ...extras]) DEFAULTS[field.name] ??= field.default;

function pick(source: IDataObject, names: string[]): IDataObject {
	const picked: IDataObject = {};
	for (const name of names) if (source[name] !== undefined) picked[name] = source[name];
	return picked;
}

/**
 * Reads version 2's parameters by version 1's names: a field kept in a collection is read there
 * (its default when left out), and "additionalFields" is put together from both collections, so
 * that the call task's body is built by the one shared rule for every version.
 */
export function readerFor(read: Read, typeVersion: number): Read {
	if (typeVersion < SHORT_PANEL_VERSION) return read;
	const collection = (name: string) => (read(name, {}) ?? {}) as IDataObject;
	return (name, fallback) => {
		if (CAMPAIGN_FIELDS.includes(name)) {
			const value = collection('campaignSettings')[name];
			return value !== undefined ? value : (fallback ?? DEFAULTS[name]);
		}
		if (ADVANCED_FIELDS.includes(name)) {
			const value = collection('advanced')[name];
			return value !== undefined ? value : fallback;
		}
		if (name === 'additionalFields') {
			return { ...pick(collection('campaignSettings'), CAMPAIGN_EXTRAS), ...pick(collection('advanced'), ADVANCED_EXTRAS) };
		}
		return read(name, fallback);
	};
}
