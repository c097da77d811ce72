import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { CPS_FIELDS, toCps, timeOfDayToSeconds, toStartMoment, type CpsMode } from './convert';
import {
	describeValue,
	InputError,
	isPlainObject,
	optionalString,
	requireInteger,
	requireOption,
	requireString,
	setUserKey,
	toObject,
} from './validation';

/**
 * The fields of a call task (spec 4.6), shared by the action node (Call Task → Create) and by the
 * trigger (New Call Task). Each node reads its webhook targets its own way and adds them to the
 * body with addWebhookTargets, the one rule for targets.
 */

const REDIAL_RULES = [
	{ name: 'busy', displayName: 'Busy' },
	{ name: 'noAnswer', displayName: 'No Answer' },
	{ name: 'answerMash', displayName: 'Answering Machine' },
	{ name: 'congestion', displayName: 'Call Error (Congestion)' },
	{ name: 'answerNoList', displayName: 'Unsuccessful Call' },
] as const;

export const callTaskFields: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. November leads',
		description: 'Name of the call task',
	},
	{
		displayName: 'Bot Script ID',
		name: 'defaultExecData',
		type: 'string',
		required: true,
		default: '',
		description: 'Identifier of the bot script that talks to the candidates',
	},
	{
		displayName: 'On Transfer',
		name: 'secondExec',
		type: 'options',
		options: [
			{ name: 'End Call', value: 'end' },
			{ name: 'Do Nothing', value: 'ignore' },
			{ name: 'Forward to Channel', value: 'ch' },
		],
		default: 'end',
		description: 'What happens when the script forwards the call',
	},
	{
		displayName: 'Channel ID',
		name: 'secondExecData',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: { secondExec: ['ch'] } },
		description: 'Identifier of the channel the call is forwarded to',
	},
	{
		displayName: 'Caller Number',
		name: 'cidType',
		type: 'options',
		options: [
			{ name: 'Default for the Trunk', value: 'default' },
			{ name: 'Single Number', value: 'gornum' },
			{ name: 'Pool of Numbers', value: 'pool' },
		],
		default: 'default',
		description: 'Which number the candidates see',
	},
	{
		displayName: 'Caller Number or Pool ID',
		name: 'cidData',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: { cidType: ['gornum', 'pool'] } },
		description: 'Identifier of the number or of the pool of numbers',
	},
	{
		displayName: 'Start',
		name: 'startType',
		type: 'options',
		options: [
			{ name: 'Manually', value: 'manual' },
			{ name: 'At a Time', value: 'time' },
		],
		default: 'manual',
		description: 'When the task starts calling',
	},
	{
		displayName: 'Start Moment',
		name: 'startMoment',
		type: 'dateTime',
		required: true,
		default: '',
		displayOptions: { show: { startType: ['time'] } },
		description: 'When the task starts; sent as YYYY-MM-DD HH:MM in the workflow\'s time zone',
	},
	{
		displayName: 'Call Window',
		name: 'callWindow',
		type: 'options',
		options: [
			{
				name: 'Any Time of Day',
				value: 'anyTime',
				description: 'No time-of-day window is set; a Schedule ID, if given, still applies',
			},
			{
				name: 'Between Set Hours, in the Candidate\'s Time Zone',
				value: 'candidateTime',
				description: 'Calls only between the hours below, in each candidate\'s own time zone',
			},
		],
		default: 'anyTime',
		description: 'When in the day people may be called',
	},
	{
		displayName: 'Call Window From',
		name: 'allowCallTimeFrom',
		type: 'string',
		default: '09:00',
		placeholder: 'e.g. 09:00',
		displayOptions: { show: { callWindow: ['candidateTime'] } },
		description: 'First time of day when calls are allowed, as HH:MM in the candidate\'s time zone',
	},
	{
		displayName: 'Call Window To',
		name: 'allowCallTimeTo',
		type: 'string',
		default: '21:00',
		placeholder: 'e.g. 21:00',
		displayOptions: { show: { callWindow: ['candidateTime'] } },
		description:
			'Last time of day when calls are allowed, as HH:MM in the candidate\'s time zone, after Call Window From on the same day. For calls overnight, choose Any Time of Day and give a Schedule ID.',
	},
	{
		displayName:
			'The hours are in each candidate\'s own time zone: the Time Zone given with the candidate, otherwise the one the service derives from the phone number.',
		name: 'callWindowNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { callWindow: ['candidateTime'] } },
	},
	{
		displayName: 'Call Intensity',
		name: 'cpsMode',
		type: 'options',
		options: [
			{ name: 'N Calls per Second', value: 'perSecond' },
			{ name: 'One Call Every N Seconds', value: 'everyNSeconds' },
			{ name: 'Raw Value (Cps)', value: 'raw' },
		],
		default: 'perSecond',
		description: 'How fast the task dials',
	},
	{
		displayName: 'Calls per Second',
		name: 'callsPerSecond',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 100 },
		default: 1,
		displayOptions: { show: { cpsMode: ['perSecond'] } },
		description: 'Sent as cps = 1 + N/100 (3 calls per second → 1.03)',
	},
	{
		displayName: 'Seconds Between Calls',
		name: 'secondsBetweenCalls',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 99 },
		default: 5,
		displayOptions: { show: { cpsMode: ['everyNSeconds'] } },
		description: 'Sent as cps = 1 − N/100 (one call every 3 seconds → 0.97)',
	},
	{
		displayName: 'Cps',
		name: 'cps',
		type: 'number',
		typeOptions: { numberPrecision: 4 },
		default: 1.01,
		displayOptions: { show: { cpsMode: ['raw'] } },
		description: 'The platform\'s own intensity value, sent as it is',
	},
	{
		displayName: 'Successful After (Seconds)',
		name: 'fullListTime',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 30,
		description: 'Seconds of conversation after which a call counts as successful',
	},
	{
		displayName: 'Record Calls',
		name: 'recordCall',
		type: 'boolean',
		default: true,
		description: 'Whether calls are recorded',
	},
	{
		displayName: 'Trim Recording Start (Seconds)',
		name: 'recTrimLeft',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		displayOptions: { show: { recordCall: [true] } },
		description: 'Seconds cut from the beginning of each recording',
	},
	{
		displayName: 'Use Redial Rules',
		name: 'redialStrategyEn',
		type: 'boolean',
		default: false,
		description: 'Whether unsuccessful calls are redialled by the rules below',
	},
	{
		displayName: 'Redial Rules',
		name: 'redialRules',
		type: 'fixedCollection',
		placeholder: 'Add Rule',
		default: {},
		displayOptions: { show: { redialStrategyEn: [true] } },
		options: REDIAL_RULES.map(({ name, displayName }) => ({
			displayName,
			name,
			values: [
				{
					displayName: 'Redial',
					name: 'redial',
					type: 'boolean',
					default: true,
					description: `Whether to call again after "${displayName}"`,
				},
				{
					displayName: 'Delay (Seconds)',
					name: 'time',
					type: 'number',
					typeOptions: { minValue: 0 },
					default: 600,
					displayOptions: { show: { redial: [true] } },
					description: 'Wait before calling again',
				},
				{
					displayName: 'Redials',
					name: 'count',
					type: 'number',
					typeOptions: { minValue: 0 },
					default: 2,
					displayOptions: { show: { redial: [true] } },
					description: 'How many times to call again',
				},
			],
		})),
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Call Strategy',
				name: 'callStrategy',
				type: 'options',
				options: [
					{
						name: 'Step by Step',
						value: 'STEP_2_STEP',
						description: 'All attempts on the first number, then all on the next',
					},
					{
						name: 'Parallel',
						value: 'PARALLEL',
						description:
							'Next number when one cannot be reached; needs more than one call per second, so it is refused with "One Call Every N Seconds"',
					},
				],
				default: 'STEP_2_STEP',
			},
			// Version 0.1.0 kept the call window here. Shown only where a saved workflow has it, so
			// that its window keeps applying (n8n drops values of options that are not there).
			{
				displayName: 'Call Window From (Older Setting)',
				name: 'allowCallTimeFrom',
				type: 'string',
				default: '09:00',
				displayOptions: { show: { useTr: [true] } },
				description: 'Kept from an earlier version of this node; remove these older settings and use Call Window above',
			},
			{
				displayName: 'Call Window To (Older Setting)',
				name: 'allowCallTimeTo',
				type: 'string',
				default: '21:00',
				displayOptions: { show: { useTr: [true] } },
				description: 'Kept from an earlier version of this node; remove these older settings and use Call Window above',
			},
			{
				displayName: 'Caller Time Zone Window (Older Setting)',
				name: 'useTr',
				type: 'boolean',
				default: false,
				displayOptions: { show: { useTr: [true, false] } },
				description:
					'Whether the older call window applies. Kept from an earlier version of this node and still applied while set; remove it and use Call Window above.',
			},
			{
				displayName: 'Candidate Limit',
				name: 'candidateLimit',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 3,
				description:
					'Most calls made to one candidate, over all their numbers and redials; 0 = no limit. Not added here: the service\'s default applies.',
			},
			{
				displayName: 'Check Phones',
				name: 'checkPhone',
				type: 'boolean',
				default: false,
				description: 'Whether the service checks that numbers are valid',
			},
			{
				displayName: 'Comment',
				name: 'taskComment',
				type: 'string',
				default: '',
			},
			{
				displayName: 'Detect Robots',
				name: 'detectRobot',
				type: 'boolean',
				default: false,
				description: 'Whether the service detects answering machines and robots',
			},
			{
				displayName: 'Detection Greeting Audio ID',
				name: 'detectRobotGreeting',
				type: 'string',
				default: '',
				displayOptions: { show: { detectRobot: [true], detectRobotMode: ['block'] } },
				description: 'Identifier of the audio file played at the start of the call while detecting',
			},
			{
				displayName: 'Detection Mode',
				name: 'detectRobotMode',
				type: 'options',
				options: [
					{ name: 'Background', value: 'back' },
					{ name: 'Blocking', value: 'block' },
				],
				default: 'back',
				displayOptions: { show: { detectRobot: [true] } },
			},
			{
				displayName: 'Extra Body Fields (JSON)',
				name: 'extraFields',
				type: 'json',
				default: '{}',
				description:
					'Fields merged into the request last, for options the node does not show yet (for example {"additionalOptions": {"fz230": true}}); webhookUrls given here are added to the webhook targets, not replacing them',
			},
			{
				displayName: 'Lifetime (Seconds)',
				name: 'lifetime',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 86400,
				description: 'After this time the task is halted; leave the field out to run indefinitely',
			},
			{
				displayName: 'Normalization Error Action',
				name: 'normalizationErrorAction',
				type: 'options',
				options: [
					{ name: 'Skip the Number', value: 'IGNORE_NORMALIZATION_ERROR' },
					{ name: 'Keep It, Marked as Not Normalizable', value: 'SET_NORMALIZATION_ERROR_FLAG' },
				],
				default: 'IGNORE_NORMALIZATION_ERROR',
				displayOptions: { show: { phoneNormalization: ['RU'] } },
			},
			{
				displayName: 'Number Limit',
				name: 'numberLimit',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 3,
				description:
					'Most calls made to one phone number, redials included; 0 = no limit. Not added here: the service\'s default applies.',
			},
			{
				displayName: 'Phone Normalization',
				name: 'phoneNormalization',
				type: 'options',
				options: [
					{ name: 'Disabled', value: 'none' },
					{ name: 'RU Number Format', value: 'RU' },
				],
				default: 'none',
			},
			{
				displayName: 'Provider (Trunk) ID',
				name: 'providerId',
				type: 'string',
				default: '',
				description: 'Trunk UUID; only with a custom trunk',
			},
			{
				displayName: 'Schedule ID',
				name: 'scheduleId',
				type: 'string',
				default: '',
				description: 'Identifier of a call schedule',
			},
			{
				displayName: 'Send Report After Finish',
				name: 'sendReportAfterFinish',
				type: 'boolean',
				default: false,
				description: 'Whether a report is e-mailed when the task finishes',
			},
		],
	},
];

export type ReadParameter = (name: string, fallback?: unknown) => unknown;

function nonNegative(field: string, value: unknown): number {
	return requireInteger(field, value, { min: 0 });
}

/** A limit is a number (0 = no limit); workflows saved with 0.1.0 hold {limit: {redial, count}}. */
function readLimit(field: string, value: unknown): IDataObject | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (isPlainObject(value)) {
		const limit = value.limit as IDataObject | undefined;
		if (!limit) return undefined;
		const redial = limit.redial !== false;
		return redial ? { redial, count: nonNegative(`${field}.count`, limit.count) } : { redial };
	}
	const count = nonNegative(field, value);
	return count === 0 ? { redial: false } : { redial: true, count };
}

const SECOND_EXEC = ['end', 'ignore', 'ch'] as const;
const CID_TYPES = ['default', 'gornum', 'pool'] as const;
const START_TYPES = ['manual', 'time'] as const;
const CPS_MODES = ['perSecond', 'everyNSeconds', 'raw'] as const;
const CALL_WINDOWS = ['anyTime', 'candidateTime'] as const;

/** Builds the body of spec 4.6 from the fields above; checks everything before a request is sent. */
export function buildCallTaskBody(read: ReadParameter, timeZone: string): IDataObject {
	const secondExec = requireOption('secondExec', read('secondExec', 'end'), SECOND_EXEC);
	const cidType = requireOption('cidType', read('cidType', 'default'), CID_TYPES);
	const startType = requireOption('startType', read('startType', 'manual'), START_TYPES);
	const cpsMode: CpsMode = requireOption('cpsMode', read('cpsMode', 'perSecond'), CPS_MODES);
	const recordCall = read('recordCall', true) as boolean;
	const redialStrategyEn = read('redialStrategyEn', false) as boolean;
	const extra = read('additionalFields', {}) as IDataObject;

	const body: IDataObject = {
		name: requireString('name', read('name')),
		defaultExec: 'robot',
		defaultExecData: requireString('defaultExecData', read('defaultExecData')),
		secondExec,
		cidType,
		startType,
		cps: toCps(cpsMode, read(CPS_FIELDS[cpsMode])),
	};
	if (secondExec === 'ch') body.secondExecData = requireString('secondExecData', read('secondExecData'));
	if (cidType === 'gornum' || cidType === 'pool') body.cidData = requireString('cidData', read('cidData'));
	if (startType === 'time') body.startMoment = toStartMoment('startMoment', read('startMoment'), timeZone);

	for (const key of ['taskComment', 'scheduleId'] as const) {
		const value = optionalString(extra[key], key);
		if (value !== undefined) body[key] = value;
	}
	if (extra.callStrategy !== undefined) {
		body.callStrategy = requireOption('callStrategy', extra.callStrategy, ['STEP_2_STEP', 'PARALLEL']);
	}
	for (const key of ['checkPhone', 'sendReportAfterFinish'] as const) {
		if (typeof extra[key] === 'boolean') body[key] = extra[key];
	}
	if (extra.lifetime !== undefined && extra.lifetime !== '') {
		body.lifetime = requireInteger('lifetime', extra.lifetime, { min: 1 });
	}
	if (extra.phoneNormalization !== undefined) {
		const normalization = requireOption('phoneNormalization', extra.phoneNormalization, ['none', 'RU']);
		body.phoneNormalization = normalization === 'RU' ? 'RU' : null;
		if (normalization === 'RU') {
			body.normalizationErrorAction = requireOption(
				'normalizationErrorAction',
				extra.normalizationErrorAction ?? 'IGNORE_NORMALIZATION_ERROR',
				['IGNORE_NORMALIZATION_ERROR', 'SET_NORMALIZATION_ERROR_FLAG'],
			);
		}
	}

	const additionalOptions: IDataObject = {
		fullListMethod: 'reject',
		fullListTime: nonNegative('fullListTime', read('fullListTime', 30)),
		recordCall,
	};
	if (recordCall) additionalOptions.recTrimLeft = nonNegative('recTrimLeft', read('recTrimLeft', 0));
	const callWindow = requireOption('callWindow', read('callWindow', 'anyTime'), CALL_WINDOWS);
	if (callWindow === 'candidateTime') {
		additionalOptions.useTr = true;
		Object.assign(additionalOptions, readCallWindow(read('allowCallTimeFrom'), read('allowCallTimeTo')));
	} else if (extra.useTr === true) {
		// Workflows saved with 0.1.0 kept the window under Additional Fields.
		additionalOptions.useTr = true;
		Object.assign(additionalOptions, readCallWindow(extra.allowCallTimeFrom ?? '09:00', extra.allowCallTimeTo ?? '21:00'));
	} else if (extra.useTr === false) {
		additionalOptions.useTr = false;
	}
	if (extra.detectRobot === true) {
		additionalOptions.detectRobot = true;
		const mode = requireOption('detectRobotMode', extra.detectRobotMode ?? 'back', ['back', 'block']);
		additionalOptions.detectRobotMode = mode;
		if (mode === 'block') {
			additionalOptions.detectRobotGreeting = requireString('detectRobotGreeting', extra.detectRobotGreeting);
		}
	} else if (extra.detectRobot === false) {
		additionalOptions.detectRobot = false;
	}
	const providerId = optionalString(extra.providerId, 'providerId');
	if (providerId) additionalOptions.providerId = providerId;
	body.additionalOptions = additionalOptions;

	const rules = (redialStrategyEn ? read('redialRules', {}) : {}) as IDataObject;
	const redialStrategyOptions: IDataObject = { redialStrategyEn };
	for (const { name } of REDIAL_RULES) {
		const rule = rules[name] as IDataObject | undefined;
		redialStrategyOptions[name] =
			rule && rule.redial !== false
				? { redial: true, time: nonNegative(`${name}.time`, rule.time), count: nonNegative(`${name}.count`, rule.count) }
				: { redial: false };
	}
	const candidateLimit = readLimit('candidateLimit', extra.candidateLimit);
	if (candidateLimit) redialStrategyOptions.candidateLimit = candidateLimit;
	const numberLimit = readLimit('numberLimit', extra.numberLimit);
	if (numberLimit) redialStrategyOptions.numberLimit = numberLimit;
	body.redialStrategyOptions = redialStrategyOptions;

	const merged = mergeExtraFields(body, toObject('extraFields', extra.extraFields));
	checkParallelIntensity(merged);
	return merged;
}

/**
 * The window is one interval of one day (spec 4.6: start and end in seconds since midnight): the
 * spec does not say that an end before the start wraps past midnight, so such a window is refused
 * with the way to call overnight instead of being sent for the service to guess.
 */
function readCallWindow(fromValue: unknown, toValue: unknown): { allowCallTimeFrom: number; allowCallTimeTo: number } {
	const from = timeOfDayToSeconds('allowCallTimeFrom', fromValue);
	const to = timeOfDayToSeconds('allowCallTimeTo', toValue);
	if (from === to) {
		throw new InputError('allowCallTimeTo', toValue, `is the window start (${describeValue(fromValue)}): the window would be empty`);
	}
	if (from > to) {
		throw new InputError(
			'allowCallTimeTo',
			toValue,
			`is not after the window start (${describeValue(fromValue)}). The window is one interval within a day and cannot cross midnight; ` +
				'for calls overnight (e.g. 22:00 to 06:00) turn the window off and give a Schedule ID of a call schedule set up in the service',
		);
	}
	return { allowCallTimeFrom: from, allowCallTimeTo: to };
}

/** Spec 4.6: PARALLEL works for several candidates only when cps is above 1 (more than one call per second). */
function checkParallelIntensity(body: IDataObject): void {
	if (body.callStrategy !== 'PARALLEL' || typeof body.cps !== 'number' || body.cps > 1) return;
	const pace = body.cps < 1 ? ` (one call every ${Math.round((1 - body.cps) * 100)} seconds)` : '';
	throw new InputError(
		'callStrategy',
		body.callStrategy,
		`needs more than one call per second to work for several candidates (cps above 1), but the call intensity is cps ${body.cps}${pace}; ` +
			'choose "N Calls per Second" as Call Intensity, or the Step by Step strategy',
	);
}

/** The escape hatch: objects merge one level deep, everything else replaces; webhook targets are added. */
export function mergeExtraFields(body: IDataObject, extra: IDataObject | undefined): IDataObject {
	if (!extra) return body;
	for (const [key, value] of Object.entries(extra)) {
		if (key === 'webhookUrls') addWebhookTargets(body, value, 'extraFields.webhookUrls');
		else setUserKey(body, 'extraFields', key, isPlainObject(value) && isPlainObject(body[key]) ? { ...(body[key] as IDataObject), ...value } : value);
	}
	return body;
}

/**
 * The one rule for webhook targets (Call Task → Create, the trigger, Extra Body Fields): targets
 * are added to those already in the body, never replacing them. A target is an object with `url`
 * (spec 2.4) or a plain URL (the platform's older form). A URL given twice is refused: the
 * service would send every event to it twice.
 */
export function addWebhookTargets(body: IDataObject, targets: unknown, field = 'webhookUrls'): IDataObject {
	const added = Array.isArray(targets) ? targets : isPlainObject(targets) || typeof targets === 'string' ? [targets] : undefined;
	if (!added) {
		throw new InputError(field, targets, 'is not a list of webhook targets; use [{"url": "https://...", "events": {...}}]');
	}
	const current = Array.isArray(body.webhookUrls) ? (body.webhookUrls as unknown[]) : [];
	const seen = new Set(current.map(targetUrl).filter((url) => url !== undefined));
	for (const target of added) {
		if (!isPlainObject(target) && typeof target !== 'string') {
			throw new InputError(field, target, 'is not a webhook target; use {"url": "https://...", "events": {...}} or a URL');
		}
		const url = targetUrl(target);
		if (url !== undefined && seen.has(url)) {
			throw new InputError(
				field,
				withoutQuery(url),
				'is a webhook target already; the service would send each event to it twice. Give each URL once',
			);
		}
		if (url !== undefined) seen.add(url);
	}
	if (current.length + added.length > 0) body.webhookUrls = [...current, ...added] as IDataObject[];
	return body;
}

/** A URL's query may hold a secret (the trigger's does): messages show the address without it. */
function withoutQuery(url: string): string {
	const query = url.search(/[?#]/);
	return query === -1 ? url : `${url.slice(0, query)}?…`;
}

function targetUrl(target: unknown): string | undefined {
	const url = isPlainObject(target) ? target.url : target;
	return typeof url === 'string' ? url.trim() : undefined;
}
