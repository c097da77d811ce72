'use strict';
/**
 * Start, drive and stop a real n8n (installed by ./n8n-install.js) on 127.0.0.1.
 *
 *   const { startN8n, setupOwner, installPackageTarball } = require('./n8n-instance');
 *   await installPackageTarball(userFolder, '/abs/pkg.tgz', '2.41.1');   // before start
 *   const n8n = await startN8n({ version: '2.41.1', userFolder, port: 5678 });
 *   const client = await setupOwner(n8n.url);                             // owner + login + API key
 *   const cred = await client.createCredential({ name, type, data });
 *   const wf = await client.createWorkflow(workflowJson);
 *   await client.activate(wf.id);
 *   ...
 *   await n8n.stop();
 *
 * Every process started here heads its own process tree (./process-tree.js), killed as a whole
 * on stop() (and on exit/SIGINT/SIGTERM of this process).
 *
 * Plain Node (CommonJS, built-ins only).
 */
const fs = require('fs');
const path = require('path');
const http = require('http');
const net = require('net');
const { ensureN8n, ensureNode, npmCli, npmEnv, majorOf, DEFAULT_VERSION } = require('./n8n-install');
const { withPathFirst } = require('./node-runtime');
const { spawnTree, killTree, treeAlive } = require('./process-tree');

const ENCRYPTION_KEY = 'cis-autocall-e2e-fixed-encryption-key';
const DEFAULT_OWNER = {
	email: 'owner@example.com',
	firstName: 'E2E',
	lastName: 'Owner',
	password: 'E2e-Passw0rd!',
};
const BROWSER_ID = 'cis-e2e-browser';
/** What each n8n command logs (level info) once it serves requests or takes jobs. */
const READY_LINES = {
	start: /Editor is now accessible/,
	worker: /n8n worker is now ready/,
	webhook: /Webhook listener waiting for requests/,
};

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/* ------------------------------------------------------------------ processes */

const liveGroups = new Set();
let hooksInstalled = false;

const killGroup = killTree;
const groupAlive = treeAlive;

function installExitHooks() {
	if (hooksInstalled) return;
	hooksInstalled = true;
	process.on('exit', () => {
		for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
	});
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		const handler = () => {
			for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
			liveGroups.clear();
			process.removeListener(sig, handler);
			// only re-raise when nobody else handles the signal
			if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
		};
		process.on(sig, handler);
	}
}

/**
 * A tiny supervisor run as the leader of each process group we start: it runs the real
 * command in the same group and, should this (parent) process die without cleaning up
 * (e.g. SIGKILL of a test runner), kills the whole group within a second.
 * SIGTERM/SIGINT are passed on to the command so n8n can shut down cleanly.
 */
const WATCHDOG = `
const [ppid, cmd, ...args] = process.argv.slice(1);
const { spawn } = require('child_process');
const child = spawn(cmd, args, { stdio: 'inherit' });
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => child.kill(s));
const timer = setInterval(() => {
	try { process.kill(Number(ppid), 0); } catch (e) {
		if (e.code !== 'ESRCH') return;
		if (process.platform === 'win32') require('child_process').spawnSync('taskkill', ['/pid', String(process.pid), '/T', '/F']);
		else { try { process.kill(-process.pid, 'SIGKILL'); } catch (_) {} }
	}
}, 1000);
child.on('error', (e) => { process.stderr.write(String(e) + '\\n'); process.exit(127); });
child.on('exit', (code, signal) => {
	clearInterval(timer);
	if (code === null) process.stderr.write('[watchdog] command ended by ' + signal + '\\n');
	process.exit(code === null ? 128 + (require('os').constants.signals[signal] || 0) : code);
});
`;

/** spawn() of `cmd args` as a new process tree, supervised by WATCHDOG. */
function spawnGroup(nodeBin, cmd, args, opts) {
	return spawnTree(nodeBin, ['-e', WATCHDOG, String(process.pid), cmd, ...args], opts);
}

/**
 * Starts `cmd args` (any program, e.g. a database server) as a supervised process group like
 * n8n's: killed with this process (exit, SIGINT, SIGTERM, and within 1 s if this process is
 * SIGKILLed). Stop it with stopSupervised(child).
 */
function spawnSupervised(cmd, args, { cwd, env, stdio = ['ignore', 'pipe', 'pipe'] } = {}) {
	const child = spawnGroup(process.execPath, cmd, args, { cwd, env, stdio });
	liveGroups.add(child.pid);
	installExitHooks();
	child.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
	return child;
}

/** Sends `signal` to the child's process group, SIGKILL after graceMs; resolves once the group is gone. */
async function stopSupervised(child, { signal = 'SIGTERM', graceMs = 20000 } = {}) {
	const pid = child.pid;
	if (groupAlive(pid)) {
		killGroup(pid, signal);
		const deadline = Date.now() + graceMs;
		while (groupAlive(pid) && Date.now() < deadline) await sleep(100);
		if (groupAlive(pid)) killGroup(pid, 'SIGKILL');
		while (groupAlive(pid)) await sleep(50);
	}
	liveGroups.delete(pid);
}

/** Resolves a free TCP port on 127.0.0.1. */
function freePort() {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address();
			srv.close(() => resolve(port));
		});
	});
}

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

/* ------------------------------------------------------------------ HTTP */

/**
 * Minimal HTTP client (no keep-alive, so no "socket hang up" from idle sockets).
 * Resolves { status, headers, body, text } and never rejects on HTTP status.
 */
function httpRequest(method, url, { headers = {}, body, timeoutMs = 60000 } = {}) {
	return new Promise((resolve, reject) => {
		const u = new URL(url);
		let payload;
		const h = { accept: 'application/json', ...headers };
		if (body !== undefined) {
			payload = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
			if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['content-type'] = 'application/json';
			h['content-length'] = payload.length;
		}
		const req = http.request(
			{ method, hostname: u.hostname, port: u.port, path: u.pathname + u.search, headers: h, agent: false },
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
		req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url} timed out after ${timeoutMs}ms`)));
		req.on('error', reject);
		if (payload) req.write(payload);
		req.end();
	});
}

class HttpError extends Error {
	constructor(method, url, res) {
		const detail = typeof res.body === 'object' ? JSON.stringify(res.body) : String(res.text || '').slice(0, 500);
		super(`${method} ${url} -> HTTP ${res.status}: ${detail}`);
		this.status = res.status;
		this.body = res.body;
	}
}

/* ------------------------------------------------------------------ environment */

/** The environment of a quiet, offline, loopback-only n8n. */
function n8nEnv({ version, userFolder, port, brokerPort, runtimeBinDir, logLevel, env }) {
	const base = {};
	for (const [k, v] of Object.entries(process.env)) {
		// do not leak the caller's n8n/db settings or debugger/test-runner flags into n8n
		if (/^(N8N_|DB_|WEBHOOK_URL$|EXECUTIONS_|QUEUE_|NODE_OPTIONS$|NODE_ENV$|GENERIC_TIMEZONE$)/.test(k)) continue;
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
	for (const [k, v] of Object.entries(env || {})) {
		if (v === undefined || v === null) delete e[k];
		else e[k] = String(v);
	}
	return e;
}

/* ------------------------------------------------------------------ package install */

/** The Node ({ nodeBin, nodedir }) for an n8n version string, or the one given. */
async function resolveNode(runtime) {
	if (!runtime) runtime = DEFAULT_VERSION;
	if (typeof runtime === 'string') return ensureNode(runtime);
	if (runtime.nodeBin) return { nodeBin: runtime.nodeBin, nodedir: runtime.nodedir || null };
	throw new Error('runtime must be an n8n version string or { nodeBin, nodedir }');
}

function runToEnd(cmd, args, opts, timeoutMs = 10 * 60 * 1000) {
	return new Promise((resolve, reject) => {
		const child = spawnGroup(opts.nodeBin || process.execPath, cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
		liveGroups.add(child.pid);
		installExitHooks();
		let out = '';
		let err = '';
		child.stdout.on('data', (c) => (out += c));
		child.stderr.on('data', (c) => (err += c));
		const timer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), timeoutMs);
		child.on('error', (e) => {
			clearTimeout(timer);
			liveGroups.delete(child.pid);
			reject(e);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			killGroup(child, 'SIGKILL'); // leave nothing behind
			liveGroups.delete(child.pid);
			resolve({ code, signal, stdout: out, stderr: err });
		});
	});
}

/**
 * Installs a packed community package the way a user does:
 * `npm install --omit=dev --omit=peer --ignore-scripts <tarball>` inside
 * $N8N_USER_FOLDER/.n8n/nodes/ (created with a minimal package.json).
 * `runtime` is an n8n version string (the Node that runs it is used) or { nodeBin, nodedir } (e.g. the
 * result of ensureN8n). Returns { name, version, dir } of the installed package. Call it before
 * startN8n (or restart).
 */
async function installPackageTarball(userFolder, tarballPath, runtime) {
	const node = await resolveNode(runtime);
	const tarball = path.resolve(tarballPath);
	if (!fs.existsSync(tarball)) throw new Error(`tarball not found: ${tarball}`);
	const nodesDir = path.join(path.resolve(userFolder), '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const pj = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(pj)) fs.writeFileSync(pj, JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2));
	const env = npmEnv(node);
	const res = await runToEnd(
		node.nodeBin,
		[npmCli(), 'install', '--omit=dev', '--omit=peer', '--ignore-scripts', '--no-audit', '--no-fund', tarball],
		{ cwd: nodesDir, env },
	);
	if (res.code !== 0) throw new Error(`npm install ${tarball} failed (exit ${res.code}):\n${res.stdout}\n${res.stderr}`);
	// read the installed package's name from the tarball's package.json via the dependencies entry
	const deps = JSON.parse(fs.readFileSync(pj, 'utf8')).dependencies || {};
	const name = Object.keys(deps).find((k) => String(deps[k]).includes(path.basename(tarball))) || Object.keys(deps)[0];
	const dir = path.join(nodesDir, 'node_modules', name);
	const version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
	return { name, version, dir };
}

/* ------------------------------------------------------------------ start / stop */

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
 *   stop(), restart(), startedInMs, waitForLog(re, timeoutMs) }.
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
		const child = spawnGroup(install.nodeBin, install.nodeBin, [install.n8nBin, ...commandArgs], {
			cwd: userFolder,
			env,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		handle.process = child;
		liveGroups.add(child.pid);
		installExitHooks();
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
		let exited = null;
		exitPromise.then((r) => (exited = r));

		for (;;) {
			if (exited) {
				liveGroups.delete(child.pid);
				killGroup(child, 'SIGKILL');
				throw new Error(`${label} exited during start-up (code ${exited.code}, signal ${exited.signal}). Last output:\n${logs.slice(-40).join('\n')}`);
			}
			if (Date.now() - t0 > readyTimeoutMs) {
				await stopProcess();
				throw new Error(`${label} not ready after ${readyTimeoutMs}ms. Last output:\n${logs.slice(-40).join('\n')}`);
			}
			try {
				const res = await httpRequest('GET', `${url}/healthz/readiness`, { timeoutMs: 2000 });
				// readiness only means "DB migrated, HTTP up"; n8n activates the stored active
				// workflows after that and then logs "Editor is now accessible via:" (info level)
				if (res.status === 200 && (!waitsForEditorLine || logs.slice(logStart).some((l) => readyLine.test(l)))) break;
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
		const pid = child.pid;
		if (groupAlive(pid)) {
			killGroup(pid, 'SIGTERM');
			const deadline = Date.now() + graceMs;
			while (groupAlive(pid) && Date.now() < deadline) await sleep(200);
			if (groupAlive(pid)) killGroup(pid, 'SIGKILL');
			while (groupAlive(pid)) await sleep(100);
		}
		if (exitPromise) await exitPromise;
		liveGroups.delete(pid);
		handle.process = null;
	}

	handle.stop = () => stopProcess();
	handle.restart = async () => {
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
			if (Date.now() > deadline) throw new Error(`no n8n log line matching ${re} within ${timeoutMs}ms`);
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
 */
async function runN8nCli({ version = '2.41.1', userFolder, args, env, logLevel = 'info', timeoutMs = 5 * 60 * 1000 }) {
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
	return runToEnd(install.nodeBin, [install.n8nBin, ...args], { cwd: path.resolve(userFolder), env: e }, timeoutMs);
}

/**
 * Runs a stored workflow that starts with a Manual Trigger through the CLI:
 * `n8n execute --id=<id> --rawOutput` (mode 'cli'), while NO server uses the same userFolder
 * (stop it first; restart() afterwards). Resolves
 * { ok, code, crashedOnExit, run, stdout, stderr } where run is the printed run JSON
 * ({ data: { resultData: { runData, error? } }, status, mode, ... }) or null.
 * Seen on 2.41.1: about 1 run in 10 the process dies of SIGSEGV (exit 139) while exiting,
 * after it printed the complete JSON; that is reported as crashedOnExit: true, ok: true.
 */
async function executeWorkflowCli({ version = '2.41.1', userFolder, workflowId, env, timeoutMs }) {
	const res = await runN8nCli({ version, userFolder, args: ['execute', `--id=${workflowId}`, '--rawOutput'], env, timeoutMs });
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
	return { ok: run !== null && (res.code === 0 || crashedOnExit), code: res.code, crashedOnExit, run, stdout: res.stdout, stderr: res.stderr };
}

/* ------------------------------------------------------------------ client */

const TERMINAL = new Set(['success', 'error', 'crashed', 'canceled']);

function isFinished(ex) {
	return Boolean(ex && (TERMINAL.has(ex.status) || (ex.finished && ex.status !== 'running' && ex.status !== 'waiting')));
}

/**
 * A client for one n8n instance: `rest` uses the owner's cookie session (editor API,
 * /rest/...), `api` uses the public API key (/api/v1/...). Both throw HttpError
 * (with .status and .body) on a non-2xx answer; `raw*` variants never throw.
 */
function createClient(baseUrl, { cookie = '', apiKey = '', owner = DEFAULT_OWNER, version } = {}) {
	const state = { cookie, apiKey, publishStyle: null, serverVersion: version || null };

	function storeCookie(res) {
		const sc = res.headers['set-cookie'];
		if (!sc) return;
		for (const c of sc) {
			const [pair] = c.split(';');
			if (pair.startsWith('n8n-auth=')) state.cookie = pair;
		}
	}

	async function rawRest(method, p, body) {
		const res = await httpRequest(method, `${baseUrl}/rest${p}`, {
			headers: { cookie: state.cookie, 'browser-id': BROWSER_ID },
			body,
		});
		storeCookie(res);
		return res;
	}

	async function rest(method, p, body) {
		const res = await rawRest(method, p, body);
		if (res.status < 200 || res.status >= 300) throw new HttpError(method, `/rest${p}`, res);
		return res.body && typeof res.body === 'object' && 'data' in res.body ? res.body.data : res.body;
	}

	async function rawApi(method, p, body) {
		return httpRequest(method, `${baseUrl}/api/v1${p}`, { headers: { 'X-N8N-API-KEY': state.apiKey }, body });
	}

	async function api(method, p, body) {
		const res = await rawApi(method, p, body);
		if (res.status < 200 || res.status >= 300) throw new HttpError(method, `/api/v1${p}`, res);
		return res.body;
	}

	const client = {
		url: baseUrl,
		version,
		owner,
		get cookie() {
			return state.cookie;
		},
		get apiKey() {
			return state.apiKey;
		},
		rest,
		rawRest,
		api,
		rawApi,

		/** POST /rest/login; the body field is emailOrLdapLoginId (2.x) or email (1.x): both are tried. */
		async login(email = owner.email, password = owner.password) {
			let last;
			for (const body of [{ emailOrLdapLoginId: email, password }, { email, password }]) {
				last = await rawRest('POST', '/login', body);
				if (last.status === 200) return last.body && last.body.data;
			}
			throw new HttpError('POST', '/rest/login', last);
		},

		/**
		 * Creates a public API key with every scope the owner may grant and keeps it.
		 * New shape {label, scopes, expiresAt:null} when GET /rest/api-keys/scopes exists, else {label}.
		 */
		async createApiKey(label = `e2e-${Date.now()}`) {
			const scopesRes = await rawRest('GET', '/api-keys/scopes');
			const attempts = [];
			if (scopesRes.status === 200) {
				const scopes = scopesRes.body && scopesRes.body.data ? scopesRes.body.data : scopesRes.body;
				attempts.push({ label, scopes, expiresAt: null });
			}
			attempts.push({ label });
			let last;
			for (const body of attempts) {
				last = await rawRest('POST', '/api-keys', body);
				if (last.status === 200) {
					const d = last.body.data || last.body;
					state.apiKey = d.rawApiKey || d.apiKey;
					return { ...d, apiKey: state.apiKey, scopes: body.scopes };
				}
			}
			throw new HttpError('POST', '/rest/api-keys', last);
		},

		/**
		 * POST /api/v1/credentials; returns { id, name, type, ... }.
		 * n8n adds the fields allowedHttpRequestDomains/allowedDomains to credential types that
		 * authenticate HTTP requests. Its public-API JSON schema on 1.123.x then wrongly demands
		 * allowedDomains when allowedHttpRequestDomains is absent ("requires property
		 * allowedDomains"); on that answer the call is retried once with
		 * allowedHttpRequestDomains: 'all' (the default the editor would store).
		 */
		async createCredential({ name, type, data }) {
			const res = await rawApi('POST', '/credentials', { name, type, data });
			if (res.status >= 200 && res.status < 300) return res.body;
			if (res.status === 400 && /allowedDomains/.test(res.text) && data && data.allowedHttpRequestDomains === undefined) {
				return api('POST', '/credentials', { name, type, data: { ...data, allowedHttpRequestDomains: 'all' } });
			}
			throw new HttpError('POST', '/api/v1/credentials', res);
		},

		/**
		 * POST /api/v1/workflows with only the fields the public API accepts
		 * (name, nodes, connections, settings, staticData, pinData).
		 */
		async createWorkflow(json) {
			const body = {
				name: json.name || `e2e ${Date.now()}`,
				nodes: json.nodes,
				connections: json.connections || {},
				settings: json.settings || { executionOrder: 'v1' },
			};
			if (json.staticData) body.staticData = json.staticData;
			if (json.pinData && Object.keys(json.pinData).length) body.pinData = json.pinData;
			return api('POST', '/workflows', body);
		},

		async getWorkflow(id) {
			return api('GET', `/workflows/${id}`);
		},

		async deleteWorkflow(id) {
			return api('DELETE', `/workflows/${id}`);
		},

		/**
		 * 2.x only: GET /rest/workflows/:id/publication-status ->
		 * { status: 'in_progress'|'not_published'|'published'|'partial'|'failed', triggers: [{nodeId,status,errorMessage}] }.
		 * Resolves null on 1.x (no such endpoint: activation there is synchronous).
		 */
		async publicationStatus(id) {
			if ((await client.serverMajor()) < 2) return null;
			return rest('GET', `/workflows/${id}/publication-status`);
		},

		/** The n8n version the server reports (GET /rest/settings -> versionCli), cached. */
		async serverVersion() {
			if (!state.serverVersion) {
				const settings = await rest('GET', '/settings');
				state.serverVersion = settings.versionCli || version;
			}
			return state.serverVersion;
		},

		async serverMajor() {
			return Number(String(await client.serverVersion()).split('.')[0]);
		},

		/**
		 * 2.x publishes through an outbox: the publish call returns before the triggers are
		 * registered (webhooks answer 404 for ~0.2 s, a trigger's create() runs later). This
		 * waits until the publication settled. want: 'published' or 'not_published'.
		 * Rejects when the publication failed (err.publication holds the status and the
		 * triggers' errorMessage). Resolves the status (null on 1.x).
		 */
		async waitForPublication(id, want = 'published', timeoutMs = 30000) {
			const deadline = Date.now() + timeoutMs;
			let st;
			for (;;) {
				st = await client.publicationStatus(id);
				if (st === null) return null;
				if (st.status !== 'in_progress') {
					if (st.status === want) return st;
					if (want === 'published' && (st.status === 'failed' || st.status === 'partial')) {
						const msgs = (st.triggers || []).filter((tr) => tr.errorMessage).map((tr) => `${tr.nodeId}: ${tr.errorMessage}`);
						const e = new Error(`publishing workflow ${id} ${st.status}: ${msgs.join('; ') || JSON.stringify(st)}`);
						e.publication = st;
						throw e;
					}
				}
				if (Date.now() > deadline) {
					const e = new Error(`workflow ${id} publication not "${want}" within ${timeoutMs}ms: ${JSON.stringify(st)}`);
					e.publication = st;
					throw e;
				}
				await sleep(100);
			}
		},

		/**
		 * Activates (1.x: POST /activate) / publishes (2.x: POST /publish, falling back to
		 * /activate on 404) and, unless wait === false, waits until the triggers are live
		 * (see waitForPublication). 1.x reports activation errors as HTTP 400 right away.
		 * Resolves the workflow returned by the public API.
		 */
		async activate(id, { wait = true, timeoutMs = 30000 } = {}) {
			const order = state.publishStyle === 'activate' ? ['activate'] : ['publish', 'activate'];
			let last;
			let ok = null;
			for (const verb of order) {
				last = await rawApi('POST', `/workflows/${id}/${verb}`, verb === 'publish' ? {} : undefined);
				if (last.status >= 200 && last.status < 300) {
					state.publishStyle = verb;
					ok = last.body;
					break;
				}
				if (last.status !== 404 && last.status !== 405) break;
			}
			if (!ok) throw new HttpError('POST', `/api/v1/workflows/${id}/${state.publishStyle || 'publish|activate'}`, last);
			if (wait) await client.waitForPublication(id, 'published', timeoutMs);
			return ok;
		},

		/** Deactivates (1.x) / unpublishes (2.x) and, unless wait === false, waits until the triggers are gone. */
		async deactivate(id, { wait = true, timeoutMs = 30000 } = {}) {
			const order = state.publishStyle === 'activate' ? ['deactivate'] : ['unpublish', 'deactivate'];
			let last;
			let ok = null;
			for (const verb of order) {
				last = await rawApi('POST', `/workflows/${id}/${verb}`);
				if (last.status >= 200 && last.status < 300) {
					ok = last.body;
					break;
				}
				if (last.status !== 404 && last.status !== 405) break;
			}
			if (!ok) throw new HttpError('POST', `/api/v1/workflows/${id}/unpublish|deactivate`, last);
			if (wait) await client.waitForPublication(id, 'not_published', timeoutMs);
			return ok;
		},

		/** GET /api/v1/executions?workflowId=… (newest first); all pages. */
		async listExecutions(workflowId, { includeData = false, status, limit = 250 } = {}) {
			const out = [];
			let cursor;
			for (;;) {
				const q = new URLSearchParams({ limit: String(limit) });
				if (workflowId) q.set('workflowId', String(workflowId));
				if (includeData) q.set('includeData', 'true');
				if (status) q.set('status', status);
				if (cursor) q.set('cursor', cursor);
				const res = await api('GET', `/executions?${q}`);
				out.push(...(res.data || []));
				if (!res.nextCursor || !(res.data || []).length) break;
				cursor = res.nextCursor;
			}
			return out;
		},

		async getExecution(id, { includeData = true } = {}) {
			return api('GET', `/executions/${id}?includeData=${includeData ? 'true' : 'false'}`);
		},

		/**
		 * Polls until at least n executions of the workflow are finished; resolves them
		 * (with data, oldest first). Rejects after timeoutMs listing what was seen.
		 */
		async waitForExecutions(workflowId, n = 1, timeoutMs = 30000, { includeData = true } = {}) {
			const deadline = Date.now() + timeoutMs;
			let seen = [];
			for (;;) {
				seen = await client.listExecutions(workflowId, { includeData });
				const done = seen.filter(isFinished);
				if (done.length >= n) return done.sort((a, b) => Number(a.id) - Number(b.id));
				if (Date.now() > deadline) {
					const e = new Error(
						`expected ${n} finished execution(s) of workflow ${workflowId} within ${timeoutMs}ms, saw ${seen.length}: ${JSON.stringify(seen.map((x) => ({ id: x.id, status: x.status, finished: x.finished })))}`,
					);
					e.executions = seen;
					throw e;
				}
				await sleep(300);
			}
		},

		/**
		 * Runs a stored workflow through the editor's manual-run endpoint
		 * (POST /rest/workflows/:id/run), starting at its trigger node (default: the first
		 * Manual Trigger), waits for it and returns the execution (public API, with data).
		 * Works on 1.123.x and 2.41.x (see test/e2e/lib/README.md for the body shapes).
		 */
		async runWorkflowManually(id, { triggerName, timeoutMs = 60000 } = {}) {
			const wf = await rest('GET', `/workflows/${id}`);
			const trigger = triggerName
				? wf.nodes.find((nd) => nd.name === triggerName)
				: wf.nodes.find((nd) => nd.type === 'n8n-nodes-base.manualTrigger') || wf.nodes.find((nd) => /trigger/i.test(nd.type));
			if (!trigger) throw new Error(`workflow ${id} has no trigger node to start from`);
			// 2.x runs the stored workflow, the body only says where to start;
			// 1.x wants the workflow itself in the body (as its editor sends it)
			const v2Body = { triggerToStartFrom: { name: trigger.name } };
			const v1Body = { workflowData: wf, triggerToStartFrom: { name: trigger.name } };
			const bodies = (await client.serverMajor()) >= 2 ? [v2Body, v1Body] : [v1Body, v2Body];
			let last;
			let result;
			for (const body of bodies) {
				last = await rawRest('POST', `/workflows/${id}/run`, body);
				if (last.status === 200) {
					result = last.body.data || last.body;
					break;
				}
			}
			if (!result) throw new HttpError('POST', `/rest/workflows/${id}/run`, last);
			if (result.waitingForWebhook) throw new Error(`workflow ${id}: n8n is waiting for a test webhook call, not a manual run`);
			const execId = result.executionId;
			if (!execId) throw new Error(`workflow ${id}: unexpected run answer ${JSON.stringify(result)}`);
			const deadline = Date.now() + timeoutMs;
			// n8n 1.x can report status "error" a moment before the error itself is saved.
			let errorWithoutDataUntil = 0;
			for (;;) {
				const r = await rawApi('GET', `/executions/${execId}?includeData=true`);
				if (r.status === 200 && isFinished(r.body)) {
					const recorded = r.body.status !== 'error' || Boolean(r.body.data && r.body.data.resultData && r.body.data.resultData.error);
					if (recorded) return r.body;
					errorWithoutDataUntil ||= Date.now() + 3000;
					if (Date.now() > errorWithoutDataUntil) return r.body;
				}
				if (Date.now() > deadline) throw new Error(`execution ${execId} of workflow ${id} not finished within ${timeoutMs}ms (last: ${r.status} ${r.body && r.body.status})`);
				await sleep(250);
			}
		},

		/**
		 * Tests a credential the way the editor does (its "Retry" / save-time test):
		 * POST /rest/credentials/test { credentials: { id, name, type, data } }.
		 * - 2.x requires the id of a stored credential, and `data` must be sent: the server
		 *   merges it with the stored data (redacted values are swapped back) and tests that;
		 *   without data the test fails with 'Node "Temp-Node" does not have any credentials…'.
		 * - When `data` is omitted the stored data is fetched first (GET /rest/credentials/:id?includeData=true)
		 *   and sent back, which tests exactly what is stored, on both versions.
		 * - Unsaved data (no id, sent as id '') is accepted by 2.41.1 for the owner (who has
 *   credential:manageInstance) but refused with 403 by 1.123.81: store the credential first.
		 * Resolves { status: 'OK'|'Error', message }.
		 */
		async testCredential({ id, name, type, data }) {
			if (id !== undefined && (!data || !type || name === undefined)) {
				const stored = await rest('GET', `/credentials/${id}?includeData=true`);
				type = type || stored.type;
				name = name === undefined ? stored.name : name;
				data = data || stored.data || {};
			}
			const credentials = { id: id === undefined ? '' : String(id), name: name || '', type, data: data || {} };
			return rest('POST', '/credentials/test', { credentials });
		},

		/** POST to a production webhook of an active workflow: /webhook/<path>. */
		async callWebhook(webhookPath, body, { method = 'POST', headers = {}, test = false } = {}) {
			return httpRequest(method, `${baseUrl}/${test ? 'webhook-test' : 'webhook'}/${webhookPath.replace(/^\//, '')}`, { headers, body });
		},
	};
	return client;
}

/**
 * Sets up the instance owner (POST /rest/owner/setup; skipped when one already exists),
 * logs in (keeping the cookie), creates a public API key with all scopes, and returns
 * the client (see createClient).
 */
async function setupOwner(url, owner = DEFAULT_OWNER, { version } = {}) {
	owner = { ...DEFAULT_OWNER, ...owner };
	const client = createClient(url, { owner, version });
	const res = await client.rawRest('POST', '/owner/setup', {
		email: owner.email,
		firstName: owner.firstName,
		lastName: owner.lastName,
		password: owner.password,
	});
	if (res.status !== 200 && !(res.status === 400 && /already/i.test(res.text))) {
		throw new HttpError('POST', '/rest/owner/setup', res);
	}
	await client.login(owner.email, owner.password);
	await client.createApiKey();
	return client;
}

module.exports = {
	startN8n,
	setupOwner,
	createClient,
	installPackageTarball,
	runN8nCli,
	executeWorkflowCli,
	httpRequest,
	freePort,
	spawnSupervised,
	stopSupervised,
	HttpError,
	DEFAULT_OWNER,
	ENCRYPTION_KEY,
};
