'use strict';
/**
 * Process supervision for the programs the scripts and suites start (n8n, npm, Postgres, Redis):
 * each runs as the head of its own process tree (./process-tree.js) behind a tiny watchdog, and is
 * killed as a whole on stop, and on exit/SIGINT/SIGTERM of this process (within 1 s if this
 * process is SIGKILLed).
 *
 *   const child = spawnSupervised('redis-server', ['--port', '0']);
 *   await stopSupervised(child);
 *
 * Plain Node (CommonJS, built-ins only).
 */
const { spawnTree, killTree, treeAlive } = require('./process-tree');

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

const liveGroups = new Set();
let hooksInstalled = false;

function installExitHooks() {
	if (hooksInstalled) return;
	hooksInstalled = true;
	process.on('exit', () => {
		for (const pid of liveGroups) killTree(pid, 'SIGKILL');
	});
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		const handler = () => {
			for (const pid of liveGroups) killTree(pid, 'SIGKILL');
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
 * A stop signals the whole group, so the command gets SIGTERM/SIGINT exactly once, straight from
 * stopSupervised: the watchdog only outlives it and never passes a signal on. A second SIGTERM
 * would end n8n 1.x at once in the middle of its shutdown (it listens with process.once).
 */
const WATCHDOG = `
const [ppid, cmd, ...args] = process.argv.slice(1);
const { spawn } = require('child_process');
const child = spawn(cmd, args, { stdio: 'inherit' });
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => {});
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
function spawnWatched(nodeBin, cmd, args, opts) {
	return spawnTree(nodeBin, ['-e', WATCHDOG, String(process.pid), cmd, ...args], opts);
}

/**
 * Starts `cmd args` (any program: n8n, npm, a database server) as a supervised process group:
 * killed with this process (exit, SIGINT, SIGTERM, and within 1 s if this process is SIGKILLed).
 * `nodeBin` is the Node that runs the watchdog (default: this one). Stop it with stopSupervised(child).
 * child.exited resolves { code, signal } once it has ended.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, stdio?: import('child_process').StdioOptions, nodeBin?: string }} [options]
 * @returns {import('child_process').ChildProcess & { exited: Promise<{ code: number | null, signal: NodeJS.Signals | null }> }}
 */
function spawnSupervised(
	cmd,
	args,
	{ cwd, env, stdio = ['ignore', 'pipe', 'pipe'], nodeBin = process.execPath } = {},
) {
	const child = spawnWatched(nodeBin, cmd, args, { cwd, env, stdio });
	liveGroups.add(child.pid);
	installExitHooks();
	return Object.assign(child, {
		exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))),
	});
}

/** Sends `signal` to the child's process group, SIGKILL after graceMs; resolves once the group is gone. */
async function stopSupervised(child, { signal = 'SIGTERM', graceMs = 20000 } = {}) {
	const pid = child.pid;
	if (treeAlive(pid)) {
		killTree(pid, signal);
		const deadline = Date.now() + graceMs;
		while (treeAlive(pid) && Date.now() < deadline) await sleep(100);
		if (treeAlive(pid)) killTree(pid, 'SIGKILL');
		while (treeAlive(pid)) await sleep(50);
	}
	liveGroups.delete(pid);
}

/** Kills a supervised group at once (SIGKILL) and forgets it: for a start that went wrong. */
function killSupervised(child) {
	killTree(child, 'SIGKILL');
	liveGroups.delete(child.pid);
}

/**
 * Runs `cmd args` supervised to its end, collecting its output; SIGKILLed after timeoutMs.
 * Resolves { code, signal, stdout, stderr }.
 */
function runToEnd(cmd, args, opts, timeoutMs = 10 * 60 * 1000) {
	return new Promise((resolve, reject) => {
		const child = spawnSupervised(cmd, args, {
			cwd: opts.cwd,
			env: opts.env,
			nodeBin: opts.nodeBin,
		});
		let out = '';
		let err = '';
		child.stdout.on('data', (c) => (out += c));
		child.stderr.on('data', (c) => (err += c));
		const timer = setTimeout(() => killTree(child.pid, 'SIGKILL'), timeoutMs);
		child.on('error', (e) => {
			clearTimeout(timer);
			liveGroups.delete(child.pid);
			reject(e);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			killSupervised(child); // leave nothing behind
			resolve({ code, signal, stdout: out, stderr: err });
		});
	});
}

module.exports = { spawnSupervised, stopSupervised, killSupervised, runToEnd, sleep };
