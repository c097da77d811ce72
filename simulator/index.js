// @ts-check
'use strict';

/**
 * Simulator of the CIS Auto-Call service (TWIN voice-bot platform), written from what
 * docs/service.md says of it. See README.md in this folder.
 *
 *   const { createSimulator } = require('./simulator');
 *   const sim = await createSimulator({ port: 0, timeScale: 0.01 });
 *   ... sim.url ...
 *   await sim.close();
 */

const { Scheduler } = require('./scheduler');
const { Auth } = require('./auth');
const { FaultInjector, RateLimiter } = require('./faults');
const { SimState, NO_REDIALS } = require('./state');
const { WebhookDelivery } = require('./delivery');
const { Player } = require('./player');
const { Operations } = require('./operations');
const { ControlApi } = require('./control');
const { createHttpServer } = require('./server');
const { validateWebhookUrls } = require('./validate');

const HOST = '127.0.0.1';

/**
 * @typedef {object} SimulatorOptions
 * @property {number} [port] 0 (default) = a free port
 * @property {string} [token] static Bearer token (default 'sim-token')
 * @property {Array<{email: string, password: string}>} [users] accounts for the login endpoint
 * @property {number} [timeScale] multiplies every simulated duration (default 1)
 * @property {number} [latencyMs] added latency per API request (default 0)
 * @property {number} [connectionDelayMs] added before the first API request of each new connection (default 0)
 * @property {object | null} [defaultTemplate] settings of the default template (null: none)
 * @property {number} [maxBatchSize] largest batch accepted by the batch endpoints (default unlimited)
 * @property {number} [webhookMaxAttempts] delivery attempts per event (default 8)
 * @property {number} [webhookTimeoutMs] how long a webhook receiver may take to answer (default 5000)
 * @property {number} [webhookConcurrency] first attempts to one URL in flight at once (default 1: one after another)
 * @property {'independent' | 'perCandidate'} [webhookOrder] `independent` (default): each event re-sent on its own schedule; `perCandidate`: a candidate's event is sent only after its earlier events to the same URL were taken (200) or given up (delivery.js)
 * @property {boolean} [strictHeaders] 4.4 and 4.5 require `accept: application/json` (406 otherwise), as spec section 5 says they send it (default false)
 * @property {'perCandidate' | 'perTask'} [batchAnswerShape] answer of the batch endpoints: `[[A], [B]]` (default) or one inner array per task `[[A, B]]`
 * @property {string} [host] the loopback address to listen on (default 127.0.0.1; e.g. 127.0.0.2 for a test that allows only that address)
 */

/** @returns {'perCandidate' | 'perTask'} */
function checkBatchAnswerShape(shape) {
	if (shape !== 'perCandidate' && shape !== 'perTask') {
		throw new Error(
			`batchAnswerShape must be "perCandidate" or "perTask", got ${JSON.stringify(shape)}`,
		);
	}
	return shape;
}

/** The simulator listens on a loopback address only (127.x.x.x): tests send traffic to this machine alone. */
function checkLoopbackHost(host) {
	if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(String(host)))
		throw new Error(`host must be a 127.x.x.x address, got ${JSON.stringify(host)}`);
	return String(host);
}

/** @param {SimulatorOptions} [options] */
async function createSimulator(options = {}) {
	const config = {
		port: options.port ?? 0,
		token: options.token ?? 'sim-token',
		users: options.users ?? [{ email: 'user@example.com', password: 'secret' }],
		timeScale: options.timeScale ?? 1,
		latencyMs: options.latencyMs ?? 0,
		connectionDelayMs: options.connectionDelayMs ?? 0,
		strictHeaders: options.strictHeaders ?? false,
		host: checkLoopbackHost(options.host ?? HOST),
		batchAnswerShape: checkBatchAnswerShape(options.batchAnswerShape ?? 'perCandidate'),
	};

	const scheduler = new Scheduler({ timeScale: config.timeScale });
	const auth = new Auth({ staticToken: config.token, users: config.users });
	const state = new SimState({ defaultTemplate: options.defaultTemplate });
	const delivery = new WebhookDelivery({
		scheduler,
		maxAttempts: options.webhookMaxAttempts ?? 8,
		timeoutMs: options.webhookTimeoutMs ?? 5000,
		order: options.webhookOrder ?? 'independent',
		concurrency: options.webhookConcurrency ?? 1,
	});
	const player = new Player({ state, scheduler, delivery });
	const operations = new Operations({
		state,
		player,
		scheduler,
		auth,
		maxBatchSize: options.maxBatchSize,
		batchAnswerShape: config.batchAnswerShape,
	});
	const faults = new FaultInjector();
	const rateLimiter = new RateLimiter();
	/** @type {any[]} */
	const requests = [];

	/** What the HTTP layer needs. */
	const context = {
		requests,
		auth,
		faults,
		rateLimiter,
		scheduler,
		operations,
		latencyMs: config.latencyMs,
		connectionDelayMs: config.connectionDelayMs,
		/** sockets that carried an API request; connectionCount counts the new ones since the last reset */
		connectionsSeen: new WeakSet(),
		connectionCount: 0,
		strictHeaders: config.strictHeaders,
		/** @type {ControlApi | null} */
		control: null,
	};

	const server = createHttpServer(context);
	/** @type {Set<import('net').Socket>} */
	const sockets = new Set();
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(config.port, config.host, () => {
			server.off('error', reject);
			resolve(undefined);
		});
	});
	const address = /** @type {import('net').AddressInfo} */ (server.address());
	let closed = false;

	const simulator = {
		url: `http://${config.host}:${address.port}`,
		port: address.port,
		config,
		requests,
		state,
		webhookDeliveries: delivery.log,
		/** every event the player produced, whether or not a target received it */
		events: player.events,
		get logins() {
			return auth.logins;
		},
		get refreshes() {
			return auth.refreshes;
		},

		createdByPhone: () => state.createdByPhone(),
		counts: () => state.counts(),
		snapshot: () => state.snapshot(),

		/** @param {import('./faults').FaultSpec} spec */
		injectFault(spec) {
			faults.inject(spec || {});
		},
		setFaultRate(rateOptions) {
			faults.setRate(rateOptions);
		},
		setRateLimit(limits) {
			rateLimiter.set(limits);
		},
		setLatency(ms) {
			context.latencyMs = Math.max(0, Number(ms) || 0);
		},
		/** Delay before the first API request of each new connection (a remote service's handshakes). */
		setConnectionDelay(ms) {
			context.connectionDelayMs = Math.max(0, Number(ms) || 0);
		},
		/** Connections that carried at least one API request since the start or the last reset. */
		get connections() {
			return context.connectionCount;
		},
		/** @param {'perCandidate' | 'perTask'} shape */
		setBatchAnswerShape(shape) {
			operations.batchAnswerShape = checkBatchAnswerShape(shape);
		},
		expireTokens(expireOptions = {}) {
			auth.expireAll(expireOptions);
		},
		setOutcome(phone, script) {
			player.setOutcome(phone, script);
		},
		/** Keeps the first attempts of webhook deliveries back until releaseDeliveries(). */
		holdDeliveries() {
			delivery.hold();
		},
		releaseDeliveries() {
			delivery.release();
		},
		setDefaultTemplate(template) {
			return state.setDefaultTemplate(template);
		},
		addTemplate(id, template) {
			return state.addTemplate(id, template);
		},
		/** Webhook targets of an existing task, as if set in the management interface. */
		setTaskWebhooks(taskId, webhookUrls) {
			const task = state.tasks.get(taskId);
			if (!task) throw new Error(`unknown task ${taskId}`);
			validateWebhookUrls(webhookUrls);
			task.body.webhookUrls = structuredClone(webhookUrls);
			task.webhooksFromTemplate = false;
		},
		/** A finished call in the state (for 4.1 / 4.3 tests without playing a task). */
		addCall(fields = {}) {
			const { record = true, ...rest } = fields;
			const recording = record === true ? { url: '/records/added.mp3' } : record || null;
			return state.createCall({
				status: 'ANSWERED',
				endedAt: new Date().toISOString(),
				record: recording,
				...rest,
			});
		},

		/** Clears state, logs, faults and limits; keeps configuration and issued tokens. */
		reset() {
			scheduler.cancelAll();
			delivery.clear();
			player.clear();
			state.clear();
			faults.clear();
			rateLimiter.clear();
			auth.resetCounters();
			requests.length = 0;
			context.latencyMs = config.latencyMs;
			context.connectionDelayMs = config.connectionDelayMs;
			context.connectionCount = 0;
			operations.batchAnswerShape = config.batchAnswerShape;
		},

		idle() {
			return scheduler.idle();
		},

		async close() {
			if (closed) return;
			closed = true;
			scheduler.stop();
			delivery.stop();
			await new Promise((resolve) => {
				server.close(() => resolve(undefined));
				for (const socket of sockets) socket.destroy();
				server.closeAllConnections();
			});
		},
	};

	context.control = new ControlApi(simulator);
	return simulator;
}

module.exports = { createSimulator, NO_REDIALS };
