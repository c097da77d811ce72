'use strict';
/**
 * The CIS simulator as its own process (simulator/cli.js), plus a client of its
 * /__sim/ control API. The bench talks to it only over HTTP on 127.0.0.1, like n8n does.
 */
const path = require('path');
const { spawn } = require('child_process');
const { httpRequest, freePort } = require('../../../scripts/lib/n8n-instance');

const CLI = path.resolve(__dirname, '..', '..', '..', 'simulator', 'cli.js');

/**
 * Starts the simulator. latencyMs: added to every API request. timeScale 1000 pushes the
 * simulated calls (dial 1 s, talk 3 s) out by more than an hour, so the simulator spends its CPU
 * on answering requests only, not on playing calls while a scenario runs.
 * Resolves { url, port, token, pid, control, stop() }.
 * @param {{ port?: number, token?: string, latencyMs?: number, timeScale?: number }} [options]
 */
async function startSimulator({
	port,
	token = 'bench-token',
	latencyMs = 10,
	timeScale = 1000,
} = {}) {
	port = port || (await freePort());
	const child = spawn(
		process.execPath,
		[
			CLI,
			'--port',
			String(port),
			'--token',
			token,
			'--latency',
			String(latencyMs),
			'--time-scale',
			String(timeScale),
		],
		{ stdio: ['ignore', 'pipe', 'pipe'] },
	);
	let output = '';
	const url = await new Promise((resolve, reject) => {
		const timer = setTimeout(
			() => reject(new Error(`simulator did not start within 15 s: ${output}`)),
			15000,
		);
		child.stdout.on('data', (chunk) => {
			output += chunk;
			const match = /listening on (http:\/\/\S+)/.exec(output);
			if (match) {
				clearTimeout(timer);
				resolve(match[1]);
			}
		});
		child.stderr.on('data', (chunk) => (output += chunk));
		child.on('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`simulator exited (${code}): ${output}`));
		});
	});
	const onExit = () => {
		try {
			child.kill('SIGKILL');
		} catch (_) {
			/* gone */
		}
	};
	process.on('exit', onExit);
	const control = controlClient(url);
	return {
		url,
		port,
		token,
		pid: child.pid,
		control,
		async stop() {
			process.removeListener('exit', onExit);
			if (child.exitCode !== null) return;
			const exited = new Promise((resolve) => child.once('exit', resolve));
			child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
			await exited;
			clearTimeout(timer);
		},
	};
}

function controlClient(url) {
	async function call(method, p, body) {
		const res = await httpRequest(method, `${url}/__sim/${p}`, { body, timeoutMs: 120000 });
		if (res.status !== 200)
			throw new Error(`simulator ${method} /__sim/${p} -> ${res.status} ${res.text.slice(0, 300)}`);
		return res.body;
	}
	return {
		counts: () => call('GET', 'counts'),
		requests: (since = 0) => call('GET', `requests?since=${since}`),
		reset: () => call('POST', 'reset'),
		latency: (ms) => call('POST', 'latency', { ms }),
		connectionDelay: (ms) => call('POST', 'connection-delay', { ms }),
		rateLimit: (limits) => call('POST', 'rate-limit', limits),
		faultRate: (options) => call('POST', 'fault-rate', options),
	};
}

/**
 * What the service saw, from its request log: requests per status, the most requests that
 * arrived within any one second, and the most that were in flight at once (approximated by
 * arrival time + latency, as the log has no answer times).
 */
function summarizeRequests(requests, { pathSuffix = '', latencyMs = 0 } = {}) {
	const api = requests.filter(
		(r) => r.path.startsWith('/cis/api/v1/') && (!pathSuffix || r.path.endsWith(pathSuffix)),
	);
	const byStatus = {};
	const byFault = {};
	for (const r of api) {
		byStatus[r.status] = (byStatus[r.status] || 0) + 1;
		if (r.fault) byFault[r.fault] = (byFault[r.fault] || 0) + 1;
	}
	const times = api.map((r) => r.at).sort((a, b) => a - b);
	let maxPerSecond = 0;
	for (let i = 0, j = 0; i < times.length; i++) {
		while (times[i] - times[j] >= 1000) j++;
		maxPerSecond = Math.max(maxPerSecond, i - j + 1);
	}
	return {
		total: api.length,
		byStatus,
		byFault,
		rateLimited: byFault['rate-limit'] || 0,
		maxPerSecond,
		firstAt: times[0],
		lastAt: times[times.length - 1],
		latencyMs,
	};
}

module.exports = { startSimulator, controlClient, summarizeRequests };
