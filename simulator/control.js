// @ts-check
'use strict';

/**
 * Control API under /__sim/ for a simulator running as its own process (CLI). No auth, no
 * faults, not logged. Every POST answers {ok: true} unless it returns data.
 */

class ControlApi {
	/** @param {any} simulator the public simulator object (index.js) */
	constructor(simulator) {
		this.simulator = simulator;
	}

	/**
	 * @param {{method: string, path: string, query: Record<string, string>, rawBody: string}} request
	 * @returns {Promise<{status: number, body: any}>}
	 */
	async handle({ method, path, query, rawBody }) {
		const sim = this.simulator;
		let body;
		try {
			body = rawBody ? JSON.parse(rawBody) : undefined;
		} catch {
			return { status: 400, body: { error: 'control body is not valid JSON' } };
		}
		const ok = { status: 200, body: { ok: true } };
		const key = `${method} ${path}`;
		try {
			switch (key) {
				case 'GET /__sim/requests': {
					const since = Number(query.since || 0);
					return { status: 200, body: sim.requests.slice(since) };
				}
				case 'GET /__sim/deliveries':
					return { status: 200, body: sim.webhookDeliveries };
				case 'GET /__sim/events':
					return { status: 200, body: sim.events };
				case 'GET /__sim/state':
					return { status: 200, body: sim.snapshot() };
				case 'GET /__sim/counts':
					return {
						status: 200,
						body: {
							...sim.counts(),
							logins: sim.logins,
							requests: sim.requests.length,
							connections: sim.connections,
						},
					};
				case 'GET /__sim/idle':
					await sim.idle();
					return ok;
				case 'POST /__sim/reset':
					sim.reset();
					return ok;
				case 'POST /__sim/fault':
					sim.injectFault(body || {});
					return ok;
				case 'POST /__sim/fault-rate':
					sim.setFaultRate(body || null);
					return ok;
				case 'POST /__sim/rate-limit':
					sim.setRateLimit(body || null);
					return ok;
				case 'POST /__sim/batch-answer-shape':
					sim.setBatchAnswerShape(body && body.shape);
					return ok;
				case 'POST /__sim/latency':
					sim.setLatency(Number((body && body.ms) || 0));
					return ok;
				case 'POST /__sim/connection-delay':
					sim.setConnectionDelay(Number((body && body.ms) || 0));
					return ok;
				case 'POST /__sim/outcome':
					if (!body || body.phone === undefined)
						return { status: 400, body: { error: 'phone is required' } };
					sim.setOutcome(body.phone, body.script);
					return ok;
				case 'POST /__sim/default-template':
					return { status: 200, body: sim.setDefaultTemplate(body === undefined ? null : body) };
				case 'POST /__sim/template':
					if (!body || !body.id) return { status: 400, body: { error: 'id is required' } };
					return { status: 200, body: sim.addTemplate(body.id, body.template || {}) };
				case 'POST /__sim/task-webhooks':
					if (!body || !body.taskId) return { status: 400, body: { error: 'taskId is required' } };
					sim.setTaskWebhooks(body.taskId, body.webhookUrls || []);
					return ok;
				case 'POST /__sim/expire-tokens':
					sim.expireTokens(body || {});
					return ok;
				case 'POST /__sim/call':
					return { status: 200, body: sim.addCall(body || {}) };
				default:
					return { status: 404, body: { error: `unknown control endpoint ${key}` } };
			}
		} catch (error) {
			return { status: 400, body: { error: String(error && error.message) } };
		}
	}
}

module.exports = { ControlApi };
