import type { IDataObject } from 'n8n-workflow';

import { REDIAL_RULES } from './callTaskFields';
import type { ReadParameter } from './parameterReaders';
import { CPS_FIELDS, toCps, timeOfDayToSeconds, toStartMoment, type CpsMode } from './convert';
import {
	describeValue,
	InputError,
	isPlainObject,
	optionalIdText,
	optionalString,
	requireIdText,
	requireInteger,
	requireOption,
	requireString,
	setUserKey,
	toObject,
} from './validation';

/**
 * The body of a call task (4.6 of docs/service.md) built from the fields of callTaskFields.ts, for both nodes.
 * Each node reads its webhook targets its own way and adds them to the body with
 * addWebhookTargets, the one rule for targets.
 */

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

/** Builds the body of a call task (4.6 of docs/service.md) from the fields of callTaskFields.ts; checks everything before a request is sent. */
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
		defaultExecData: requireIdText('defaultExecData', read('defaultExecData')),
		secondExec,
		cidType,
		startType,
		cps: toCps(cpsMode, read(CPS_FIELDS[cpsMode])),
	};
	if (secondExec === 'ch')
		body.secondExecData = requireIdText('secondExecData', read('secondExecData'));
	if (cidType === 'gornum' || cidType === 'pool')
		body.cidData = requireString('cidData', read('cidData'));
	if (startType === 'time')
		body.startMoment = toStartMoment('startMoment', read('startMoment'), timeZone);

	const taskComment = optionalString(extra.taskComment, 'taskComment');
	if (taskComment !== undefined) body.taskComment = taskComment;
	const scheduleId = optionalIdText('scheduleId', extra.scheduleId);
	if (scheduleId !== undefined) body.scheduleId = scheduleId;
	if (extra.callStrategy !== undefined) {
		body.callStrategy = requireOption('callStrategy', extra.callStrategy, [
			'STEP_2_STEP',
			'PARALLEL',
		]);
	}
	for (const key of ['checkPhone', 'sendReportAfterFinish'] as const) {
		if (typeof extra[key] === 'boolean') body[key] = extra[key];
	}
	if (extra.lifetime !== undefined && extra.lifetime !== '') {
		body.lifetime = requireInteger('lifetime', extra.lifetime, { min: 1 });
	}
	if (extra.phoneNormalization !== undefined) {
		const normalization = requireOption('phoneNormalization', extra.phoneNormalization, [
			'none',
			'RU',
		]);
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
	if (recordCall)
		additionalOptions.recTrimLeft = nonNegative('recTrimLeft', read('recTrimLeft', 0));
	const callWindow = requireOption('callWindow', read('callWindow', 'anyTime'), CALL_WINDOWS);
	if (callWindow === 'candidateTime') {
		additionalOptions.useTr = true;
		Object.assign(
			additionalOptions,
			readCallWindow(read('allowCallTimeFrom'), read('allowCallTimeTo')),
		);
	} else if (extra.useTr === true) {
		// Workflows saved with 0.1.0 kept the window under Additional Fields.
		additionalOptions.useTr = true;
		Object.assign(
			additionalOptions,
			readCallWindow(extra.allowCallTimeFrom ?? '09:00', extra.allowCallTimeTo ?? '21:00'),
		);
	} else if (extra.useTr === false) {
		additionalOptions.useTr = false;
	}
	if (extra.detectRobot === true) {
		additionalOptions.detectRobot = true;
		const mode = requireOption('detectRobotMode', extra.detectRobotMode ?? 'back', [
			'back',
			'block',
		]);
		additionalOptions.detectRobotMode = mode;
		if (mode === 'block') {
			additionalOptions.detectRobotGreeting = requireString(
				'detectRobotGreeting',
				extra.detectRobotGreeting,
			);
		}
	} else if (extra.detectRobot === false) {
		additionalOptions.detectRobot = false;
	}
	const providerId = optionalIdText('providerId', extra.providerId);
	if (providerId) additionalOptions.providerId = providerId;
	body.additionalOptions = additionalOptions;

	const rules = (redialStrategyEn ? read('redialRules', {}) : {}) as IDataObject;
	const redialStrategyOptions: IDataObject = { redialStrategyEn };
	for (const { name } of REDIAL_RULES) {
		const rule = rules[name] as IDataObject | undefined;
		redialStrategyOptions[name] =
			rule && rule.redial !== false
				? {
						redial: true,
						time: nonNegative(`${name}.time`, rule.time),
						count: nonNegative(`${name}.count`, rule.count),
					}
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
 * The window is one interval of one day (docs/service.md, Call tasks: start and end in seconds since midnight): the
 * spec does not say that an end before the start wraps past midnight, so such a window is refused
 * with the way to call overnight instead of being sent for the service to guess.
 */
function readCallWindow(
	fromValue: unknown,
	toValue: unknown,
): { allowCallTimeFrom: number; allowCallTimeTo: number } {
	const from = timeOfDayToSeconds('allowCallTimeFrom', fromValue);
	const to = timeOfDayToSeconds('allowCallTimeTo', toValue);
	if (from === to) {
		throw new InputError(
			'allowCallTimeTo',
			toValue,
			`is the window start (${describeValue(fromValue)}): the window would be empty`,
		);
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

/** docs/service.md, Call tasks: PARALLEL works for several candidates only when cps is above 1 (more than one call per second). */
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
		else
			setUserKey(
				body,
				'extraFields',
				key,
				isPlainObject(value) && isPlainObject(body[key])
					? { ...(body[key] as IDataObject), ...value }
					: value,
			);
	}
	return body;
}

/**
 * The one rule for webhook targets (Call Task → Create, the trigger, Extra Body Fields): targets
 * are added to those already in the body, never replacing them. A target is an object with `url`
 * (docs/service.md, Events) or a plain URL (the platform's older form). A URL given twice is refused: the
 * service would send every event to it twice.
 */
export function addWebhookTargets(
	body: IDataObject,
	targets: unknown,
	field = 'webhookUrls',
): IDataObject {
	const added = Array.isArray(targets)
		? targets
		: isPlainObject(targets) || typeof targets === 'string'
			? [targets]
			: undefined;
	if (!added) {
		throw new InputError(
			field,
			targets,
			'is not a list of webhook targets; use [{"url": "https://...", "events": {...}}]',
		);
	}
	const current = Array.isArray(body.webhookUrls) ? (body.webhookUrls as unknown[]) : [];
	const seen = new Set(current.map(targetUrl).filter((url) => url !== undefined));
	for (const target of added) {
		if (!isPlainObject(target) && typeof target !== 'string') {
			throw new InputError(
				field,
				target,
				'is not a webhook target; use {"url": "https://...", "events": {...}} or a URL',
			);
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
