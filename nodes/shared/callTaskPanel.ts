import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { callTaskFields } from './callTaskFields';
import type { ReadParameter } from './parameterReaders';
import { withoutKey } from './convert';

/**
 * The short panel of a new call task, shared by the action node's Call Task → Create and the
 * trigger's "New Call Task" (each from its version 2): what is required and when the task starts
 * stay on the panel; everything else, with defaults a first-time user can keep, sits in "Campaign
 * Settings" and "Advanced". Earlier versions keep every field on the panel under the same
 * parameter names, so one reader (`shortPanelReader`) lets one body builder serve both layouts.
 */

/** Call-task fields that stay on the panel. */
const ON_PANEL = ['name', 'defaultExecData', 'startType', 'startMoment'];

/** Call-task fields (top level on the full panel) kept in "Campaign Settings". */
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
/** Entries of the full panel's "Additional Fields" kept in "Campaign Settings". */
const CAMPAIGN_EXTRAS = [
	'callStrategy',
	'candidateLimit',
	'numberLimit',
	'scheduleId',
	'lifetime',
	'taskComment',
	'sendReportAfterFinish',
];
/** Entries of the full panel's "Additional Fields" kept in "Advanced". */
const ADVANCED_EXTRAS = [
	'checkPhone',
	'detectRobot',
	'detectRobotMode',
	'detectRobotGreeting',
	'phoneNormalization',
	'normalizationErrorAction',
	'providerId',
	'extraFields',
];

const byName = (fields: INodeProperties[], names: string[]) =>
	names.map((name) => {
		const field = fields.find((candidate) => candidate.name === name);
		if (!field) throw new Error(`No call-task field named ${name}`);
		return field;
	});

const extras = (callTaskFields.find((field) => field.name === 'additionalFields')?.options ??
	[]) as INodeProperties[];

/**
 * A field moved into a collection: never "required" there (the default applies), and shown while
 * the field it depends on is left out (its default then applies too).
 */
function inCollection(field: INodeProperties): INodeProperties {
	const moved: INodeProperties = withoutKey(field, 'required');
	if (field.name === 'callsPerSecond')
		moved.displayOptions = { hide: { cpsMode: ['everyNSeconds', 'raw'] } };
	if (field.name === 'recTrimLeft') moved.displayOptions = { hide: { recordCall: [false] } };
	if (field.name === 'allowCallTimeFrom' || field.name === 'allowCallTimeTo') {
		const applies =
			'Applies with Call Window "Between Set Hours": in each person\'s own time zone.';
		moved.hint = field.hint ? `${applies} ${field.hint}` : applies;
	}
	return moved;
}

export interface ShortPanelOptions {
	/** The node's words for the shared fields (the trigger rewrites a few texts). */
	words?: (fields: INodeProperties[]) => INodeProperties[];
	/** The node's own fields that go into "Advanced", first. */
	advanced?: INodeProperties[];
}

/** The short panel: fields on the panel, then "Campaign Settings" and "Advanced". */
export function shortCallTaskPanel({
	words = (fields) => fields,
	advanced = [],
}: ShortPanelOptions = {}): INodeProperties[] {
	const shared = words(callTaskFields);
	return [
		...byName(shared, ON_PANEL),
		{
			displayName: 'Campaign Settings',
			name: 'campaignSettings',
			type: 'collection',
			placeholder: 'Add Setting',
			default: {},
			description:
				'How the task calls: caller number, call window, pace, recording, redials and limits; the defaults suit a first task',
			options: [...byName(shared, CAMPAIGN_FIELDS), ...byName(words(extras), CAMPAIGN_EXTRAS)].map(
				inCollection,
			),
		},
		{
			displayName: 'Advanced',
			name: 'advanced',
			type: 'collection',
			placeholder: 'Add Setting',
			default: {},
			options: [...advanced, ...byName(words(extras), ADVANCED_EXTRAS)].map(inCollection),
		},
	];
}

const DEFAULTS: Record<string, unknown> = {};
for (const field of [...callTaskFields, ...extras]) DEFAULTS[field.name] ??= field.default;

function pick(source: IDataObject, names: string[]): IDataObject {
	const picked: IDataObject = {};
	for (const name of names) if (source[name] !== undefined) picked[name] = source[name];
	return picked;
}

/**
 * Reads the short panel's parameters by the full panel's names: a field kept in a collection is
 * read there (its default when left out), and "additionalFields" is put together from both
 * collections. `advancedNames`: the node's own fields kept in "Advanced".
 */
export function shortPanelReader(read: ReadParameter, advancedNames: string[] = []): ReadParameter {
	const collection = (name: string) => (read(name, {}) ?? {}) as IDataObject;
	return (name, fallback) => {
		if (CAMPAIGN_FIELDS.includes(name)) {
			const value = collection('campaignSettings')[name];
			return value !== undefined ? value : (fallback ?? DEFAULTS[name]);
		}
		if (advancedNames.includes(name)) {
			const value = collection('advanced')[name];
			return value !== undefined ? value : fallback;
		}
		if (name === 'additionalFields') {
			return {
				...pick(collection('campaignSettings'), CAMPAIGN_EXTRAS),
				...pick(collection('advanced'), ADVANCED_EXTRAS),
			};
		}
		return read(name, fallback);
	};
}
