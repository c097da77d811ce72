#!/usr/bin/env node
'use strict';
/**
 * The programs the test suites need from the machine: `redis-server` (queue-mode suite) and a
 * Chromium or Google Chrome (editor suite). One place that finds them, says clearly what is
 * missing and how to get it, and installs them only where that is allowed:
 *
 * - as root, with apt-get;
 * - not root, with `sudo -n apt-get` when passwordless sudo works AND the caller allows it
 *   (CI=true, as on hosted CI runners, or CIS_INSTALL_WITH_SUDO=1);
 * - otherwise never: the message says what to install and which variable points to it.
 *
 * Library (findTool, ensureTool, installDecision, missingMessage) and command line:
 *   node scripts/lib/tools.js find redis-server chromium     prints the paths; exit 1 when one is missing
 *   node scripts/lib/tools.js ensure redis-server chromium   installs what is missing where allowed
 *
 * Plain Node (CommonJS, built-ins only).
 */
const fs = require('fs');
const path = require('path');
const { spawn, spawnSync } = require('child_process');

/**
 * What the suites need, where to look, and how to get it. Why a table: the message, the search and
 * the install all read the same facts, so they cannot disagree.
 */
const TOOLS = {
	'redis-server': {
		label: 'redis-server',
		usedBy: 'the queue-mode suite (npm run test:queue) starts its own Redis with it',
		envVar: 'CIS_REDIS_SERVER',
		commands: ['redis-server'],
		// Homebrew's folders, for shells that do not have them on PATH
		paths: { darwin: ['/opt/homebrew/bin/redis-server', '/usr/local/bin/redis-server'] },
		apt: { package: 'redis-server', onUbuntu: true },
		howTo: [
			['Debian/Ubuntu', 'sudo apt-get install redis-server'],
			['macOS', 'brew install redis'],
		],
	},
	chromium: {
		label: 'Chromium or Google Chrome',
		usedBy:
			"the editor suite (npm run test:ui) drives n8n's editor in it, headless (no browser is downloaded)",
		envVar: 'CIS_CHROMIUM',
		paths: {
			linux: ['/usr/bin/chromium'],
			darwin: [
				'/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
				'/Applications/Chromium.app/Contents/MacOS/Chromium',
			],
		},
		// chromium-browser last: on Ubuntu it is only a stub that points to the snap
		commands: ['chromium', 'google-chrome', 'google-chrome-stable', 'chrome', 'chromium-browser'],
		// GitHub's hosted runners set CHROME_BIN to their preinstalled Google Chrome
		envFallbacks: ['CHROME_BIN'],
		// Debian's package; Ubuntu's "chromium" is a snap, which apt-get cannot install here
		apt: { package: 'chromium', onUbuntu: false },
		howTo: [
			['Debian', 'sudo apt-get install chromium'],
			[
				'Ubuntu',
				'Google Chrome from https://www.google.com/chrome/ (or: sudo snap install chromium)',
			],
			[
				'macOS',
				'Google Chrome from https://www.google.com/chrome/ (or: brew install --cask chromium)',
			],
		],
	},
};

/** Why an error class: the suites print its message as it is (what to do), not a stack trace. */
class ToolMissingError extends Error {
	constructor(message) {
		super(message);
		this.name = 'ToolMissingError';
	}
}

function isExecutableFile(file) {
	try {
		fs.accessSync(file, fs.constants.X_OK);
		return fs.statSync(file).isFile();
	} catch (_) {
		return false;
	}
}

/** The first executable `command` in the PATH folders, or null (what `command -v` does). */
function onPath(command, envPath, isExecutable = isExecutableFile) {
	for (const dir of String(envPath || '').split(path.delimiter)) {
		if (!dir) continue;
		const file = path.join(dir, command);
		if (isExecutable(file)) return file;
	}
	return null;
}

/**
 * Where a tool is: { found: path or null, source, looked: [where it was looked for] }. Why the
 * variable decides alone when it is set: a path given on purpose that does not work is a mistake
 * to report, not to hide behind another browser or server found elsewhere.
 */
function findTool(
	name,
	{ env = process.env, platform = process.platform, isExecutable = isExecutableFile } = {},
) {
	const tool = TOOLS[name];
	if (!tool) throw new Error(`unknown tool ${name} (known: ${Object.keys(TOOLS).join(', ')})`);
	const given = env[tool.envVar];
	if (given) {
		if (isExecutable(given))
			return { found: given, source: `$${tool.envVar}`, looked: [`$${tool.envVar}=${given}`] };
		return {
			found: null,
			source: null,
			looked: [`$${tool.envVar}=${given} (not an executable file)`],
		};
	}
	const looked = [`$${tool.envVar} (not set)`];
	for (const command of tool.commands) {
		const file = onPath(command, env.PATH, isExecutable);
		if (file) return { found: file, source: `PATH (${command})`, looked };
	}
	looked.push(`PATH (${tool.commands.join(', ')})`);
	// then the platform's usual places (Debian's /usr/bin/chromium, Homebrew, macOS apps)
	const candidates = ((tool.paths && tool.paths[platform]) || []).map((file) => [file, file]);
	for (const variable of tool.envFallbacks || []) {
		if (env[variable]) candidates.push([env[variable], `$${variable}=${env[variable]}`]);
	}
	for (const [file, label] of candidates) {
		if (isExecutable(file)) return { found: file, source: label, looked };
		looked.push(label);
	}
	return { found: null, source: null, looked };
}

/**
 * Whether a missing tool may be installed here, and how: { how: 'root' | 'sudo' | 'none', why }.
 * Pure (the facts are passed in) so the rule is tested as written: a package manager runs only as
 * root, or through passwordless sudo that the caller allowed (CI=true or CIS_INSTALL_WITH_SUDO=1);
 * never a sudo that would ask for a password.
 */
function installDecision({ tool, platform, hasAptGet, isUbuntu, isRoot, sudoAllowed, sudoWorks }) {
	const spec = TOOLS[tool];
	if (platform !== 'linux')
		return {
			how: 'none',
			why: `only apt-get on Linux is run by these scripts (this is ${platform})`,
		};
	if (!hasAptGet) return { how: 'none', why: 'no apt-get on PATH' };
	if (!spec.apt || (isUbuntu && !spec.apt.onUbuntu))
		return { how: 'none', why: `apt-get has no ${spec.label} that runs here` };
	if (isRoot) return { how: 'root', why: 'running as root' };
	if (!sudoAllowed)
		return {
			how: 'none',
			why: 'not root; sudo is used only when allowed (CI=true or CIS_INSTALL_WITH_SUDO=1)',
		};
	if (!sudoWorks) return { how: 'none', why: 'not root and no passwordless sudo' };
	return { how: 'sudo', why: 'passwordless sudo' };
}

/** The text shown when a tool is missing: what, why it is needed, where we looked, how to get it. */
function missingMessage(name, lookup, decision) {
	const tool = TOOLS[name];
	const width = Math.max(...tool.howTo.map(([where]) => where.length)) + 1;
	const lines = [
		`${tool.label} not found: ${tool.usedBy}.`,
		`  looked at: ${lookup.looked.join(', ')}`,
		'  get it:',
		...tool.howTo.map(([where, how]) => `    ${`${where}:`.padEnd(width)} ${how}`),
		`  or set ${tool.envVar} to its path.`,
	];
	if (decision) lines.push(`  not installed automatically: ${decision.why}.`);
	return lines.join('\n');
}

/* ------------------------------------------------------------------ facts of this machine */

function machineFacts(env = process.env) {
	let osRelease = '';
	try {
		osRelease = fs.readFileSync('/etc/os-release', 'utf8');
	} catch (_) {
		// not Linux, or a minimal image: only used to tell Ubuntu from Debian
	}
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	const sudoAllowed = env.CI === 'true' || env.CIS_INSTALL_WITH_SUDO === '1';
	const sudo = onPath('sudo', env.PATH);
	return {
		platform: process.platform,
		hasAptGet: Boolean(onPath('apt-get', env.PATH)),
		isUbuntu: /^(ID|ID_LIKE)=.*ubuntu/m.test(osRelease),
		isRoot,
		sudoAllowed,
		// asked only when allowed; -n: fails at once instead of asking for a password
		sudoWorks:
			!isRoot &&
			sudoAllowed &&
			Boolean(sudo) &&
			spawnSync(sudo, ['-n', 'true'], { stdio: 'ignore' }).status === 0,
	};
}

function runLogged(cmd, args, { env, logFile }) {
	return new Promise((resolve, reject) => {
		const out = fs.openSync(logFile, 'a');
		const child = spawn(cmd, args, { env, stdio: ['ignore', out, out] });
		child.on('error', (err) => {
			fs.closeSync(out);
			reject(err);
		});
		child.on('exit', (code) => {
			fs.closeSync(out);
			if (code === 0) resolve();
			else reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}`));
		});
	});
}

function tail(file, lines = 15) {
	try {
		return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
	} catch (_) {
		return '';
	}
}

/**
 * The tool's path; installs it first where installDecision allows it. Throws ToolMissingError with
 * missingMessage otherwise. Why here and not in each suite: one rule for every suite and for CI.
 * @param {string} name
 * @param {{ env?: NodeJS.ProcessEnv, logDir?: string, log?: (line: string) => void }} [options]
 */
async function ensureTool(
	name,
	{ env = process.env, logDir, log = (line) => process.stderr.write(`[tools] ${line}\n`) } = {},
) {
	const lookup = findTool(name, { env });
	if (lookup.found) return lookup.found;
	const tool = TOOLS[name];
	// a path given on purpose that does not work: say so, do not install something else
	if (env[tool.envVar]) throw new ToolMissingError(missingMessage(name, lookup, null));
	const decision = installDecision({ tool: name, ...machineFacts(env) });
	if (decision.how === 'none') throw new ToolMissingError(missingMessage(name, lookup, decision));

	const logFile = path.join(
		logDir || fs.mkdtempSync(path.join(require('os').tmpdir(), 'cis-tools-')),
		`apt-${tool.apt.package}.log`,
	);
	const prefix = decision.how === 'sudo' ? ['sudo', '-n'] : [];
	const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
	const apt = async (args) => {
		const argv = [
			...prefix,
			...(prefix.length ? ['env', 'DEBIAN_FRONTEND=noninteractive'] : []),
			'apt-get',
			...args,
		];
		await runLogged(argv[0], argv.slice(1), { env: aptEnv, logFile });
	};
	log(
		`${tool.label} missing: ${prefix.join(' ')}${prefix.length ? ' ' : ''}apt-get install ${tool.apt.package} (${decision.why}; log ${logFile})`,
	);
	try {
		await apt(['update', '-qq']);
		await apt(['install', '-y', '-qq', '--no-install-recommends', tool.apt.package]);
	} catch (err) {
		throw new ToolMissingError(
			`${missingMessage(name, lookup, null)}\n  installing it failed: ${err.message}\n${tail(logFile)}`,
		);
	}
	const after = findTool(name, { env });
	if (!after.found)
		throw new ToolMissingError(
			`${missingMessage(name, after, null)}\n  apt-get installed ${tool.apt.package}, but it is still not found (log ${logFile})`,
		);
	log(`${tool.label}: ${after.found}`);
	return after.found;
}

module.exports = {
	TOOLS,
	ToolMissingError,
	findTool,
	ensureTool,
	installDecision,
	missingMessage,
	onPath,
};

if (require.main === module) {
	const [mode, ...names] = process.argv.slice(2);
	if (!['find', 'ensure'].includes(mode) || !names.length || names.some((n) => !TOOLS[n])) {
		process.stderr.write(
			`usage: node scripts/lib/tools.js find|ensure ${Object.keys(TOOLS).join(' ')}\n`,
		);
		process.exit(2);
	}
	(async () => {
		let missing = 0;
		for (const name of names) {
			try {
				const found = mode === 'find' ? findTool(name).found : await ensureTool(name);
				if (!found) throw new ToolMissingError(missingMessage(name, findTool(name), null));
				process.stdout.write(`${name}: ${found}\n`);
			} catch (err) {
				missing += 1;
				process.stdout.write(
					`${err instanceof ToolMissingError ? err.message : `${name}: ${err.stack}`}\n`,
				);
			}
		}
		process.exitCode = missing ? 1 : 0;
	})();
}
