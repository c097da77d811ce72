// @ts-check
'use strict';

/**
 * The HTTP side: routing, authentication, body parsing, request log, rate limit, latency and
 * fault injection. Control calls under /__sim/ skip all of that (see control.js).
 *
 * Order for an API request: read body → connection delay (first request of a connection) → log →
 * rate limit (429) → latency → fault before
 * handling (delay / status / drop) → authentication (401) → route (404/405) → content type (415) →
 * JSON parse (400) → operation → fault after handling → answer.
 */

const http = require('http');
const { ApiError, validationError } = require('./errors');

const CIS_PREFIX = '/cis/api/v1/';
/** Operations for which the spec names the accept and content-type headers (checked with strictHeaders). */
const SPEC_JSON_HEADER_OPERATIONS = ['createSingle', 'createTemplateBatch'];

/** [method, path pattern, operation name, needs Bearer auth] */
const ROUTES = [
	['POST', '/api/v1/auth/login', 'login', false],
	['POST', '/api/v1/auth/refresh', 'refresh', false],
	['POST', '/cis/api/v1/calls/:callId/depersonalization', 'depersonalizeCall', true],
	['DELETE', '/cis/api/v1/calls/:callId/record', 'deleteRecord', true],
	['POST', '/cis/api/v1/telephony/autoCallCandidate/single', 'createSingle', true],
	['POST', '/cis/api/v1/telephony/autoCallCandidate/single/batch', 'createTemplateBatch', true],
	['POST', '/cis/api/v1/telephony/autoCallCandidate/batch', 'addCandidateBatch', true],
	['POST', '/cis/api/v1/telephony/autoCallCandidate/cancel', 'cancelCandidate', true],
	[
		'POST',
		'/cis/api/v1/telephony/autoCallCandidate/:candidateId/depersonalization',
		'depersonalizeCandidate',
		true,
	],
	['POST', '/cis/api/v1/telephony/autoCallCandidate', 'addCandidate', true],
	['POST', '/cis/api/v1/telephony/autoCall', 'createTask', true],
	['GET', '/cis/api/v1/telephony/autoCall', 'listTasks', true],
	['GET', '/cis/api/v1/telephony/autoCall/:taskId', 'getTask', true],
	['POST', '/cis/api/v1/telephony/autoCall/:taskId/play', 'playTask', true],
	['POST', '/cis/api/v1/telephony/autoCall/:taskId/pause', 'pauseTask', true],
	['POST', '/cis/api/v1/telephony/autoCall/:taskId/halted', 'haltTask', true],
].map(([method, pattern, operation, needsAuth]) => ({
	method: String(method),
	segments: String(pattern).split('/'),
	operation: String(operation),
	needsAuth: Boolean(needsAuth),
}));

/** @returns {Record<string, string> | null} path parameters, or null when the path does not match */
function matchPath(segments, path) {
	const parts = path.split('/');
	if (parts.length !== segments.length) return null;
	/** @type {Record<string, string>} */
	const params = {};
	for (let i = 0; i < segments.length; i += 1) {
		if (segments[i].startsWith(':')) {
			if (parts[i] === '') return null;
			try {
				params[segments[i].slice(1)] = decodeURIComponent(parts[i]);
			} catch {
				return null;
			}
		} else if (segments[i] !== parts[i]) {
			return null;
		}
	}
	return params;
}

/** @returns {{route: any, params: Record<string, string>} | {methodNotAllowed: true} | null} */
function findRoute(method, path) {
	let pathKnown = false;
	for (const route of ROUTES) {
		const params = matchPath(route.segments, path);
		if (!params) continue;
		if (route.method === method) return { route, params };
		pathKnown = true;
	}
	return pathKnown ? { methodNotAllowed: true } : null;
}

function readBody(request) {
	return new Promise((resolve, reject) => {
		/** @type {Buffer[]} */
		const chunks = [];
		request.on('data', (chunk) => chunks.push(chunk));
		request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		request.on('error', reject);
	});
}

function parseQuery(searchParams) {
	/** @type {Record<string, string>} */
	const query = {};
	for (const [key, value] of searchParams) query[key] = value;
	return query;
}

/**
 * @param {http.ServerResponse} response
 * @param {number} status
 * @param {any} body undefined → empty body
 * @param {Record<string, string>} [headers]
 */
function send(response, status, body, headers = {}) {
	if (response.destroyed || response.headersSent) return;
	const data = body === undefined ? '' : JSON.stringify(body);
	const allHeaders = { ...headers, 'content-length': String(Buffer.byteLength(data)) };
	if (body !== undefined) allHeaders['content-type'] = 'application/json';
	response.writeHead(status, allHeaders);
	response.end(data);
}

/**
 * @param {object} sim internal simulator context (see index.js)
 * @returns {http.Server}
 */
function createHttpServer(sim) {
	const server = http.createServer((request, response) => {
		handle(sim, request, response).catch((error) => {
			// An unexpected bug in the simulator: make it loud, not a hang.
			console.error('[cis-simulator] internal error', error);
			send(response, 500, {
				error: 'Simulator internal error',
				details: { message: String(error && error.message) },
			});
		});
	});
	server.keepAliveTimeout = 60_000;
	server.headersTimeout = 61_000;
	return server;
}

async function handle(sim, request, response) {
	const rawBody = await readBody(request);
	const url = new URL(request.url || '/', 'http://127.0.0.1');
	const path = url.pathname;
	const method = (request.method || 'GET').toUpperCase();
	const query = parseQuery(url.searchParams);

	if (path.startsWith('/__sim/') || path === '/__sim') {
		const result = await sim.control.handle({ method, path, query, rawBody });
		send(response, result.status, result.body);
		return;
	}

	// A new connection to a remote service costs a TCP and TLS handshake before the request
	// arrives; modelled as a delay before the first API request of each connection.
	let connectionDelayMs = 0;
	if (!sim.connectionsSeen.has(request.socket)) {
		sim.connectionsSeen.add(request.socket);
		sim.connectionCount += 1;
		connectionDelayMs = sim.connectionDelayMs;
		if (connectionDelayMs > 0) await sim.scheduler.sleep(connectionDelayMs);
	}

	let body;
	let bodyIsJson = true;
	if (rawBody !== '') {
		try {
			body = JSON.parse(rawBody);
		} catch {
			bodyIsJson = false;
		}
	}
	const entry = {
		method,
		path,
		query,
		headers: { ...request.headers },
		body,
		rawBody,
		/** @type {number | null} 0 when the socket was dropped */
		status: null,
		at: Date.now(),
		/** @type {string | undefined} */
		fault: undefined,
		/** what the simulator added before answering: the connection delay, then latency and a fault's delay */
		delayedMs: connectionDelayMs,
	};
	sim.requests.push(entry);

	const answer = (status, answerBody, headers) => {
		entry.status = status;
		send(response, status, answerBody, headers);
	};
	const drop = () => {
		entry.status = 0;
		request.socket.destroy();
	};

	if (!sim.rateLimiter.tryAcquire()) {
		entry.fault = 'rate-limit';
		answer(429, { error: 'Too Many Requests' }, { 'retry-after': '1' });
		return;
	}
	try {
		if (sim.latencyMs > 0) {
			entry.delayedMs += sim.latencyMs;
			await sim.scheduler.sleep(sim.latencyMs);
		}

		const fault = sim.faults.match(method, path, rawBody);
		if (fault) {
			entry.fault = fault.kind;
			if (fault.delayMs) {
				entry.delayedMs += fault.delayMs;
				await sim.scheduler.sleep(fault.delayMs);
			}
			if (!fault.afterHandling) {
				if (fault.drop) return drop();
				if (fault.status) return answer(fault.status, fault.body, fault.headers);
			}
		}

		let result;
		try {
			result = route(sim, {
				method,
				path,
				query,
				headers: request.headers,
				rawBody,
				body,
				bodyIsJson,
			});
		} catch (error) {
			if (!(error instanceof ApiError)) throw error;
			result = { status: error.status, body: error.body, headers: error.headers };
		}

		if (fault && fault.afterHandling) {
			if (fault.drop) return drop();
			if (fault.status) return answer(fault.status, fault.body, fault.headers);
		}
		answer(result.status, result.body, result.headers);
	} finally {
		sim.rateLimiter.release();
	}
}

/** Authentication, routing, body checks, then the operation. Throws ApiError. */
function route(sim, { method, path, query, headers, rawBody, body, bodyIsJson }) {
	const found = findRoute(method, path);
	const needsAuth = found && 'route' in found ? found.route.needsAuth : path.startsWith(CIS_PREFIX);
	if (needsAuth) {
		const verdict = sim.auth.check(headers.authorization);
		if (verdict === 'expired') throw new ApiError(401, { error: 'Token is expired.' });
		if (verdict !== 'ok') throw new ApiError(401, { error: 'Unauthorized' });
	}
	if (!found)
		throw new ApiError(404, { error: `No route found for "${method} ${path}"`, details: null });
	if ('methodNotAllowed' in found) {
		throw new ApiError(405, { error: `Method ${method} not allowed for ${path}`, details: null });
	}
	if (sim.strictHeaders && SPEC_JSON_HEADER_OPERATIONS.includes(found.route.operation)) {
		// Section 5: 4.4 and 4.5 "also send the headers accept: application/json and content-type: application/json".
		if (!/application\/json/i.test(String(headers.accept || ''))) {
			throw new ApiError(406, {
				error: 'Not Acceptable: send "accept: application/json"',
				details: null,
			});
		}
		if (rawBody === '')
			throw new ApiError(415, { error: 'Unsupported Media Type: send a JSON body', details: null });
	}
	if (rawBody !== '') {
		const contentType = String(headers['content-type'] || '');
		if (!/^application\/json\b/i.test(contentType)) {
			throw new ApiError(415, {
				error: `Unsupported Media Type: send the body as application/json, got "${contentType}"`,
				details: null,
			});
		}
		if (!bodyIsJson) throw validationError('body', 'body is not valid JSON');
	}
	return sim.operations[found.route.operation]({ params: found.params, query, body, headers });
}

module.exports = { createHttpServer, ROUTES, findRoute };
