// @ts-check
'use strict';

/**
 * One function per endpoint: validate the request, change the state, start calling.
 * Each returns `{ status, body }` (body undefined = empty body) or throws an ApiError.
 */

const validate = require('./validate');
const { ApiError, validationError, notFound, unprocessable } = require('./errors');
const { utcDay } = require('./state');

const identity = (id) => ({ identity: id });

/**
 * The answer of the batch endpoints: "an array whose elements are arrays of objects" (spec 4.5).
 * `perCandidate`: one inner array per candidate, in request order (`[[A], [B], [C]]`);
 * `perTask`: one inner array per task holding its candidates in request order (`[[A, B, C]]`).
 */
function batchAnswer(entries, shape) {
	if (shape !== 'perTask') return entries.map((entry) => [entry]);
	/** @type {Map<string, any[]>} */
	const byTask = new Map();
	for (const entry of entries) {
		const taskId = entry.autoCallId.identity;
		if (!byTask.has(taskId)) byTask.set(taskId, []);
		byTask.get(taskId).push(entry);
	}
	return [...byTask.values()];
}

function noDefaultTemplate() {
	return unprocessable('DefaultTemplateNotFoundException', 'No default call job template is set');
}

function taskIsHalted(task) {
	return unprocessable('InvalidStatusTransitionException', `Call task ${task.id} is halted`, {
		status: task.status,
	});
}

/** Candidate fields taken from a request item. */
function candidateInput(item) {
	return {
		phone: item.phone,
		variables: item.variables,
		callbackData: item.callbackData,
		timezone: item.timezone,
		clientExternalId: item.clientExternalId,
		botSettingsId: item.botSettingsId,
		checkPhone: item.checkPhone,
	};
}

/**
 * @typedef {object} OperationsDeps
 * @property {import('./state').SimState} state
 * @property {import('./player').Player} player
 * @property {import('./scheduler').Scheduler} scheduler
 * @property {import('./auth').Auth} auth
 * @property {number} [maxBatchSize]
 * @property {'perCandidate' | 'perTask'} [batchAnswerShape]
 */

class Operations {
	/**
	 * @param {OperationsDeps} deps
	 */
	constructor({
		state,
		player,
		scheduler,
		auth,
		maxBatchSize = Infinity,
		batchAnswerShape = 'perCandidate',
	}) {
		this.state = state;
		this.player = player;
		this.scheduler = scheduler;
		this.auth = auth;
		this.maxBatchSize = maxBatchSize;
		/** @type {'perCandidate' | 'perTask'} */
		this.batchAnswerShape = batchAnswerShape;
	}

	// ----- login (docs/service.md "Authentication") ------------------------------------

	login({ body }) {
		validate.validateLogin(body);
		const tokens = this.auth.login(body);
		if (!tokens) throw new ApiError(401, { error: 'Invalid credentials' });
		return { status: 200, body: tokens };
	}

	refresh({ body }) {
		validate.validateRefresh(body);
		const tokens = this.auth.refresh(body);
		if (!tokens) throw new ApiError(401, { error: 'Invalid refresh token' });
		return { status: 200, body: tokens };
	}

	// ----- 4.1, 4.2, 4.3 -------------------------------------------------------------------

	depersonalizeCall({ params, body }) {
		validate.validateDepersonalization(body);
		const call = this.state.calls.get(params.callId);
		if (!call) throw notFound('Call not found');
		this.state.depersonalizeCall(call, {
			skipDeleteRecord: Boolean(body && body.skipDeleteRecord),
		});
		return { status: 200 };
	}

	depersonalizeCandidate({ params, body }) {
		validate.validateDepersonalization(body);
		const candidate = this.state.candidates.get(params.candidateId);
		if (!candidate) throw notFound('Candidate not found');
		this.state.depersonalizeCandidate(candidate, {
			skipDeleteRecord: Boolean(body && body.skipDeleteRecord),
		});
		return { status: 200 };
	}

	deleteRecord({ params }) {
		const call = this.state.calls.get(params.callId);
		if (!call) throw notFound('Call not found');
		if (!call.record) throw notFound('Record not found');
		call.record = null;
		call.recordDeletedAt = new Date().toISOString();
		return { status: 200 };
	}

	// ----- 4.4 -------------------------------------------------------------------------------

	createSingle({ body }) {
		validate.validateSingleCandidate(body);
		const template = this.state.defaultTemplate;
		if (!template) throw noDefaultTemplate();
		let task = this.state.findSingleTask(body.botSettingsId);
		const isNewTask = !task;
		if (!task) {
			task = this.state.createTask({
				body: this.state.taskBodyFromTemplate(
					template,
					body.botSettingsId,
					`${utcDay()} ${body.botSettingsId}`,
				),
				source: 'single',
				templateId: template.id,
			});
			this.state.rememberSingleTask(body.botSettingsId, task);
		}
		const { candidate } = this.state.addCandidate(task, {
			...candidateInput(body),
			clientExternalId: undefined,
		});
		if (isNewTask) this.player.changeTaskStatus(task, 'PROCESS');
		else this.player.candidateAdded(task, candidate);
		return { status: 200, body: { id: identity(candidate.id) } };
	}

	// ----- 4.5 -------------------------------------------------------------------------------

	createTemplateBatch({ body }) {
		validate.validateTemplateBatch(body, { maxBatchSize: this.maxBatchSize });
		// Resolve every item first: nothing is created when one item is wrong.
		const resolved = body.batch.map((item, index) => {
			let template;
			if (item.autoCallTemplateId !== undefined) {
				template = this.state.findTemplate(item.autoCallTemplateId);
				if (!template)
					throw new ApiError(404, {
						error: 'Template not found',
						details: { field: `batch[${index}].autoCallTemplateId` },
					});
			} else {
				template = this.state.defaultTemplate;
				if (!template) throw noDefaultTemplate();
			}
			const botSettingsId = item.botSettingsId || template.botSettingsId;
			if (!botSettingsId) {
				throw validationError(
					`batch[${index}].botSettingsId`,
					`batch[${index}].botSettingsId is required: the template has no bot script`,
				);
			}
			return { item, template, botSettingsId };
		});

		/** @type {Map<string, any>} template id → the task made for it by this request */
		const taskByTemplate = new Map();
		const result = resolved.map(({ item, template, botSettingsId }) => {
			let task = taskByTemplate.get(template.id);
			if (!task) {
				task = this.state.createTask({
					body: this.state.taskBodyFromTemplate(template, botSettingsId, new Date().toISOString()),
					source: 'batch',
					templateId: template.id,
				});
				taskByTemplate.set(template.id, task);
			}
			const { candidate } = this.state.addCandidate(task, {
				...candidateInput(item),
				botSettingsId,
			});
			return { autoCallId: identity(task.id), autoCallCandidateId: identity(candidate.id) };
		});
		for (const task of taskByTemplate.values()) this.player.changeTaskStatus(task, 'PROCESS');
		return { status: 200, body: batchAnswer(result, this.batchAnswerShape) };
	}

	// ----- 4.6 -------------------------------------------------------------------------------

	createTask({ body }) {
		validate.validateCreateTask(body);
		const task = this.state.createTask({ body, source: 'autoCall' });
		if (body.startType === 'time') this.scheduleStart(task, body.startMoment);
		if (typeof body.lifetime === 'number') {
			this.scheduler.after(
				this.scheduler.secondsToMs(body.lifetime),
				() => {
					if (this.state.tasks.get(task.id) === task) this.player.changeTaskStatus(task, 'HALTED');
				},
				{ tracked: false },
			);
		}
		return { status: 200, body: { id: identity(task.id) } };
	}

	/** startType "time": READY until startMoment (read as UTC; the wait is scaled), then PROCESS. */
	scheduleStart(task, startMoment) {
		task.status = 'READY';
		const startsAt = Date.parse(`${startMoment.replace(' ', 'T')}:00Z`);
		const start = () => {
			if (this.state.tasks.get(task.id) === task && task.status === 'READY')
				this.player.changeTaskStatus(task, 'PROCESS');
		};
		const waitMs = startsAt - Date.now();
		if (waitMs <= 0) start();
		else this.scheduler.after(waitMs * this.scheduler.timeScale, start, { tracked: false });
	}

	// ----- task list and status moves (docs/service.md "Call tasks") ------------------------

	listTasks({ query }) {
		const options = validate.parseListQuery(query);
		return { status: 200, body: this.state.listTasks(options) };
	}

	findTask(taskId) {
		const task = this.state.tasks.get(taskId);
		if (!task) throw notFound('Call task not found');
		return task;
	}

	getTask({ params }) {
		return { status: 200, body: this.state.serializeTask(this.findTask(params.taskId)) };
	}

	playTask({ params }) {
		const task = this.findTask(params.taskId);
		if (task.status === 'HALTED') throw taskIsHalted(task);
		this.player.changeTaskStatus(task, 'PROCESS');
		return { status: 200, body: this.state.serializeTask(task) };
	}

	pauseTask({ params }) {
		const task = this.findTask(params.taskId);
		if (task.status === 'HALTED') throw taskIsHalted(task);
		if (task.status === 'BLANK') {
			throw unprocessable(
				'InvalidStatusTransitionException',
				`Call task ${task.id} has not been started`,
				{ status: task.status },
			);
		}
		this.player.changeTaskStatus(task, 'PAUSED');
		return { status: 200, body: this.state.serializeTask(task) };
	}

	haltTask({ params }) {
		const task = this.findTask(params.taskId);
		this.player.changeTaskStatus(task, 'HALTED');
		return { status: 200, body: this.state.serializeTask(task) };
	}

	// ----- candidates of existing tasks (docs/service.md "Candidates") ----------------------

	/** The task an item names; 404 when unknown, 422 when halted. */
	taskForCandidate(autoCallId) {
		const task = this.findTask(autoCallId);
		if (task.status === 'HALTED') throw taskIsHalted(task);
		return task;
	}

	addCandidate({ body }) {
		validate.validateAddCandidate(body);
		const task = this.taskForCandidate(body.autoCallId);
		const { candidate, created } = this.state.addCandidate(task, candidateInput(body));
		this.startIfForced(task, body.forceStart);
		if (created) this.player.candidateAdded(task, candidate);
		return { status: 200, body: { id: identity(candidate.id) } };
	}

	addCandidateBatch({ body }) {
		validate.validateAddCandidateBatch(body, { maxBatchSize: this.maxBatchSize });
		const tasks = body.batch.map((item) => this.taskForCandidate(item.autoCallId));
		const added = body.batch.map((item, index) => {
			const task = tasks[index];
			const { candidate, created } = this.state.addCandidate(task, candidateInput(item));
			if (created) this.player.candidateAdded(task, candidate);
			return { autoCallId: identity(task.id), autoCallCandidateId: identity(candidate.id) };
		});
		for (const task of new Set(tasks)) this.startIfForced(task, body.forceStart);
		return { status: 200, body: batchAnswer(added, this.batchAnswerShape) };
	}

	startIfForced(task, forceStart) {
		if (forceStart === true && task.status !== 'PROCESS')
			this.player.changeTaskStatus(task, 'PROCESS');
	}

	cancelCandidate({ query }) {
		validate.validateCancelQuery(query);
		const task = this.findTask(query.autoCallId);
		const matching = this.state.candidatesOf(task).filter((c) => c.phone.includes(query.phone));
		if (matching.length === 0) throw notFound('Candidate not found');
		for (const candidate of matching) {
			if (!this.state.isFinal(candidate)) this.player.cancelCandidate(task, candidate);
		}
		return { status: 200, body: { success: true } };
	}
}

module.exports = { Operations };
