// @ts-check
'use strict';

/**
 * Plays the calls of running tasks and reports them as webhook events.
 *
 * For each candidate of a task in PROCESS: dial (DIAL_SECONDS), talk (TALK_SECONDS or the
 * script's durationSec), end the call with the next status of the phone's script, then either
 * finish the candidate or, when the task's redial rules allow, schedule a redial after the
 * rule's `time`. All durations are multiplied by the time scale.
 *
 * Events (payload fields from docs/service.md "Events (webhooks)"; the unknown ones are the simulator's choice):
 *   CALL_REDIRECTED    {event, id, redirectAdditional, redirectAnons, redirectDestination, redirectDestinationId, callbackData}
 *   CALL_ENDED         {event, type, botId, id, taskId, candidateId, status, callFrom, callTo, startedAt, variables, result, callbackData}
 *   EFFICIENCY_REACHED {event, id, taskId, candidateId, callbackData}
 *   RECALL_SCHEDULED   {event, taskId, candidateId, callbackData, scheduledAt}
 *   CANDIDATE_CHANGED  {event, taskId, candidateId, lastCallId, status, callbackData}
 *   AUTOCALL_STATUS_CHANGED {event, taskId, status, previousStatus}
 */

const { callbackDataForWebhook } = require('./state');

const DIAL_SECONDS = 1;
const TALK_SECONDS = 3;
const DEFAULT_CALLER_ID = '74950000000';

const CALL_STATUSES = [
	'CANCEL',
	'ANSWERED',
	'NOANSWER',
	'BUSY',
	'CONGESTION',
	'CHANUNAVAIL',
	'FAILED',
	'SCHEDULED',
	'BLACKLIST',
	'DIAL',
	'INPROGRESS',
	'INVALID',
	'UNAVAILABLE',
	'EXPIRED',
	'REJECTED',
];

/** Which redial rule of redialStrategyOptions applies to a call outcome. */
function redialRuleFor(outcome) {
	if (outcome.status === 'ANSWERED') {
		if (outcome.answeringMachine) return 'answerMash';
		if (outcome.successful === false) return 'answerNoList';
		return null;
	}
	switch (outcome.status) {
		case 'NOANSWER':
		case 'EXPIRED':
			return 'noAnswer';
		case 'BUSY':
		case 'REJECTED':
			return 'busy';
		case 'CONGESTION':
		case 'CHANUNAVAIL':
		case 'FAILED':
		case 'UNAVAILABLE':
			return 'congestion';
		default:
			return null;
	}
}

function isSuccessful(outcome) {
	return outcome.status === 'ANSWERED' && !outcome.answeringMachine && outcome.successful !== false;
}

/**
 * Outcome script of a phone, normalized. Accepts
 * { attempts: ['NOANSWER', 'ANSWERED' | {status, answeringMachine?, successful?, redirect?, efficiency?, result?, durationSec?}],
 *   redirect?, efficiency?, result?, durationSec?, redirectDestination?, redirectDestinationId? }
 */
function normalizeScript(script) {
	if (!script || typeof script !== 'object') throw new Error('outcome script must be an object');
	const attempts = (script.attempts && script.attempts.length ? script.attempts : ['ANSWERED']).map(
		(attempt) => (typeof attempt === 'string' ? { status: attempt } : { ...attempt }),
	);
	for (const attempt of attempts) {
		if (!CALL_STATUSES.includes(attempt.status)) {
			throw new Error(
				`unknown call status "${attempt.status}"; known: ${CALL_STATUSES.join(', ')}`,
			);
		}
	}
	return { ...script, attempts };
}

class Player {
	/**
	 * @param {{ state: import('./state').SimState, scheduler: import('./scheduler').Scheduler, delivery: import('./delivery').WebhookDelivery }} deps
	 */
	constructor({ state, scheduler, delivery }) {
		this.state = state;
		this.scheduler = scheduler;
		this.delivery = delivery;
		/** @type {Map<string, any>} phone → normalized script */
		this.scripts = new Map();
		/** @type {Map<string, {cancel: () => void}>} candidate id → its next step */
		this.nextSteps = new Map();
		/** @type {Array<{event: string, taskId: string | null, payload: any, targets: number, at: number}>} every event, delivered or not */
		this.events = [];
	}

	setOutcome(phone, script) {
		if (script === null || script === undefined) this.scripts.delete(String(phone));
		else this.scripts.set(String(phone), normalizeScript(script));
	}

	clear() {
		this.scripts.clear();
		this.nextSteps.clear();
		this.events.length = 0;
	}

	// ----- task status -----------------------------------------------------------------------

	/**
	 * Moves a task to `status`, reports AUTOCALL_STATUS_CHANGED, and starts / holds / stops calling.
	 * @returns {boolean} whether the status changed
	 */
	changeTaskStatus(task, status) {
		const previousStatus = task.status;
		if (previousStatus === status) return false;
		task.status = status;
		this.state.touch(task);
		this.emit(task, 'AUTOCALL_STATUS_CHANGED', {
			event: 'AUTOCALL_STATUS_CHANGED',
			taskId: task.id,
			status,
			previousStatus,
		});
		if (status === 'PROCESS') this.resumeTask(task);
		if (status === 'HALTED') this.stopTask(task);
		return true;
	}

	resumeTask(task) {
		for (const candidate of this.state.candidatesOf(task)) {
			if (candidate.status === 'NEW') this.startCandidate(task, candidate);
			else if (candidate.held) {
				candidate.held = false;
				this.placeCall(task, candidate);
			}
		}
	}

	stopTask(task) {
		for (const candidate of this.state.candidatesOf(task)) {
			if (!this.state.isFinal(candidate)) this.cancelCandidate(task, candidate, { report: false });
		}
	}

	// ----- candidates ------------------------------------------------------------------------

	/** A candidate was added; it is called now if its task runs. */
	candidateAdded(task, candidate) {
		if (task.status === 'PROCESS') this.startCandidate(task, candidate);
	}

	startCandidate(task, candidate) {
		if (candidate.status !== 'NEW') return; // already started
		candidate.status = 'CALLING';
		this.state.touch(candidate);
		this.step(candidate, DIAL_SECONDS, () => this.placeCall(task, candidate));
	}

	/** Stops calling a candidate. `report`: send CANDIDATE_CHANGED (cancel endpoint). */
	cancelCandidate(task, candidate, { report = true } = {}) {
		const next = this.nextSteps.get(candidate.id);
		if (next) next.cancel();
		this.nextSteps.delete(candidate.id);
		const current = candidate.lastCallId && this.state.calls.get(candidate.lastCallId);
		if (current && current.status === 'INPROGRESS') {
			current.status = 'CANCEL';
			current.endedAt = new Date().toISOString();
		}
		candidate.held = false;
		if (report) this.finishCandidate(task, candidate, 'CANCELLED');
		else {
			candidate.status = 'CANCELLED';
			this.state.touch(candidate);
		}
	}

	/** Schedules the candidate's next step after `seconds` simulated seconds. */
	step(candidate, seconds, action) {
		const handle = this.scheduler.after(this.scheduler.secondsToMs(seconds), () => {
			this.nextSteps.delete(candidate.id);
			action();
		});
		this.nextSteps.set(candidate.id, handle);
	}

	scriptOf(candidate) {
		for (const phone of candidate.phone) {
			const script = this.scripts.get(phone);
			if (script) return script;
		}
		return normalizeScript({ attempts: ['ANSWERED'] });
	}

	/** The outcome of the candidate's n-th call (0-based); past the script's end its last one repeats. */
	outcomeOf(candidate, index) {
		const script = this.scriptOf(candidate);
		const attempt = script.attempts[Math.min(index, script.attempts.length - 1)];
		const successful = isSuccessful(attempt);
		return {
			...attempt,
			redirect: attempt.redirect ?? (successful && Boolean(script.redirect)),
			efficiency: attempt.efficiency ?? (successful && Boolean(script.efficiency)),
			result: attempt.result ?? script.result ?? {},
			durationSec: attempt.durationSec ?? script.durationSec ?? TALK_SECONDS,
			redirectDestination: script.redirectDestination ?? 'ch',
			redirectDestinationId: script.redirectDestinationId ?? 'operator-channel-1',
		};
	}

	/** The number to dial next, honouring callStrategy and numberLimit; null when none is left. */
	nextPhone(task, candidate) {
		const redial = task.body.redialStrategyOptions || {};
		const numberLimit =
			redial.redialStrategyEn && redial.numberLimit && redial.numberLimit.redial
				? redial.numberLimit.count
				: Infinity;
		const phones = candidate.phone;
		const usable = (phone) => (candidate.callsByPhone[phone] || 0) < numberLimit;
		const start = task.body.callStrategy === 'PARALLEL' ? candidate.attempts % phones.length : 0;
		for (let i = 0; i < phones.length; i += 1) {
			const phone = phones[(start + i) % phones.length];
			if (usable(phone)) return phone;
		}
		return null;
	}

	placeCall(task, candidate) {
		if (task.status !== 'PROCESS') {
			candidate.held = true; // resumed by play
			return;
		}
		const phone = this.nextPhone(task, candidate);
		if (phone === null) {
			this.finishCandidate(task, candidate, 'FAILED');
			return;
		}
		const outcome = this.outcomeOf(candidate, candidate.attempts);
		candidate.attempts += 1;
		candidate.callsByPhone[phone] = (candidate.callsByPhone[phone] || 0) + 1;
		candidate.status = 'CALLING';
		const call = this.state.createCall({
			taskId: task.id,
			candidateId: candidate.id,
			botId: candidate.botSettingsId || task.body.defaultExecData,
			callFrom: task.body.cidData || DEFAULT_CALLER_ID,
			callTo: phone,
			attempt: candidate.attempts,
			variables: { ...candidate.variables },
		});
		candidate.callIds.push(call.id);
		candidate.lastCallId = call.id;
		this.state.touch(candidate);
		this.step(candidate, outcome.durationSec, () => this.endCall(task, candidate, call, outcome));
	}

	endCall(task, candidate, call, outcome) {
		call.status = outcome.status;
		call.endedAt = new Date().toISOString();
		call.result = structuredClone(outcome.result);
		const recordCall =
			!task.body.additionalOptions || task.body.additionalOptions.recordCall !== false;
		if (recordCall && outcome.status === 'ANSWERED')
			call.record = { url: `/records/${call.id}.mp3` };
		const callbackData = callbackDataForWebhook(candidate.callbackData);

		if (outcome.redirect) {
			call.redirected = true;
			this.emit(task, 'CALL_REDIRECTED', {
				event: 'CALL_REDIRECTED',
				id: call.id,
				redirectAdditional: null,
				redirectAnons: null,
				redirectDestination: outcome.redirectDestination,
				redirectDestinationId: outcome.redirectDestinationId,
				callbackData,
			});
		}
		this.emit(task, 'CALL_ENDED', {
			event: 'CALL_ENDED',
			type: 'OUTGOING',
			botId: call.botId,
			id: call.id,
			taskId: task.id,
			candidateId: candidate.id,
			status: call.status,
			callFrom: call.callFrom,
			callTo: call.callTo,
			startedAt: call.startedAt,
			variables: { ...candidate.variables },
			result: structuredClone(outcome.result),
			callbackData,
		});

		if (isSuccessful(outcome)) {
			if (outcome.efficiency) {
				this.emit(task, 'EFFICIENCY_REACHED', {
					event: 'EFFICIENCY_REACHED',
					id: call.id,
					taskId: task.id,
					candidateId: candidate.id,
					callbackData,
				});
			}
			this.finishCandidate(task, candidate, 'SUCCESS');
			return;
		}

		const redial = this.redialAfter(task, candidate, outcome);
		if (!redial) {
			this.finishCandidate(task, candidate, 'FAILED');
			return;
		}
		candidate.redialsByRule[redial.rule] = (candidate.redialsByRule[redial.rule] || 0) + 1;
		candidate.status = 'RECALL_SCHEDULED';
		this.state.touch(candidate);
		const scheduledAt = new Date(
			Date.now() + this.scheduler.secondsToMs(redial.seconds),
		).toISOString();
		this.emit(task, 'RECALL_SCHEDULED', {
			event: 'RECALL_SCHEDULED',
			taskId: task.id,
			candidateId: candidate.id,
			callbackData,
			scheduledAt,
		});
		this.step(candidate, redial.seconds, () => this.placeCall(task, candidate));
	}

	/** Whether the task's redial rules allow another call after this outcome. */
	redialAfter(task, candidate, outcome) {
		const options = task.body.redialStrategyOptions;
		if (!options || !options.redialStrategyEn) return null;
		const rule = redialRuleFor(outcome);
		const settings = rule && options[rule];
		if (!settings || !settings.redial) return null;
		if ((candidate.redialsByRule[rule] || 0) >= (settings.count || 0)) return null;
		const limit = options.candidateLimit;
		if (limit && limit.redial && candidate.attempts >= limit.count) return null;
		if (this.nextPhone(task, candidate) === null) return null;
		return { rule, seconds: settings.time || 0 };
	}

	finishCandidate(task, candidate, status) {
		candidate.status = status;
		candidate.held = false;
		this.state.touch(candidate);
		this.emit(task, 'CANDIDATE_CHANGED', {
			event: 'CANDIDATE_CHANGED',
			taskId: task.id,
			candidateId: candidate.id,
			lastCallId: candidate.lastCallId,
			status,
			callbackData: callbackDataForWebhook(candidate.callbackData),
		});
	}

	// ----- webhooks --------------------------------------------------------------------------

	/** Webhook targets of a task: its template's current ones when made from a template. */
	targetsOf(task) {
		if (task.webhooksFromTemplate) {
			const template = this.state.findTemplate(task.templateId);
			if (template) return template.webhookUrls || [];
		}
		return task.body.webhookUrls || [];
	}

	emit(task, event, payload) {
		let targets = 0;
		for (const target of this.targetsOf(task)) {
			if (typeof target === 'string') {
				this.delivery.enqueue({ url: target, event, body: payload });
				targets += 1;
				continue;
			}
			const enabled =
				target &&
				target.url &&
				target.events &&
				target.events[event] &&
				target.events[event].value === true;
			if (!enabled) continue;
			this.delivery.enqueue({
				url: target.url,
				event,
				body: payload,
				delaySeconds: target.delay || 0,
			});
			targets += 1;
		}
		this.events.push({ event, taskId: task.id, payload, targets, at: Date.now() });
	}
}

module.exports = { Player, CALL_STATUSES, normalizeScript, redialRuleFor };
