'use strict';
/**
 * What the suites that drive a real n8n have in common (test/e2e, test/queue, test/ui, test/bench):
 * their command-line flags, n8n installed into the cache, the package built and packed, n8n started
 * with the package installed from its tarball, temp folders removed also on Ctrl-C, and the last
 * line `N passed, N failed` that CI reads.
 *
 *   const suite = require('../lib/suite');
 *   const opts = suite.parseArgs(process.argv.slice(2), { keep: false }, { '--rounds': (o, v) => ... });
 *   suite.onInterrupt(() => checks);                  // Ctrl-C: clean up, print the counts
 *   await suite.ensureVersion('2.41.1');
 *   const pack = await suite.packOrExit({ build: opts.build });
 *   const instance = await suite.startInstance({ version, tarball: pack.tarball, userFolder });
 *   suite.finish([checks]);
 *
 * Built on scripts/lib (install / start / talk to n8n); plain Node (CommonJS, built-ins only).
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { ensureN8n, isInstalled } = require('../../scripts/lib/n8n-install');
const {
	startN8n,
	setupOwner,
	installPackageTarball,
	httpRequest,
} = require('../../scripts/lib/n8n-instance');
const { packRepo } = require('../../scripts/lib/pack');
const { ACTION_TYPE, TRIGGER_TYPE } = require('../../scripts/lib/playground');

/** One line on stdout. */
const out = (line = '') => process.stdout.write(`${line}\n`);
/** Milliseconds as seconds with one decimal: "1.2 s". */
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The flags every suite knows (--keep, --echo, --no-build) and the suite's own ones: `extra` maps a
 * flag to (opts, value) => void, where value() reads the flag's value (`--flag v` or `--flag=v`).
 * @param {string[]} argv
 * @param {Record<string, unknown>} [defaults]
 * @param {Record<string, (opts: Record<string, any>, value: () => string) => void>} [extra]
 * @returns {{ keep: boolean, echo: boolean, build: boolean } & Record<string, any>}
 */
function parseArgs(argv, defaults = {}, extra = {}) {
	const opts = { keep: false, echo: false, build: true, ...defaults };
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].split(/=(.*)/s, 2);
		const value = () => (inline !== undefined ? inline : argv[++i]);
		if (flag === '--keep') opts.keep = true;
		else if (flag === '--echo') opts.echo = true;
		else if (flag === '--no-build') opts.build = false;
		else if (extra[flag]) extra[flag](opts, value);
		else throw new Error(`unknown option ${argv[i]}`);
	}
	return opts;
}

/** Folders to remove at the end of a run, and on Ctrl-C. */
const tempDirs = new Set();

/** A new temp folder (os.tmpdir()/<prefix>…), removed by removeTemp() and on Ctrl-C unless keep. */
function makeTemp(prefix, { keep = false } = {}) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	if (!keep) tempDirs.add(dir);
	return dir;
}

/** Removes a folder made by makeTemp (or every one when none is named). */
function removeTemp(dir) {
	for (const d of dir ? [dir] : [...tempDirs]) {
		fs.rmSync(d, { recursive: true, force: true });
		tempDirs.delete(d);
	}
}

/**
 * On SIGINT/SIGTERM: removes the temp folders and prints the counts so far (`checksSoFar()` returns
 * the Checks objects) with the interruption counted as one failure. scripts/lib has already
 * SIGKILLed every process group it started (its handler runs in the same tick); `delayMs` gives them
 * a moment to go before their folders are deleted.
 */
function onInterrupt(checksSoFar, delayMs = 300) {
	for (const [signal, code] of /** @type {[NodeJS.Signals, number][]} */ ([
		['SIGINT', 130],
		['SIGTERM', 143],
	])) {
		process.on(signal, () => {
			setTimeout(() => {
				removeTemp();
				const { passed, failed } = count(checksSoFar());
				out(`\ninterrupted by ${signal}`);
				out(`${passed} passed, ${failed + 1} failed`);
				process.exit(code);
			}, delayMs);
		});
	}
}

/** n8n `version` in the cache (installed on first use); resolves { cached, ms, install }. */
async function ensureVersion(version) {
	const cached = isInstalled(version);
	const t = Date.now();
	if (!cached) out(`installing n8n ${version} on first use (several minutes; progress on stderr)…`);
	const install = await ensureN8n(version);
	return { cached, ms: Date.now() - t, install };
}

/**
 * Builds and packs the package (scripts/lib/pack.js); on failure prints the steps' output and the
 * line `0 passed, 1 failed` and exits 1. Resolves the pack ({ tarball, dir, files }); its folder is
 * removed by removeTemp().
 */
async function packOrExit({ build = true } = {}) {
	const t = Date.now();
	// .ci/run packs once, scans that tarball and hands the same file to every suite (and CI keeps it for
	// publishing): what is published is what was tested.
	const given = process.env.CIS_PACKAGE_TARBALL;
	if (given) {
		const tarball = path.resolve(given);
		if (!fs.existsSync(tarball)) {
			out(`CIS_PACKAGE_TARBALL=${given}: no such file`);
			out('0 passed, 1 failed');
			process.exit(1);
		}
		const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
			.split('\n')
			.filter(Boolean);
		return { ok: true, tarball, dir: null, files, ms: Date.now() - t };
	}
	const pack = await packRepo({ build });
	if (!pack.ok) {
		out(`build/pack failed: ${pack.error}`);
		for (const s of pack.steps) out(`--- ${s.step} (exit ${s.code})\n${s.output}`);
		out('0 passed, 1 failed');
		process.exit(1);
	}
	tempDirs.add(pack.dir);
	pack.ms = Date.now() - t;
	return pack;
}

/**
 * Installs the tarball into `userFolder` (as a user installs a community node), starts n8n there and
 * sets up the owner (cookie session and API key). Resolves { n8n, client, installed, installMs }.
 * @param {{ version: string, tarball: string, userFolder: string, echo?: boolean, env?: NodeJS.ProcessEnv }} options
 */
async function startInstance({ version, tarball, userFolder, echo = false, env }) {
	const t = Date.now();
	const installed = await installPackageTarball(userFolder, tarball, version);
	const installMs = Date.now() - t;
	const n8n = await startN8n({ version, userFolder, echo, env });
	const client = await setupOwner(n8n.url, undefined, { version });
	return { n8n, client, installed, installMs };
}

/** The node descriptions n8n serves to its editor (GET /types/nodes.json), and the answer's status. */
async function servedNodeTypes(url, cookie) {
	const res = await httpRequest('GET', `${url}/types/nodes.json`, { headers: { cookie } });
	return { status: res.status, types: Array.isArray(res.body) ? res.body : [] };
}

/** Throws unless n8n at `url` serves both nodes of the package. */
async function expectPackageNodes(url, cookie, where = 'n8n') {
	const { status, types } = await servedNodeTypes(url, cookie);
	const names = new Set(types.map((d) => d.name));
	for (const type of [ACTION_TYPE, TRIGGER_TYPE]) {
		if (!names.has(type))
			throw new Error(
				`node type ${type} not served by ${where} (GET /types/nodes.json: ${status}, ${names.size} types)`,
			);
	}
}

/** Passed and failed checks of several Checks objects together. */
function count(checksList) {
	const list = checksList.filter(Boolean);
	return {
		passed: list.reduce((n, c) => n + c.passed, 0),
		failed: list.reduce((n, c) => n + c.failed, 0),
	};
}

/** Prints the last line `N passed, N failed` of all these Checks and sets the exit code (1 on a failure). */
function finish(checksList) {
	const { passed, failed } = count(checksList);
	out(`${passed} passed, ${failed} failed`);
	process.exitCode = failed ? 1 : 0;
}

/** Runs the suite's main(); a crash prints its stack and `0 passed, 1 failed` and exits 1. */
function run(main) {
	main().catch((err) => {
		out(`suite crashed: ${err && err.stack ? err.stack : err}`);
		out('0 passed, 1 failed');
		process.exit(1);
	});
}

module.exports = {
	out,
	secs,
	parseArgs,
	makeTemp,
	removeTemp,
	onInterrupt,
	ensureVersion,
	packOrExit,
	startInstance,
	servedNodeTypes,
	expectPackageNodes,
	count,
	finish,
	run,
};
