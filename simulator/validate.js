// @ts-check
'use strict';

/**
 * Request validation, written from the API contract and, for the endpoints beyond it, from the
 * platform's public documentation (docs/service.md says which fact comes from where).
 *
 * Every check throws `validationError(fieldPath, message)` on the first problem; the message
 * starts with the field path (e.g. "additionalOptions.recTrimLeft is required when
 * additionalOptions.recordCall is true"). Unknown extra fields are accepted.
 */

const { validationError } = require('./errors');

// The spec's events (section 6), read from the one list the nodes also use: data only, no node code.
const EVENT_NAMES = require('../nodes/shared/events.json').map(
	(/** @type {{value: string}} */ event) => event.value,
);
const TASK_STATUSES = ['BLANK', 'READY', 'PROCESS', 'PAUSED', 'HALTED'];
const REDIAL_RULES = ['busy', 'noAnswer', 'answerMash', 'congestion', 'answerNoList'];
const TIMEZONE_MIN = -43200;
const TIMEZONE_MAX = 43200;

// ---------------------------------------------------------------------------------------------
// Primitive checks. `path` is the field path used in the message and in details.field.

function fail(path, problem) {
	throw validationError(path, `${path} ${problem}`);
}

function describe(value) {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	return `a ${typeof value}`;
}

function isPlainObject(value) {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Is the field present? `null` counts as present (and then fails its type check). */
function has(object, key) {
	return object[key] !== undefined;
}

function requirePresent(object, key, path, condition) {
	if (!has(object, key)) fail(path, condition ? `is required when ${condition}` : 'is required');
}

function checkObject(value, path) {
	if (!isPlainObject(value)) fail(path, `must be an object, got ${describe(value)}`);
}

function checkString(value, path, { allowEmpty = false } = {}) {
	if (typeof value !== 'string') fail(path, `must be a string, got ${describe(value)}`);
	if (!allowEmpty && value.trim() === '') fail(path, 'must not be empty');
}

function checkBoolean(value, path) {
	if (typeof value !== 'boolean') fail(path, `must be a boolean, got ${describe(value)}`);
}

function checkInteger(
	value,
	path,
	{ min, max } = /** @type {{min?: number, max?: number}} */ ({}),
) {
	if (typeof value !== 'number' || !Number.isInteger(value)) {
		fail(path, `must be an integer, got ${typeof value === 'number' ? value : describe(value)}`);
	}
	if (min !== undefined && value < min) fail(path, `must be at least ${min}, got ${value}`);
	if (max !== undefined && value > max) fail(path, `must be at most ${max}, got ${value}`);
}

function checkNumber(value, path, { min } = /** @type {{min?: number}} */ ({})) {
	if (typeof value !== 'number' || !Number.isFinite(value)) {
		fail(path, `must be a number, got ${describe(value)}`);
	}
	if (min !== undefined && value < min) fail(path, `must be at least ${min}, got ${value}`);
}

function checkEnum(value, path, allowed) {
	if (!allowed.includes(value)) {
		fail(
			path,
			`must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}, got ${JSON.stringify(value)}`,
		);
	}
}

function checkUrl(value, path) {
	checkString(value, path);
	let url;
	try {
		url = new URL(value);
	} catch {
		fail(path, `must be an absolute http(s) URL, got ${JSON.stringify(value)}`);
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		fail(path, `must be an http(s) URL, got ${JSON.stringify(value)}`);
	}
}

function optional(object, key, path, check) {
	if (has(object, key)) check(object[key], path);
}

function join(prefix, key) {
	return prefix ? `${prefix}.${key}` : key;
}

// ---------------------------------------------------------------------------------------------
// Shared pieces.

/** Request body must be a JSON object. */
function checkBody(body) {
	if (body === undefined) fail('body', 'is required: send a JSON object');
	checkObject(body, 'body');
}

/** 2.3 phone: non-empty array of non-empty strings. */
function checkPhones(value, path) {
	if (!Array.isArray(value)) fail(path, `must be an array of strings, got ${describe(value)}`);
	if (value.length === 0) fail(path, 'must contain at least one phone number');
	value.forEach((phone, index) => checkString(phone, `${path}[${index}]`));
}

/** 2.3 variables: object, name → string value. */
function checkVariables(value, path) {
	checkObject(value, path);
	for (const [name, variable] of Object.entries(value)) {
		if (typeof variable !== 'string') {
			fail(`${path}.${name}`, `must be a string, got ${describe(variable)}`);
		}
	}
}

function checkTimezone(value, path) {
	checkInteger(value, path, { min: TIMEZONE_MIN, max: TIMEZONE_MAX });
}

/**
 * The candidate fields common to every candidate-creating endpoint.
 * @param {Record<string, any>} item
 * @param {string} prefix path prefix ('' or 'batch[3]')
 */
function checkCandidateFields(item, prefix) {
	requirePresent(item, 'phone', join(prefix, 'phone'));
	checkPhones(item.phone, join(prefix, 'phone'));
	optional(item, 'variables', join(prefix, 'variables'), checkVariables);
	optional(item, 'timezone', join(prefix, 'timezone'), checkTimezone);
	optional(item, 'callbackData', join(prefix, 'callbackData'), checkObject);
}

// ---------------------------------------------------------------------------------------------
// Webhook targets (2.4, 4.6 webhookUrls, and the older plain-URL form of the platform's documentation).

function checkWebhookTarget(target, path) {
	if (typeof target === 'string') {
		checkUrl(target, path);
		return;
	}
	if (!isPlainObject(target))
		fail(path, `must be an object or a URL string, got ${describe(target)}`);
	optional(target, 'url', `${path}.url`, checkUrl);
	optional(target, 'partialResults', `${path}.partialResults`, checkBoolean);
	optional(target, 'delay', `${path}.delay`, (v, p) => checkInteger(v, p, { min: 0 }));
	if (has(target, 'events')) {
		checkObject(target.events, `${path}.events`);
		for (const [eventName, setting] of Object.entries(target.events)) {
			const eventPath = `${path}.events.${eventName}`;
			if (!EVENT_NAMES.includes(eventName)) {
				fail(eventPath, `is not a known event; allowed: ${EVENT_NAMES.join(', ')}`);
			}
			checkObject(setting, eventPath);
			if (has(setting, 'name')) {
				checkString(setting.name, `${eventPath}.name`);
				if (setting.name !== eventName) {
					fail(
						`${eventPath}.name`,
						`must equal the event name "${eventName}", got ${JSON.stringify(setting.name)}`,
					);
				}
			}
			optional(setting, 'value', `${eventPath}.value`, checkBoolean);
		}
	}
}

function checkWebhookUrls(value, path = 'webhookUrls') {
	if (!Array.isArray(value)) fail(path, `must be an array, got ${describe(value)}`);
	value.forEach((target, index) => checkWebhookTarget(target, `${path}[${index}]`));
}

// ---------------------------------------------------------------------------------------------
// 4.6 Create a call task.

const START_MOMENT = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})$/;

function checkStartMoment(value, path) {
	checkString(value, path);
	const match = START_MOMENT.exec(value);
	if (!match) fail(path, `must have the format YYYY-MM-DD HH:MM, got ${JSON.stringify(value)}`);
	const [year, month, day, hour, minute] = match.slice(1).map(Number);
	const date = new Date(Date.UTC(year, month - 1, day, hour, minute));
	const valid =
		date.getUTCFullYear() === year &&
		date.getUTCMonth() === month - 1 &&
		date.getUTCDate() === day &&
		hour < 24 &&
		minute < 60;
	if (!valid) fail(path, `is not a valid date and time: ${JSON.stringify(value)}`);
}

function checkAdditionalOptions(options, path = 'additionalOptions') {
	checkObject(options, path);
	const p = (key) => `${path}.${key}`;

	requirePresent(options, 'fullListMethod', p('fullListMethod'));
	checkEnum(options.fullListMethod, p('fullListMethod'), ['reject']);
	requirePresent(options, 'fullListTime', p('fullListTime'));
	checkInteger(options.fullListTime, p('fullListTime'), { min: 0 });

	optional(options, 'useTr', p('useTr'), checkBoolean);
	const secondsOfDay = (v, fieldPath) => checkInteger(v, fieldPath, { min: 0, max: 86399 });
	if (options.useTr === true) {
		requirePresent(options, 'allowCallTimeFrom', p('allowCallTimeFrom'), `${p('useTr')} is true`);
		requirePresent(options, 'allowCallTimeTo', p('allowCallTimeTo'), `${p('useTr')} is true`);
	}
	optional(options, 'allowCallTimeFrom', p('allowCallTimeFrom'), secondsOfDay);
	optional(options, 'allowCallTimeTo', p('allowCallTimeTo'), secondsOfDay);

	requirePresent(options, 'recordCall', p('recordCall'));
	checkBoolean(options.recordCall, p('recordCall'));
	if (options.recordCall === true) {
		requirePresent(options, 'recTrimLeft', p('recTrimLeft'), `${p('recordCall')} is true`);
	}
	optional(options, 'recTrimLeft', p('recTrimLeft'), (v, fp) => checkInteger(v, fp, { min: 0 }));

	optional(options, 'detectRobot', p('detectRobot'), checkBoolean);
	if (options.detectRobot === true) {
		requirePresent(options, 'detectRobotMode', p('detectRobotMode'), `${p('detectRobot')} is true`);
	}
	optional(options, 'detectRobotMode', p('detectRobotMode'), (v, fp) =>
		checkEnum(v, fp, ['back', 'block']),
	);
	if (options.detectRobotMode === 'block') {
		requirePresent(
			options,
			'detectRobotGreeting',
			p('detectRobotGreeting'),
			`${p('detectRobotMode')} is "block"`,
		);
	}
	optional(options, 'detectRobotGreeting', p('detectRobotGreeting'), checkString);
	optional(options, 'providerId', p('providerId'), checkString);
}

/** candidateLimit / numberLimit: {redial (required), count (required if redial)}. */
function checkLimit(limit, path) {
	checkObject(limit, path);
	requirePresent(limit, 'redial', `${path}.redial`);
	checkBoolean(limit.redial, `${path}.redial`);
	if (limit.redial === true)
		requirePresent(limit, 'count', `${path}.count`, `${path}.redial is true`);
	optional(limit, 'count', `${path}.count`, (v, p) => checkInteger(v, p, { min: 0 }));
}

/** busy / noAnswer / ...: {redial (required), time and count (required if redial)}. */
function checkRedialRule(rule, path) {
	checkObject(rule, path);
	requirePresent(rule, 'redial', `${path}.redial`);
	checkBoolean(rule.redial, `${path}.redial`);
	if (rule.redial === true) {
		requirePresent(rule, 'time', `${path}.time`, `${path}.redial is true`);
		requirePresent(rule, 'count', `${path}.count`, `${path}.redial is true`);
	}
	optional(rule, 'time', `${path}.time`, (v, p) => checkInteger(v, p, { min: 0 }));
	optional(rule, 'count', `${path}.count`, (v, p) => checkInteger(v, p, { min: 0 }));
}

function checkRedialStrategyOptions(options, path = 'redialStrategyOptions') {
	checkObject(options, path);
	requirePresent(options, 'redialStrategyEn', `${path}.redialStrategyEn`);
	checkBoolean(options.redialStrategyEn, `${path}.redialStrategyEn`);
	optional(options, 'candidateLimit', `${path}.candidateLimit`, checkLimit);
	optional(options, 'numberLimit', `${path}.numberLimit`, checkLimit);
	for (const ruleName of REDIAL_RULES) {
		requirePresent(options, ruleName, `${path}.${ruleName}`);
		checkRedialRule(options[ruleName], `${path}.${ruleName}`);
	}
}

/** 4.6 request body. */
function validateCreateTask(body) {
	checkBody(body);
	requirePresent(body, 'name', 'name');
	checkString(body.name, 'name');
	optional(body, 'taskComment', 'taskComment', (v, p) => checkString(v, p, { allowEmpty: true }));

	requirePresent(body, 'defaultExec', 'defaultExec');
	checkEnum(body.defaultExec, 'defaultExec', ['robot']);
	requirePresent(body, 'defaultExecData', 'defaultExecData');
	checkString(body.defaultExecData, 'defaultExecData');

	requirePresent(body, 'secondExec', 'secondExec');
	checkEnum(body.secondExec, 'secondExec', ['end', 'ignore', 'ch']);
	if (body.secondExec === 'ch')
		requirePresent(body, 'secondExecData', 'secondExecData', 'secondExec is "ch"');
	optional(body, 'secondExecData', 'secondExecData', checkString);

	requirePresent(body, 'cidType', 'cidType');
	checkEnum(body.cidType, 'cidType', ['default', 'gornum', 'pool']);
	if (body.cidType === 'gornum' || body.cidType === 'pool') {
		requirePresent(body, 'cidData', 'cidData', `cidType is "${body.cidType}"`);
	}
	optional(body, 'cidData', 'cidData', checkString);

	optional(body, 'callStrategy', 'callStrategy', (v, p) =>
		checkEnum(v, p, ['STEP_2_STEP', 'PARALLEL']),
	);

	requirePresent(body, 'startType', 'startType');
	checkEnum(body.startType, 'startType', ['manual', 'time']);
	if (body.startType === 'time')
		requirePresent(body, 'startMoment', 'startMoment', 'startType is "time"');
	optional(body, 'startMoment', 'startMoment', checkStartMoment);
	optional(body, 'scheduleId', 'scheduleId', checkString);

	requirePresent(body, 'cps', 'cps');
	checkNumber(body.cps, 'cps', { min: 0 });
	optional(body, 'checkPhone', 'checkPhone', checkBoolean);
	optional(body, 'sendReportAfterFinish', 'sendReportAfterFinish', checkBoolean);
	// "when blank the task can run indefinitely": null is accepted as blank.
	if (body.lifetime !== null)
		optional(body, 'lifetime', 'lifetime', (v, p) => checkInteger(v, p, { min: 1 }));

	// "`null` (disabled) or `RU`"; the string "null" is taken as null too.
	if (has(body, 'phoneNormalization') && body.phoneNormalization !== null) {
		checkEnum(body.phoneNormalization, 'phoneNormalization', ['RU', 'null']);
	}
	if (has(body, 'normalizationErrorAction')) {
		checkEnum(body.normalizationErrorAction, 'normalizationErrorAction', [
			'IGNORE_NORMALIZATION_ERROR',
			'SET_NORMALIZATION_ERROR_FLAG',
		]);
		if (body.phoneNormalization !== 'RU') {
			fail(
				'normalizationErrorAction',
				'requires phone normalization to be enabled (phoneNormalization "RU")',
			);
		}
	}

	optional(body, 'webhookUrls', 'webhookUrls', checkWebhookUrls);

	requirePresent(body, 'additionalOptions', 'additionalOptions');
	checkAdditionalOptions(body.additionalOptions);
	requirePresent(body, 'redialStrategyOptions', 'redialStrategyOptions');
	checkRedialStrategyOptions(body.redialStrategyOptions);
}

// ---------------------------------------------------------------------------------------------
// 4.4 and 4.5.

/** 4.4 request body. */
function validateSingleCandidate(body) {
	checkBody(body);
	checkCandidateFields(body, '');
	requirePresent(body, 'botSettingsId', 'botSettingsId');
	checkString(body.botSettingsId, 'botSettingsId');
}

/** 4.5 request body. */
function validateTemplateBatch(body, { maxBatchSize = Infinity } = {}) {
	checkBody(body);
	requirePresent(body, 'batch', 'batch');
	if (!Array.isArray(body.batch)) fail('batch', `must be an array, got ${describe(body.batch)}`);
	if (body.batch.length === 0) fail('batch', 'must contain at least one candidate');
	if (body.batch.length > maxBatchSize)
		fail('batch', `must contain at most ${maxBatchSize} candidates`);
	body.batch.forEach((item, index) => {
		const prefix = `batch[${index}]`;
		checkObject(item, prefix);
		checkCandidateFields(item, prefix);
		optional(item, 'clientExternalId', `${prefix}.clientExternalId`, checkString);
		optional(item, 'botSettingsId', `${prefix}.botSettingsId`, checkString);
		optional(item, 'autoCallTemplateId', `${prefix}.autoCallTemplateId`, checkString);
		optional(item, 'checkPhone', `${prefix}.checkPhone`, checkBoolean);
	});
}

/** 4.1 / 4.2 optional body: {skipDeleteRecord?: boolean}. */
function validateDepersonalization(body) {
	if (body === undefined) return;
	checkObject(body, 'body');
	optional(body, 'skipDeleteRecord', 'skipDeleteRecord', checkBoolean);
}

// ---------------------------------------------------------------------------------------------
// Endpoints beyond the contract (the platform's documentation; docs/service.md).

function checkExistingTaskCandidate(item, prefix) {
	requirePresent(item, 'autoCallId', join(prefix, 'autoCallId'));
	checkString(item.autoCallId, join(prefix, 'autoCallId'));
	checkCandidateFields(item, prefix);
	optional(item, 'clientExternalId', join(prefix, 'clientExternalId'), checkString);
	optional(item, 'botSettingsId', join(prefix, 'botSettingsId'), checkString);
	optional(item, 'checkPhone', join(prefix, 'checkPhone'), checkBoolean);
}

/** POST telephony/autoCallCandidate */
function validateAddCandidate(body) {
	checkBody(body);
	checkExistingTaskCandidate(body, '');
	optional(body, 'forceStart', 'forceStart', checkBoolean);
}

/** POST telephony/autoCallCandidate/batch */
function validateAddCandidateBatch(body, { maxBatchSize = Infinity } = {}) {
	checkBody(body);
	requirePresent(body, 'batch', 'batch');
	if (!Array.isArray(body.batch)) fail('batch', `must be an array, got ${describe(body.batch)}`);
	if (body.batch.length === 0) fail('batch', 'must contain at least one candidate');
	if (body.batch.length > maxBatchSize)
		fail('batch', `must contain at most ${maxBatchSize} candidates`);
	body.batch.forEach((item, index) => {
		checkObject(item, `batch[${index}]`);
		checkExistingTaskCandidate(item, `batch[${index}]`);
	});
	optional(body, 'forceStart', 'forceStart', checkBoolean);
}

/** POST telephony/autoCallCandidate/cancel?autoCallId=&phone= */
function validateCancelQuery(query) {
	if (!query.autoCallId) fail('autoCallId', 'query parameter is required');
	if (!query.phone) fail('phone', 'query parameter is required');
}

/** POST /api/v1/auth/login */
function validateLogin(body) {
	checkBody(body);
	requirePresent(body, 'email', 'email');
	checkString(body.email, 'email');
	requirePresent(body, 'password', 'password');
	checkString(body.password, 'password');
	optional(body, 'ttl', 'ttl', (v, p) => checkInteger(v, p, { min: 1 }));
	optional(body, 'companyId', 'companyId', checkString);
}

/** POST /api/v1/auth/refresh */
function validateRefresh(body) {
	checkBody(body);
	requirePresent(body, 'refreshToken', 'refreshToken');
	checkString(body.refreshToken, 'refreshToken');
	optional(body, 'ttl', 'ttl', (v, p) => checkInteger(v, p, { min: 1 }));
}

/**
 * GET telephony/autoCall query → normalized list options.
 * @param {Record<string, string>} query
 */
function parseListQuery(query) {
	const integerParam = (name, min, max) => {
		const raw = query[name];
		if (raw === undefined || raw === '') return undefined;
		if (!/^-?\d+$/.test(raw)) fail(name, `must be an integer, got ${JSON.stringify(raw)}`);
		const value = Number(raw);
		if (value < min) fail(name, `must be at least ${min}, got ${value}`);
		if (max !== undefined && value > max) fail(name, `must be at most ${max}, got ${value}`);
		return value;
	};
	const dateParam = (name) => {
		const raw = query[name];
		if (raw === undefined || raw === '') return undefined;
		const time = Date.parse(raw);
		if (Number.isNaN(time)) fail(name, `must be an ISO date-time, got ${JSON.stringify(raw)}`);
		return time;
	};

	const limit = integerParam('limit', 1, 1000) ?? 20;
	const page = integerParam('page', 1);
	const offset = integerParam('offset', 0) ?? (page ? (page - 1) * limit : 0);

	let statuses;
	if (query.status) {
		statuses = query.status
			.split(',')
			.map((s) => s.trim())
			.filter(Boolean);
		for (const status of statuses) checkEnum(status, 'status', TASK_STATUSES);
	}

	let sort = { field: 'createdAt', descending: true };
	if (query.sort) {
		const descending = query.sort.startsWith('-');
		const field = query.sort.replace(/^[-+]/, '');
		checkEnum(field, 'sort', ['name', 'status', 'createdAt', 'updatedAt']);
		sort = { field, descending };
	}

	return {
		limit,
		offset,
		keyword: query.keyword ? String(query.keyword) : undefined,
		statuses,
		from: dateParam('from'),
		to: dateParam('to'),
		sort,
	};
}

module.exports = {
	EVENT_NAMES,
	TASK_STATUSES,
	REDIAL_RULES,
	isPlainObject,
	validateCreateTask,
	validateSingleCandidate,
	validateTemplateBatch,
	validateDepersonalization,
	validateAddCandidate,
	validateAddCandidateBatch,
	validateCancelQuery,
	validateLogin,
	validateRefresh,
	validateWebhookUrls: checkWebhookUrls,
	validateRedialStrategyOptions: checkRedialStrategyOptions,
	parseListQuery,
};
