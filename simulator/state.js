// @ts-check
'use strict';

/**
 * What the simulated service holds: call tasks, candidates, calls, templates, plus the counters
 * tests read (candidates created per phone). No HTTP and no timers here.
 */

const crypto = require('crypto');
const { isPlainObject, validateWebhookUrls, validateRedialStrategyOptions } = require('./validate');

const FINAL_CANDIDATE_STATUSES = ['SUCCESS', 'FAILED', 'CANCELLED'];

/** The redial options of a call task that never redials (the default template's). */
const NO_REDIALS = Object.freeze({
	redialStrategyEn: false,
	busy: Object.freeze({ redial: false }),
	noAnswer: Object.freeze({ redial: false }),
	answerMash: Object.freeze({ redial: false }),
	congestion: Object.freeze({ redial: false }),
	answerNoList: Object.freeze({ redial: false }),
});

/** Settings of a template with nothing configured: no redials, recording on, no webhook targets. */
function baseTemplate() {
	return {
		name: 'Default template',
		botSettingsId: 'default-bot',
		secondExec: 'end',
		cidType: 'default',
		callStrategy: 'STEP_2_STEP',
		cps: 1,
		webhookUrls: [],
		additionalOptions: {
			fullListMethod: 'reject',
			fullListTime: 30,
			recordCall: true,
			recTrimLeft: 0,
		},
		redialStrategyOptions: structuredClone(NO_REDIALS),
	};
}

/** Checks the parts of a template the simulator acts on; throws a plain Error when wrong. */
function checkTemplate(template) {
	try {
		if (template.webhookUrls !== undefined)
			validateWebhookUrls(template.webhookUrls, 'template.webhookUrls');
		if (template.redialStrategyOptions !== undefined) {
			validateRedialStrategyOptions(
				template.redialStrategyOptions,
				'template.redialStrategyOptions',
			);
		}
	} catch (error) {
		throw new Error(`invalid template: ${error.message}`);
	}
}

function utcDay(ms = Date.now()) {
	return new Date(ms).toISOString().slice(0, 10);
}

class SimState {
	/** @param {{ defaultTemplate?: object | null }} options */
	constructor({ defaultTemplate } = {}) {
		/** @type {Map<string, any>} */
		this.tasks = new Map();
		/** @type {Map<string, any>} */
		this.candidates = new Map();
		/** @type {Map<string, any>} */
		this.calls = new Map();
		/** @type {Map<string, any>} templates other than the default one, by id */
		this.templates = new Map();
		this.initialDefaultTemplate =
			defaultTemplate === null ? null : { ...baseTemplate(), ...(defaultTemplate || {}) };
		if (this.initialDefaultTemplate) checkTemplate(this.initialDefaultTemplate);
		this.initialDefaultTemplateId = crypto.randomUUID();
		/** @type {any} */
		this.defaultTemplate = null;
		/** @type {Map<string, number>} */
		this.createdPhones = new Map();
		this.candidatesCreated = 0;
		/** @type {Map<string, any>} "day|botSettingsId" → task created by 4.4 */
		this.singleTasksByDayAndBot = new Map();
		this.sequence = 0;
		this.clear();
	}

	clear() {
		this.tasks.clear();
		this.candidates.clear();
		this.calls.clear();
		this.templates.clear();
		this.createdPhones.clear();
		this.singleTasksByDayAndBot.clear();
		this.candidatesCreated = 0;
		this.defaultTemplate = this.initialDefaultTemplate
			? { ...structuredClone(this.initialDefaultTemplate), id: this.initialDefaultTemplateId }
			: null;
	}

	// ----- templates -------------------------------------------------------------------------

	/** Merges `changes` into the default template; null removes it. */
	setDefaultTemplate(changes) {
		if (changes === null) {
			this.defaultTemplate = null;
			return null;
		}
		checkTemplate(changes);
		const current = this.defaultTemplate || { ...baseTemplate(), id: crypto.randomUUID() };
		this.defaultTemplate = { ...current, ...structuredClone(changes), id: current.id };
		return this.defaultTemplate;
	}

	addTemplate(id, template) {
		checkTemplate(template || {});
		const stored = { ...baseTemplate(), ...structuredClone(template || {}), id: String(id) };
		this.templates.set(stored.id, stored);
		return stored;
	}

	findTemplate(id) {
		if (this.templates.has(id)) return this.templates.get(id);
		if (this.defaultTemplate && this.defaultTemplate.id === id) return this.defaultTemplate;
		return undefined;
	}

	// ----- tasks -----------------------------------------------------------------------------

	/**
	 * @param {{ body: Record<string, any>, source: 'autoCall' | 'single' | 'batch', templateId?: string }} input
	 */
	createTask({ body, source, templateId }) {
		const now = new Date();
		const task = {
			id: crypto.randomUUID(),
			name: body.name,
			status: 'BLANK',
			createdAt: now.toISOString(),
			updatedAt: now.toISOString(),
			sequence: ++this.sequence,
			source,
			templateId: templateId || null,
			// Tasks made from a template report to the template's targets as they are now.
			webhooksFromTemplate: Boolean(templateId),
			body: structuredClone(body),
			candidateIds: [],
			/** @type {Map<string, string>} clientExternalId → candidate id */
			candidatesByExternalId: new Map(),
		};
		this.tasks.set(task.id, task);
		return task;
	}

	/** The body of a task made from a template (4.4 and 4.5): the template's settings + the bot. */
	taskBodyFromTemplate(template, botSettingsId, nameSuffix) {
		const settings = structuredClone(template);
		delete settings.id;
		delete settings.name;
		delete settings.botSettingsId;
		return {
			...settings,
			name: `${template.name || 'Template'} ${nameSuffix}`,
			defaultExec: 'robot',
			defaultExecData: botSettingsId,
			startType: 'manual',
			autoCallTemplateId: template.id,
		};
	}

	/** The 4.4 task of this bot for today, if any and not halted. */
	findSingleTask(botSettingsId) {
		const task = this.singleTasksByDayAndBot.get(`${utcDay()}|${botSettingsId}`);
		return task && task.status !== 'HALTED' ? task : undefined;
	}

	rememberSingleTask(botSettingsId, task) {
		this.singleTasksByDayAndBot.set(`${utcDay()}|${botSettingsId}`, task);
	}

	touch(entity) {
		entity.updatedAt = new Date().toISOString();
	}

	// ----- candidates ------------------------------------------------------------------------

	/**
	 * Adds a candidate to a task. A clientExternalId already in the task returns that candidate.
	 * @returns {{ candidate: any, created: boolean }}
	 */
	addCandidate(task, input) {
		if (
			input.clientExternalId !== undefined &&
			task.candidatesByExternalId.has(input.clientExternalId)
		) {
			return {
				candidate: this.candidates.get(task.candidatesByExternalId.get(input.clientExternalId)),
				created: false,
			};
		}
		const now = new Date().toISOString();
		const candidate = {
			id: crypto.randomUUID(),
			taskId: task.id,
			phone: [...input.phone],
			variables: input.variables ? { ...input.variables } : {},
			callbackData: input.callbackData,
			timezone: input.timezone,
			clientExternalId: input.clientExternalId,
			botSettingsId: input.botSettingsId,
			checkPhone: input.checkPhone,
			status: 'NEW',
			attempts: 0,
			held: false,
			callIds: [],
			lastCallId: null,
			/** @type {Record<string, number>} redials used per rule (noAnswer, busy, ...) */
			redialsByRule: {},
			/** @type {Record<string, number>} calls made per phone number */
			callsByPhone: {},
			depersonalized: false,
			createdAt: now,
			updatedAt: now,
		};
		this.candidates.set(candidate.id, candidate);
		task.candidateIds.push(candidate.id);
		if (input.clientExternalId !== undefined)
			task.candidatesByExternalId.set(input.clientExternalId, candidate.id);
		this.candidatesCreated += 1;
		for (const phone of candidate.phone)
			this.createdPhones.set(phone, (this.createdPhones.get(phone) || 0) + 1);
		this.touch(task);
		return { candidate, created: true };
	}

	candidatesOf(task) {
		return task.candidateIds.map((id) => this.candidates.get(id)).filter(Boolean);
	}

	isFinal(candidate) {
		return FINAL_CANDIDATE_STATUSES.includes(candidate.status);
	}

	// ----- calls -----------------------------------------------------------------------------

	createCall(fields) {
		const call = {
			id: crypto.randomUUID(),
			taskId: null,
			candidateId: null,
			botId: null,
			callFrom: null,
			callTo: null,
			status: 'INPROGRESS',
			attempt: 1,
			startedAt: new Date().toISOString(),
			endedAt: null,
			variables: {},
			result: {},
			redirected: false,
			/** @type {{url: string} | null} */
			record: null,
			depersonalized: false,
			depersonalizedAt: null,
			...fields,
		};
		this.calls.set(call.id, call);
		return call;
	}

	/** 4.1: sensitive data of the call is removed; the recording too unless skipDeleteRecord. */
	depersonalizeCall(call, { skipDeleteRecord = false } = {}) {
		call.depersonalized = true;
		call.depersonalizedAt = new Date().toISOString();
		call.callTo = null;
		call.variables = {};
		call.result = {};
		if (!skipDeleteRecord) call.record = null;
	}

	/** 4.2: the candidate's data and all its calls. */
	depersonalizeCandidate(candidate, options) {
		candidate.depersonalized = true;
		candidate.depersonalizedAt = new Date().toISOString();
		candidate.variables = {};
		for (const callId of candidate.callIds) {
			const call = this.calls.get(callId);
			if (call) this.depersonalizeCall(call, options);
		}
	}

	// ----- reading ---------------------------------------------------------------------------

	taskStats(task) {
		const candidates = this.candidatesOf(task);
		const count = (status) => candidates.filter((c) => c.status === status).length;
		const calls = candidates.flatMap((c) =>
			c.callIds.map((id) => this.calls.get(id)).filter(Boolean),
		);
		/** @type {Record<string, number>} */
		const callsByStatus = {};
		for (const call of calls) callsByStatus[call.status] = (callsByStatus[call.status] || 0) + 1;
		return {
			candidates: candidates.length,
			candidatesNew: count('NEW'),
			candidatesInProgress: candidates.filter((c) => !this.isFinal(c) && c.status !== 'NEW').length,
			candidatesDone: candidates.filter((c) => this.isFinal(c)).length,
			candidatesSuccess: count('SUCCESS'),
			candidatesFailed: count('FAILED'),
			candidatesCancelled: count('CANCELLED'),
			calls: calls.length,
			callsByStatus,
		};
	}

	/** A task as the API shows it: its creation body, identity, status, times, statistics. */
	serializeTask(task) {
		return {
			...structuredClone(task.body),
			id: task.id,
			name: task.name,
			status: task.status,
			createdAt: task.createdAt,
			updatedAt: task.updatedAt,
			source: task.source,
			autoCallTemplateId: task.templateId,
			stats: this.taskStats(task),
		};
	}

	serializeCandidate(candidate) {
		const { redialsByRule, callsByPhone, held, ...visible } = candidate;
		return structuredClone({ ...visible, redialsByRule, callsByPhone });
	}

	/**
	 * @param {{limit: number, offset: number, keyword?: string, statuses?: string[], from?: number, to?: number,
	 *   sort: {field: string, descending: boolean}}} options
	 */
	listTasks({ limit, offset, keyword, statuses, from, to, sort }) {
		const needle = keyword ? keyword.toLowerCase() : undefined;
		const matching = [...this.tasks.values()].filter((task) => {
			if (needle && !String(task.name).toLowerCase().includes(needle)) return false;
			if (statuses && !statuses.includes(task.status)) return false;
			const created = Date.parse(task.createdAt);
			if (from !== undefined && created < from) return false;
			if (to !== undefined && created > to) return false;
			return true;
		});
		const direction = sort.descending ? -1 : 1;
		matching.sort((a, b) => {
			const left = a[sort.field];
			const right = b[sort.field];
			const order = left < right ? -1 : left > right ? 1 : 0;
			return (order || a.sequence - b.sequence) * direction;
		});
		return {
			items: matching.slice(offset, offset + limit).map((task) => this.serializeTask(task)),
			total: matching.length,
		};
	}

	createdByPhone() {
		return Object.fromEntries(this.createdPhones);
	}

	counts() {
		const createdByPhone = this.createdByPhone();
		const duplicates = Object.values(createdByPhone).reduce(
			(sum, n) => sum + Math.max(0, n - 1),
			0,
		);
		return { createdByPhone, duplicates, total: this.candidatesCreated };
	}

	/** Everything, as plain JSON (for GET /__sim/state). */
	snapshot() {
		return {
			tasks: [...this.tasks.values()].map((task) => this.serializeTask(task)),
			candidates: [...this.candidates.values()].map((c) => this.serializeCandidate(c)),
			calls: [...this.calls.values()].map((call) => structuredClone(call)),
			defaultTemplate: this.defaultTemplate,
			templates: [...this.templates.values()],
		};
	}
}

/** callbackData as the platform returns it: the object, or `[]` when empty or absent (PHP). */
function callbackDataForWebhook(callbackData) {
	return isPlainObject(callbackData) && Object.keys(callbackData).length > 0 ? callbackData : [];
}

module.exports = {
	SimState,
	baseTemplate,
	callbackDataForWebhook,
	FINAL_CANDIDATE_STATUSES,
	NO_REDIALS,
	utcDay,
};
