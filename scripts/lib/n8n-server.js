'use strict';
/**
 * Starts and stops a real n8n (installed by ./n8n-install.js) on 127.0.0.1, quiet and offline, and
 * runs its CLI.
 *
 *   const n8n = await startN8n({ version: '2.41.1', userFolder });   // port: a free one
 *   ...
 *   await n8n.restart();
 *   await n8n.stop();
 *
 * Each n8n runs supervised (./supervisor.js): killed with this process.
 *
 * Plain Node (CommonJS, built-ins only).
 */
const fs = require('fs');
const path = require('path');
const { ensureN8n, majorOf } = require('./n8n-install');
const { withPathFirst } = require('./node-runtime');
const {
	spawnSupervised,
	stopSupervised,
	killSupervised,
	runToEnd,
	sleep,
} = require('./supervisor');
const { httpRequest, freePort, portInUse } = require('./http');

const ENCRYPTION_KEY = 'cis-autocall-e2e-fixed-encryption-key';
/** What each n8n command logs (level info) once it serves requests or takes jobs. */
const READY_LINES = {
	start: /Editor is now accessible/,
	worker: /n8n worker is now ready/,
	webhook: /Webhook listener waiting for requests/,
};

/** The environment of a quiet, offline, loopback-only n8n. */
function n8nEnv({ version, userFolder, port, brokerPort, runtimeBinDir, logLevel, env }) {
	const base = {};
	for (const [k, v] of Object.entries(process.env)) {
		// do not leak the caller's n8n/db settings or debugger/test-runner flags into n8n
		if (
			/^(N8N_|DB_|WEBHOOK_URL$|EXECUTIONS_|QUEUE_|NODE_OPTIONS$|NODE_ENV$|GENERIC_TIMEZONE$)/.test(
				k,
			)
		)
			continue;
		base[k] = v;
	}
	const e = {
		...withPathFirst(base, runtimeBinDir),
		NO_PROXY: '127.0.0.1,localhost',
		no_proxy: '127.0.0.1,localhost',
		N8N_USER_FOLDER: userFolder,
		N8N_PORT: String(port),
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		WEBHOOK_URL: `http://127.0.0.1:${port}/`,
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}/`,
		N8N_SECURE_COOKIE: 'false',
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_PUBLIC_API_SWAGGERUI_DISABLED: 'true',
		N8N_LOG_LEVEL: logLevel,
		N8N_LOG_OUTPUT: 'console',
		// task runners (Code node only): internal mode, broker on a free loopback port
		N8N_RUNNERS_ENABLED: 'true',
		N8N_RUNNERS_MODE: 'internal',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		GENERIC_TIMEZONE: 'UTC',
		TZ: process.env.TZ || 'UTC',
	};
	// n8n 1.x refuses to start with "Unknown module" for this
	if (majorOf(version) >= 2) e.N8N_DISABLED_MODULES = 'mcp-registry';
	// SQLite through n8n's pooled driver (WAL, one writer), 2.x's default; 1.x defaults to its legacy driver (pool size
	// 0, deprecated, warned at every start), whose one shared connection can be left inside a transaction by concurrent
	// saves: n8n goes on reading its own uncommitted writes, and a restart rolls them all back (workflows, executions).
	if (majorOf(version) < 2) e.DB_SQLITE_POOL_SIZE = '3';
	for (const [k, v] of Object.entries(env || {})) {
		if (v === undefined || v === null) delete e[k];
		else e[k] = String(v);
	}
	// the public URL under the name this n8n reads: 2.x N8N_WEBHOOK_URL (WEBHOOK_URL is its deprecated
	// alias, warned about at start), 1.x only WEBHOOK_URL; callers may give either name
	const publicUrl = e.N8N_WEBHOOK_URL ?? e.WEBHOOK_URL;
	delete e.N8N_WEBHOOK_URL;
	delete e.WEBHOOK_URL;
	if (publicUrl !== undefined)
		e[majorOf(version) >= 2 ? 'N8N_WEBHOOK_URL' : 'WEBHOOK_URL'] = publicUrl;
	return e;
}

/**
 * Starts `n8n start` for `version` with N8N_USER_FOLDER=userFolder on 127.0.0.1:port
 * and waits for GET /healthz/readiness = 200.
 *
 * Options: version (default 2.41.1), userFolder (required), port (default: a free one),
 * env (extra/overriding env vars; a null value removes one), logLevel ('info'),
 * readyTimeoutMs (240000), echo (also print n8n's output to stderr; or env CIS_E2E_ECHO=1),
 * command (default 'start'; e.g. ['worker', '--concurrency=5'] or 'webhook' for queue mode: a
 * worker serves /healthz/readiness on QUEUE_HEALTH_CHECK_PORT, so give it the same port),
 * readyLine (the log line that means ready; by default the one `command` prints), label (echo prefix).
 *
 * Returns a handle { url, port, version, userFolder, process, logs, logFile,
 *   stop(), kill(), restart({ env }?), startedInMs, waitForLog(re, timeoutMs) }.
 * logs is an array of n8n's output lines (last 5000) and is kept across restarts.
 */
async function startN8n(opts = {}) {
	const version = String(opts.version || '2.41.1');
	if (!opts.userFolder) throw new Error('startN8n: userFolder is required');
	const userFolder = path.resolve(opts.userFolder);
	fs.mkdirSync(userFolder, { recursive: true });
	const install = await ensureN8n(version);
	const port = opts.port || (await freePort());
	const url = `http://127.0.0.1:${port}`;
	const logLevel = opts.logLevel || 'info';
	const echo = opts.echo || process.env.CIS_E2E_ECHO === '1';
	const readyTimeoutMs = opts.readyTimeoutMs || 240000;
	const logFile = path.join(userFolder, 'n8n-output.log');
	const logs = [];
	const waitsForEditorLine = ['info', 'verbose', 'debug'].includes(logLevel);
	const commandArgs = [].concat(opts.command || 'start');
	const readyLine = opts.readyLine || READY_LINES[commandArgs[0]] || READY_LINES.start;
	const label = opts.label || `n8n ${version}`;

	const handle = {
		url,
		port,
		version,
		major: majorOf(version),
		userFolder,
		install,
		logs,
		logFile,
		process: null,
		startedInMs: null,
	};

	let exitPromise = null;

	async function launch() {
		if (await portInUse(port)) throw new Error(`port ${port} on 127.0.0.1 is already in use`);
		const brokerPort = await freePort();
		const env = n8nEnv({
			version,
			userFolder,
			port,
			brokerPort,
			runtimeBinDir: path.dirname(install.nodeBin),
			logLevel,
			env: opts.env,
		});
		const t0 = Date.now();
		const logStart = logs.length;
		const out = fs.openSync(logFile, 'a');
		fs.writeSync(out, `\n===== n8n ${version} start ${new Date().toISOString()} port ${port}\n`);
		const child = spawnSupervised(install.nodeBin, [install.n8nBin, ...commandArgs], {
			cwd: userFolder,
			env,
			nodeBin: install.nodeBin,
		});
		handle.process = child;
		const onData = (chunk) => {
			const text = chunk.toString('utf8');
			try {
				fs.writeSync(out, text);
			} catch (_) {
				/* closed */
			}
			for (const line of text.split('\n')) {
				if (!line) continue;
				logs.push(line);
				if (echo) process.stderr.write(`[${label}] ${line}\n`);
			}
			if (logs.length > 5000) logs.splice(0, logs.length - 5000);
		};
		child.stdout.on('data', onData);
		child.stderr.on('data', onData);
		exitPromise = new Promise((resolve) => {
			child.on('exit', (code, signal) => {
				try {
					fs.closeSync(out);
				} catch (_) {
					/* ignore */
				}
				resolve({ code, signal });
			});
		});
		/** @type {{ code: number | null, signal: string | null } | null} */
		let exited = null;
		exitPromise.then((r) => (exited = r));

		for (;;) {
			if (exited) {
				killSupervised(child);
				throw new Error(
					`${label} exited during start-up (code ${exited.code}, signal ${exited.signal}). Last output:\n${logs.slice(-40).join('\n')}`,
				);
			}
			if (Date.now() - t0 > readyTimeoutMs) {
				await stopProcess();
				throw new Error(
					`${label} not ready after ${readyTimeoutMs}ms. Last output:\n${logs.slice(-40).join('\n')}`,
				);
			}
			try {
				const res = await httpRequest('GET', `${url}/healthz/readiness`, { timeoutMs: 2000 });
				// readiness only means "DB migrated, HTTP up"; n8n activates the stored active
				// workflows after that and then logs "Editor is now accessible via:" (info level)
				if (
					res.status === 200 &&
					(!waitsForEditorLine || logs.slice(logStart).some((l) => readyLine.test(l)))
				)
					break;
			} catch (_) {
				/* not listening yet */
			}
			await sleep(250);
		}
		handle.startedInMs = Date.now() - t0;
	}

	async function stopProcess(graceMs = 20000) {
		const child = handle.process;
		if (!child) return;
		await stopSupervised(child, { graceMs });
		if (exitPromise) await exitPromise;
		handle.process = null;
	}

	handle.stop = () => stopProcess();
	/** Kills the process at once (SIGKILL, as `kill -9`: no shutdown); restart() starts it again. */
	handle.kill = async () => {
		const child = handle.process;
		if (!child) return;
		await stopSupervised(child, { signal: 'SIGKILL', graceMs: 0 });
		if (exitPromise) await exitPromise;
		handle.process = null;
	};
	/**
	 * Stops and starts the process again; `env` (optional) changes its environment from this start on (a null value removes one).
	 * @param {{ env?: Record<string, string | null> }} [change]
	 */
	handle.restart = async ({ env } = {}) => {
		if (env) opts.env = { ...opts.env, ...env };
		await stopProcess();
		await launch();
		return handle;
	};
	/** Resolves with the first log line (from now, or since index `from`) matching `re`. */
	handle.waitForLog = async (re, timeoutMs = 30000, from = 0) => {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const hit = logs.slice(from).find((l) => re.test(l));
			if (hit) return hit;
			if (Date.now() > deadline)
				throw new Error(`no n8n log line matching ${re} within ${timeoutMs}ms`);
			await sleep(200);
		}
	};

	await launch();
	return handle;
}

/**
 * Runs a one-off n8n CLI command (e.g. ['execute', '--id', '1'], ['import:workflow', '--input=x.json'])
 * with the same environment as startN8n. Run it while no server uses the same userFolder.
 * Resolves { code, stdout, stderr }.
 * @param {{ version?: string, userFolder: string, args: string[], env?: NodeJS.ProcessEnv, logLevel?: string, timeoutMs?: number }} options
 */
async function runN8nCli({
	version = '2.41.1',
	userFolder,
	args,
	env,
	logLevel = 'info',
	timeoutMs = 5 * 60 * 1000,
}) {
	const install = await ensureN8n(version);
	const e = n8nEnv({
		version,
		userFolder: path.resolve(userFolder),
		port: await freePort(),
		brokerPort: await freePort(),
		runtimeBinDir: path.dirname(install.nodeBin),
		logLevel,
		env,
	});
	return runToEnd(
		install.nodeBin,
		[install.n8nBin, ...args],
		{ cwd: path.resolve(userFolder), env: e },
		timeoutMs,
	);
}

/**
 * Runs a stored workflow that starts with a Manual Trigger through the CLI:
 * `n8n execute --id=<id> --rawOutput` (mode 'cli'), while NO server uses the same userFolder
 * (stop it first; restart() afterwards). Resolves
 * { ok, code, crashedOnExit, run, stdout, stderr } where run is the printed run JSON
 * ({ data: { resultData: { runData, error? } }, status, mode, ... }) or null.
 * Seen on 2.41.1: about 1 run in 10 the process dies of SIGSEGV (exit 139) while exiting,
 * after it printed the complete JSON; that is reported as crashedOnExit: true, ok: true.
 * @param {{ version?: string, userFolder: string, workflowId: string, env?: NodeJS.ProcessEnv, timeoutMs?: number }} options
 */
async function executeWorkflowCli({ version = '2.41.1', userFolder, workflowId, env, timeoutMs }) {
	const res = await runN8nCli({
		version,
		userFolder,
		args: ['execute', `--id=${workflowId}`, '--rawOutput'],
		env,
		timeoutMs,
	});
	let run = null;
	const start = res.stdout.search(/^\{\s*$/m);
	const end = res.stdout.lastIndexOf('}');
	if (start >= 0 && end > start) {
		try {
			run = JSON.parse(res.stdout.slice(start, end + 1));
		} catch (_) {
			run = null;
		}
	}
	const crashedOnExit = res.code === 139 && run !== null;
	return {
		ok: run !== null && (res.code === 0 || crashedOnExit),
		code: res.code,
		crashedOnExit,
		run,
		stdout: res.stdout,
		stderr: res.stderr,
	};
}

module.exports = { startN8n, runN8nCli, executeWorkflowCli, ENCRYPTION_KEY };
