// @ts-check
'use strict';

/**
 * Misbehaviour on demand: injected faults (one rule per `injectFault` call), random faults at a
 * seeded rate, and a rate limiter (requests per sliding second and requests in flight).
 */

const { STATUS_CODES } = require('http');

/**
 * @typedef {object} FaultSpec
 * @property {string} [method]
 * @property {string | RegExp | {regex: string, flags?: string}} [path] exact path (no query) or pattern
 * @property {number} [times] how many requests it hits (default 1; Infinity for all)
 * @property {number} [status] answer with this status
 * @property {any} [body] answer body (JSON); default {error: <reason phrase>, details: null}
 * @property {Record<string, string>} [headers]
 * @property {number} [delayMs] wait before going on
 * @property {boolean} [drop] destroy the socket without an answer
 * @property {boolean} [afterHandling] process the request (state changes) then answer with the fault
 * @property {string} [bodyIncludes] only requests whose raw body contains this text (e.g. one phone number)
 */

/**
 * What the server must do with one request.
 * @typedef {object} FaultAction
 * @property {string} kind label for the request log ('injected', '429', 'drop', 'slow', ...)
 * @property {number} [delayMs]
 * @property {number} [status]
 * @property {any} [body]
 * @property {Record<string, string>} [headers]
 * @property {boolean} [drop]
 * @property {boolean} [afterHandling]
 */

const RANDOM_FAULT_KINDS = [
	'429',
	'500',
	'502',
	'503',
	'504',
	'drop',
	'slow',
	'after503',
	'afterDrop',
];

/** Small deterministic PRNG (mulberry32). */
function seededRandom(seed) {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

function toPathMatcher(path) {
	if (path === undefined || path === null) return () => true;
	if (path instanceof RegExp)
		return (p) => new RegExp(path.source, path.flags.replace('g', '')).test(p);
	if (typeof path === 'object' && typeof path.regex === 'string') {
		const regex = new RegExp(path.regex, path.flags || '');
		return (p) => regex.test(p);
	}
	return (p) => p === path;
}

function toTimes(times) {
	if (times === undefined || times === null) return 1;
	if (times === 'Infinity' || times === -1) return Infinity;
	return Number(times);
}

function defaultErrorBody(status) {
	return { error: STATUS_CODES[status] || `HTTP ${status}`, details: null };
}

function statusAction(kind, status, extra = {}) {
	const headers = status === 429 ? { 'retry-after': '1' } : {};
	return { kind, status, body: defaultErrorBody(status), headers, ...extra };
}

/**
 * @typedef {object} FaultRule
 * @property {(m: string) => boolean} matchesMethod
 * @property {(p: string) => boolean} matchesPath
 * @property {(rawBody: string) => boolean} matchesBody
 * @property {number} remaining
 * @property {FaultSpec} spec
 */

class FaultInjector {
	constructor() {
		/** @type {FaultRule[]} */
		this.rules = [];
		this.randomFaults = null;
	}

	/** @param {FaultSpec} spec */
	inject(spec = {}) {
		const method = spec.method ? String(spec.method).toUpperCase() : undefined;
		const bodyIncludes = spec.bodyIncludes === undefined ? undefined : String(spec.bodyIncludes);
		this.rules.push({
			matchesMethod: (m) => !method || m === method,
			matchesPath: toPathMatcher(spec.path),
			matchesBody: (rawBody) =>
				bodyIncludes === undefined || String(rawBody || '').includes(bodyIncludes),
			remaining: toTimes(spec.times),
			spec,
		});
	}

	/**
	 * @param {{rate: number, kinds?: string[], seed?: number, slowMs?: number, path?: any} | null} options
	 */
	setRate(options) {
		if (!options || !options.rate) {
			this.randomFaults = null;
			return;
		}
		const kinds = options.kinds && options.kinds.length ? options.kinds.map(String) : ['503'];
		for (const kind of kinds) {
			if (!RANDOM_FAULT_KINDS.includes(kind)) {
				throw new Error(`unknown fault kind "${kind}"; known: ${RANDOM_FAULT_KINDS.join(', ')}`);
			}
		}
		this.randomFaults = {
			rate: Number(options.rate),
			kinds,
			random: seededRandom(options.seed ?? 1),
			slowMs: options.slowMs ?? 2000,
			matchesPath: toPathMatcher(options.path),
		};
	}

	/**
	 * The fault for this request, if any. Injected rules win over random faults.
	 * @param {string} method
	 * @param {string} path
	 * @param {string} [rawBody]
	 * @returns {FaultAction | null}
	 */
	match(method, path, rawBody = '') {
		const rule = this.rules.find(
			(r) =>
				r.remaining > 0 && r.matchesMethod(method) && r.matchesPath(path) && r.matchesBody(rawBody),
		);
		if (rule) {
			rule.remaining -= 1;
			if (rule.remaining <= 0) this.rules.splice(this.rules.indexOf(rule), 1);
			const { spec } = rule;
			const headers = { ...(spec.headers || {}) };
			if (
				spec.status === 429 &&
				!Object.keys(headers).some((h) => h.toLowerCase() === 'retry-after')
			) {
				headers['retry-after'] = '1';
			}
			return {
				kind: 'injected',
				delayMs: spec.delayMs,
				status: spec.status,
				body:
					spec.body !== undefined
						? spec.body
						: spec.status
							? defaultErrorBody(spec.status)
							: undefined,
				headers,
				drop: Boolean(spec.drop),
				afterHandling: Boolean(spec.afterHandling),
			};
		}
		const random = this.randomFaults;
		if (!random || !random.matchesPath(path)) return null;
		if (random.random() >= random.rate) return null;
		const kind = random.kinds[Math.floor(random.random() * random.kinds.length)];
		switch (kind) {
			case 'drop':
				return { kind, drop: true };
			case 'slow':
				return { kind, delayMs: random.slowMs };
			case 'after503':
				return statusAction(kind, 503, { afterHandling: true });
			case 'afterDrop':
				return { kind, drop: true, afterHandling: true };
			default:
				return statusAction(kind, Number(kind));
		}
	}

	clear() {
		this.rules = [];
		this.randomFaults = null;
	}
}

/** Requests per sliding second and requests in flight. Over either → 429 with Retry-After: 1. */
class RateLimiter {
	constructor() {
		this.limits = null;
		/** @type {number[]} arrival times of accepted requests within the last second */
		this.recent = [];
		this.inFlight = 0;
	}

	/** @param {{perSecond?: number, inFlight?: number} | null} limits */
	set(limits) {
		this.limits = limits && (limits.perSecond || limits.inFlight) ? { ...limits } : null;
		this.recent = [];
	}

	/**
	 * Call once per API request. Returns false when it must be refused; otherwise the request is
	 * counted and `release()` must be called when it has been answered.
	 */
	tryAcquire(now = Date.now()) {
		const limits = this.limits;
		if (limits) {
			while (this.recent.length && this.recent[0] <= now - 1000) this.recent.shift();
			if (limits.perSecond && this.recent.length >= limits.perSecond) return false;
			if (limits.inFlight && this.inFlight >= limits.inFlight) return false;
			this.recent.push(now);
		}
		this.inFlight += 1;
		return true;
	}

	release() {
		this.inFlight = Math.max(0, this.inFlight - 1);
	}

	clear() {
		this.limits = null;
		this.recent = [];
	}
}

module.exports = { FaultInjector, RateLimiter, RANDOM_FAULT_KINDS, seededRandom };
