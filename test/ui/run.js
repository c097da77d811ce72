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
const path = require('path');
const { DEFAULT_VERSION } = require('../../scripts/lib/n8n-install');
const { DEFAULT_OWNER } = require('../../scripts/lib/n8n-instance');
const suite = require('../lib/suite');
const { Checks } = require('../e2e/harness');
const { createSimulator } = require('../../simulator');
const {
	ACTION_TYPE,
	TRIGGER_TYPE,
	SIM_TOKEN,
	SIM_USER,
	loadExamples,
	prepareExample,
} = require('../../scripts/lib/playground');
const { launchBrowser, signIn, ensureBrowser } = require('./editor');
const scenarios = require('./scenarios');
const { startScriptedChatModel } = require('../../scripts/lib/standInModel');

const REPO_ROOT = path.resolve(__dirname, '../..');
const { out, secs } = suite;

function parseArgs(argv) {
	return suite.parseArgs(
		argv,
		{ images: path.join(REPO_ROOT, '.cache', 'ui-images'), only: [] },
		{
			'--images': (o, value) => (o.images = path.resolve(value())),
			// e.g. --only retry: run only these scenarios (development)
			'--only': (o, value) => o.only.push(...String(value()).split(',')),
		},
	);
}

let checks = null;
suite.onInterrupt(() => [checks]);

async function nodeTypes(baseUrl, cookie) {
	const { status, types: all } = await suite.servedNodeTypes(baseUrl, cookie);
	const find = (name) => {
		const versions = all.filter((description) => description.name === name);
		if (!versions.length)
			throw new Error(`n8n does not serve ${name} (GET /types/nodes.json: ${status})`);
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
	await suite.ensureVersion(version);
	const pack = await suite.packOrExit({ build: opts.build });
	out(`packed ${path.basename(pack.tarball)} in ${secs(pack.ms)}`);
	let t;
	fs.mkdirSync(opts.images, { recursive: true });

	const sim = await createSimulator({
		port: 0,
		token: SIM_TOKEN,
		users: [SIM_USER],
		timeScale: 0.05,
	});
	// the stand-in model of npm start, for the new agent's run
	const model = await startScriptedChatModel();
	const userFolder = suite.makeTemp('cis-ui-n8n-', { keep: opts.keep });
	const profileDir = suite.makeTemp('cis-ui-chromium-');
	/** @type {Awaited<ReturnType<typeof suite.startInstance>>['n8n'] | null} */
	let n8n = null;
	/** @type {any} */
	let browser = null;
	const timing = {};
	try {
		t = Date.now();
		const instance = await suite.startInstance({
			version,
			tarball: pack.tarball,
			userFolder,
			echo: opts.echo,
		});
		n8n = instance.n8n;
		const { client } = instance;
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
			prepareExample(example.json, {
				credentials: { cisAutoCallApi: { id: String(credential.id), name: credential.name } },
			}),
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
		const ctx = {
			page,
			url: n8n.url,
			checks,
			types,
			sim,
			simToken: SIM_TOKEN,
			images: opts.images,
			exampleWorkflowId: workflow.id,
			exampleNodeCount: example.json.nodes.length,
			client,
			credential,
			model,
		};
		for (const [name, scenario] of /** @type {[string, (ctx: any) => Promise<void>][]} */ ([
			['node panel', scenarios.nodePanel],
			['trigger', scenarios.trigger],
			['action', scenarios.action],
			['field names', scenarios.fieldNames],
			['local URL', scenarios.localUrl],
			['dry run', scenarios.dryRun],
			['retry', scenarios.retryLeftOut],
			['wait panel', scenarios.waitPanel],
			['wait execution', scenarios.waitExecution],
			['first workflow', scenarios.firstWorkflow],
			['typed expression', scenarios.typedExpression],
			['canvas', scenarios.exampleCanvas],
			['new agent', scenarios.newAgent],
			['chat agent', scenarios.handBuiltChatAgent],
		])) {
			if (opts.only.length && !opts.only.includes(name)) continue;
			const started = Date.now();
			try {
				await scenario(ctx);
			} catch (err) {
				checks.skip(
					`${name} checks`,
					`stopped: ${err && err.message ? err.message.split('\n')[0] : err}`,
				);
				const file = path.join(opts.images, `failure-${name.replace(/\s+/g, '-')}.png`);
				await page
					.screenshot({ path: file })
					.then(() => checks.note(`screenshot: ${file}`))
					.catch(() => undefined);
			}
			timing[name] = Date.now() - started;
		}
	} catch (err) {
		checks.skip('set-up', err && err.stack ? err.stack : String(err));
	} finally {
		if (browser) await browser.context.close().catch(() => undefined);
		if (n8n) await n8n.stop();
		await sim.close();
		await model.close();
		suite.removeTemp();
		if (opts.keep) out(`  (kept ${userFolder})`);
	}
	out('\n== summary ==');
	out(
		`timing: ${Object.entries(timing)
			.map(([name, ms]) => `${name} ${secs(ms)}`)
			.join(', ')}; total ${secs(Date.now() - t0)}`,
	);
	out(`screenshots: ${opts.images}`);
	for (const failed of checks.results.filter((result) => !result.ok))
		out(`  failed: ${failed.name}`);
	suite.finish([checks]);
}

suite.run(main);
