#!/usr/bin/env node
'use strict';
/**
 * The editor as a user meets it: a real n8n 2.41.1 with the package installed from its `npm pack`
 * tarball, opened in headless Chromium or Chrome (found by scripts/lib/tools.js; driven by
 * playwright-core; no browser download), against the simulator of the service on 127.0.0.1.
 *
 *   npm run test:ui
 *   options: --keep (keep the n8n user folder), --echo (mirror n8n's output), --no-build,
 *            --images <dir> (where screenshots go; default .cache/ui-images; docs/images
 *            refreshes the README's pictures)
 *
 * It signs in, adds each node from the node panel and checks what a user sees. It prints each
 * check and ends with exactly one line `N passed, N failed`; the exit code is 1 when one failed.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { ensureN8n, isInstalled, DEFAULT_VERSION } = require('../../scripts/lib/n8n-install');
const { startN8n, setupOwner, installPackageTarball, httpRequest, DEFAULT_OWNER } = require('../../scripts/lib/n8n-instance');
const { packRepo } = require('../../scripts/lib/pack');
const { Checks } = require('../e2e/harness');
const { createSimulator } = require('../../simulator');
const { ACTION_TYPE, TRIGGER_TYPE, SIM_TOKEN, SIM_USER, loadExamples, prepareExample } = require('../../scripts/start');
const { launchBrowser, signIn, ensureBrowser } = require('./editor');
const scenarios = require('./scenarios');

const REPO_ROOT = path.resolve(__dirname, '../..');
const out = (line = '') => process.stdout.write(`${line}\n`);
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

function parseArgs(argv) {
	const opts = { keep: false, echo: false, build: true, images: path.join(REPO_ROOT, '.cache', 'ui-images') };
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].split(/=(.*)/s, 2);
		if (flag === '--keep') opts.keep = true;
		else if (flag === '--echo') opts.echo = true;
		else if (flag === '--no-build') opts.build = false;
		else if (flag === '--images') opts.images = path.resolve(inline !== undefined ? inline : argv[++i]);
		else throw new Error(`unknown option ${argv[i]}`);
	}
	return opts;
}

const tempDirs = new Set();
let checks = null;
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
	process.on(signal, () => {
		setTimeout(() => {
			for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
			out(`\ninterrupted by ${signal}`);
			out(`${checks ? checks.passed : 0} passed, ${(checks ? checks.failed : 0) + 1} failed`);
			process.exit(code);
		}, 300);
	});
}

async function nodeTypes(baseUrl, cookie) {
	const res = await httpRequest('GET', `${baseUrl}/types/nodes.json`, { headers: { cookie } });
	const all = Array.isArray(res.body) ? res.body : [];
	const find = (name) => {
		const versions = all.filter((description) => description.name === name);
		if (!versions.length) throw new Error(`n8n does not serve ${name} (GET /types/nodes.json: ${res.status})`);
		return versions[versions.length - 1];
	};
	return { action: find(ACTION_TYPE), trigger: find(TRIGGER_TYPE) };
}

async function main() {
	const opts = parseArgs(process.argv.slice(2));
	const t0 = Date.now();
	const version = DEFAULT_VERSION;
	checks = new Checks(`ui ${version}`);
	let browserPath;
	try {
		browserPath = await ensureBrowser();
	} catch (err) {
		// before installing or starting n8n: the message says what is missing and how to get it
		out(`CIS Auto-Call editor suite: n8n ${version}`);
		out(`  FAIL  browser: ${err.message.split('\n').join('\n        ')}`);
		out('0 passed, 1 failed');
		process.exitCode = 1;
		return;
	}
	out(`CIS Auto-Call editor suite: n8n ${version} in headless Chromium (${browserPath})`);
	const cached = isInstalled(version);
	if (!cached) out(`installing n8n ${version} on first use (several minutes; progress on stderr)…`);
	await ensureN8n(version);
	let t = Date.now();
	const pack = await packRepo({ build: opts.build });
	if (!pack.ok) {
		out(`build/pack failed: ${pack.error}`);
		out('0 passed, 1 failed');
		process.exit(1);
	}
	tempDirs.add(pack.dir);
	out(`packed ${path.basename(pack.tarball)} in ${secs(Date.now() - t)}`);
	fs.mkdirSync(opts.images, { recursive: true });

	const sim = await createSimulator({ port: 0, token: SIM_TOKEN, users: [SIM_USER], timeScale: 0.05 });
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'cis-ui-n8n-'));
	const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cis-ui-chromium-'));
	if (!opts.keep) tempDirs.add(userFolder);
	tempDirs.add(profileDir);
	let n8n = null;
	let browser = null;
	const timing = {};
	try {
		t = Date.now();
		await installPackageTarball(userFolder, pack.tarball, version);
		n8n = await startN8n({ version, userFolder, echo: opts.echo });
		const client = await setupOwner(n8n.url, undefined, { version });
		timing.n8n = Date.now() - t;
		out(`n8n ${version} ready at ${n8n.url} in ${secs(timing.n8n)}`);
		const types = await nodeTypes(n8n.url, client.cookie);

		// An example workflow for the canvas picture (its credential is created by API).
		const credential = await client.createCredential({
			name: 'CIS Auto-Call account',
			type: 'cisAutoCallApi',
			data: { baseUrl: sim.url, accessToken: SIM_TOKEN },
		});
		const example = loadExamples().find((candidate) => candidate.key === '05b');
		const workflow = await client.createWorkflow(
			prepareExample(example.json, { credentials: { cisAutoCallApi: { id: String(credential.id), name: credential.name } } }),
		);

		let page = null;
		await checks.check('browser: headless Chromium starts', async () => {
			t = Date.now();
			browser = await launchBrowser(profileDir);
			page = browser.page;
			return `Chromium ${browser.version} in ${secs(Date.now() - t)}`;
		});
		if (!page) throw new Error('no browser');
		let signedIn = false;
		await checks.check('sign-in: the owner signs in through the sign-in form', async () => {
			await signIn(page, n8n.url, DEFAULT_OWNER);
			signedIn = true;
			return page.url().replace(n8n.url, '');
		});
		if (!signedIn) throw new Error('not signed in');
		const ctx = { page, url: n8n.url, checks, types, sim, simToken: SIM_TOKEN, images: opts.images, exampleWorkflowId: workflow.id, exampleNodeCount: example.json.nodes.length, client, credential };
		for (const [name, scenario] of [
			['node panel', scenarios.nodePanel],
			['trigger', scenarios.trigger],
			['action', scenarios.action],
			['field names', scenarios.fieldNames],
			['canvas', scenarios.exampleCanvas],
		]) {
			const started = Date.now();
			try {
				await scenario(ctx);
			} catch (err) {
				checks.skip(`${name} checks`, `stopped: ${err && err.message ? err.message.split('\n')[0] : err}`);
				const file = path.join(opts.images, `failure-${name.replace(/\s+/g, '-')}.png`);
				await page.screenshot({ path: file }).then(() => checks.note(`screenshot: ${file}`)).catch(() => undefined);
			}
			timing[name] = Date.now() - started;
		}
	} catch (err) {
		checks.skip('set-up', err && err.stack ? err.stack : String(err));
	} finally {
		if (browser) await browser.context.close().catch(() => undefined);
		if (n8n) await n8n.stop();
		await sim.close();
		for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
		if (opts.keep) out(`  (kept ${userFolder})`);
	}
	out('\n== summary ==');
	out(`timing: ${Object.entries(timing).map(([name, ms]) => `${name} ${secs(ms)}`).join(', ')}; total ${secs(Date.now() - t0)}`);
	out(`screenshots: ${opts.images}`);
	for (const failed of checks.results.filter((result) => !result.ok)) out(`  failed: ${failed.name}`);
	out(`${checks.passed} passed, ${checks.failed} failed`);
	process.exitCode = checks.failed ? 1 : 0;
}

main().catch((err) => {
	out(`suite crashed: ${err && err.stack ? err.stack : err}`);
	out('0 passed, 1 failed');
	process.exit(1);
});
