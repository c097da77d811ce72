'use strict';
/**
 * A child process together with everything it starts, stopped as a whole, on every platform:
 * a process group on Linux and macOS (signals to -pid), `taskkill /T` on Windows, where process
 * groups do not exist (and a detached child would open a console window).
 *
 * Plain Node (CommonJS, built-ins only).
 */
const { spawn, spawnSync } = require('child_process');

const isWindows = process.platform === 'win32';

/** spawn() whose child heads a tree that killTree() can stop. */
function spawnTree(cmd, args, opts = {}) {
	return spawn(cmd, args, isWindows ? { ...opts, windowsHide: true } : { ...opts, detached: true });
}

/**
 * Sends `signal` to the whole tree of `target` (a ChildProcess, or a pid). Windows has no signals:
 * the tree is ended at once whatever the signal (taskkill /F), and not at all once the ChildProcess
 * has exited (Windows soon gives its pid to another process). Returns false when nothing was there.
 */
function killTree(target, signal = 'SIGKILL') {
	const pid = typeof target === 'number' ? target : target && target.pid;
	if (!pid) return false;
	if (isWindows) {
		if (typeof target === 'object' && (target.exitCode !== null || target.signalCode !== null))
			return false;
		const res = spawnSync('taskkill', ['/pid', String(pid), '/T', '/F'], {
			stdio: 'ignore',
			windowsHide: true,
		});
		return res.status === 0;
	}
	try {
		process.kill(-pid, signal);
		return true;
	} catch (_) {
		return false;
	}
}

/** Whether the tree's head (Windows) or any process of the group (elsewhere) still runs. */
function treeAlive(pid) {
	try {
		process.kill(isWindows ? pid : -pid, 0);
		return true;
	} catch (e) {
		return e.code === 'EPERM';
	}
}

module.exports = { spawnTree, killTree, treeAlive, isWindows };
