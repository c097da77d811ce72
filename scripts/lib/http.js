'use strict';
/**
 * The HTTP and port helpers of the scripts (npm start, the n8n instance driver) and of the suites
 * that reuse them: everything talks to 127.0.0.1.
 *
 *   const { httpRequest, HttpError, freePort, portFree, portInUse } = require('./http');
 *
 * Plain Node (CommonJS, built-ins only).
 */
const http = require('http');
const net = require('net');

/**
 * Minimal HTTP client (no keep-alive, so no "socket hang up" from idle sockets).
 * Resolves { status, headers, body, text } (body: parsed JSON, else the text) and never rejects
 * on HTTP status.
 * @param {string} method
 * @param {string} url
 * @param {{ headers?: Record<string, string | number>, body?: unknown, timeoutMs?: number }} [options]
 * @returns {Promise<{ status: number, headers: import('http').IncomingHttpHeaders, body: any, text: string }>}
 */
function httpRequest(method, url, { headers = {}, body, timeoutMs = 60000 } = {}) {
	return new Promise((resolve, reject) => {
		const u = new URL(url);
		let payload;
		const h = { accept: 'application/json', ...headers };
		if (body !== undefined) {
			payload = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
			if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type'))
				h['content-type'] = 'application/json';
			h['content-length'] = payload.length;
		}
		const req = http.request(
			{
				method,
				hostname: u.hostname,
				port: u.port,
				path: u.pathname + u.search,
				headers: h,
				agent: false,
			},
			(res) => {
				const chunks = [];
				res.on('data', (c) => chunks.push(c));
				res.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					let parsed = text;
					try {
						parsed = text ? JSON.parse(text) : undefined;
					} catch (_) {
						/* not JSON */
					}
					resolve({ status: res.statusCode, headers: res.headers, body: parsed, text });
				});
				res.on('error', reject);
			},
		);
		req.setTimeout(timeoutMs, () =>
			req.destroy(new Error(`${method} ${url} timed out after ${timeoutMs}ms`)),
		);
		req.on('error', reject);
		if (payload) req.write(payload);
		req.end();
	});
}

class HttpError extends Error {
	constructor(method, url, res) {
		const detail =
			typeof res.body === 'object'
				? JSON.stringify(res.body)
				: String(res.text || '').slice(0, 500);
		super(`${method} ${url} -> HTTP ${res.status}: ${detail}`);
		this.status = res.status;
		this.body = res.body;
	}
}

/** Resolves a free TCP port on 127.0.0.1. */
function freePort() {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.unref();
		srv.once('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = /** @type {import('net').AddressInfo} */ (srv.address());
			srv.close(() => resolve(port));
		});
	});
}

/** Whether this process can listen on `port` of 127.0.0.1. */
function portFree(port) {
	return new Promise((resolve) => {
		const srv = net.createServer();
		srv.once('error', () => resolve(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
}

/** Whether something answers a connection on `port` of 127.0.0.1. */
function portInUse(port) {
	return new Promise((resolve) => {
		const sock = net.connect({ host: '127.0.0.1', port });
		sock.once('connect', () => {
			sock.destroy();
			resolve(true);
		});
		sock.once('error', () => resolve(false));
	});
}

module.exports = { httpRequest, HttpError, freePort, portFree, portInUse };
