#!/usr/bin/env node
'use strict';
/**
 * End-to-end suite: the package, installed from its `npm pack` tarball, in a real n8n 1.x and
 * 2.x, against the simulator of the service (in this process, on 127.0.0.1) and a CRM stub.
 *
 *   npm run test:e2e                       both versions (1.123.81, then 2.41.1)
 *   node test/e2e/run.js --version 2.41.1  one version (repeatable), for development
 *   options: --keep (keep the n8n user folders), --echo (mirror n8n's output), --no-build,
 *            --only credentials,actions (run only those check modules; e.g. --only upgrade)
 *
 * Per version: one n8n start (one restart, for the trigger's restart check), checks in this order:
 *   credentials.e2e.js  actions.e2e.js  retry.e2e.js  trigger.e2e.js  publishLocal.e2e.js  examples.e2e.js  campaign.e2e.js  agent.e2e.js
 *   wait.e2e.js (Create and Run and Wait for Result with the trigger as its bridge)
 *   agentWait.e2e.js (the same as an AI Agent's tool: the agent waits and reads the result; two, then three calls one
 *     after another in one run and the same person twice, each a wait of its own; two restarts of n8n while it waits,
 *     with N8N_EVENTBUS_RECOVERY_MODE=simple, then with the default)
 *   chat.e2e.js (example 14b: a chat agent calls with Create and Run and reads the result from the Data Table example 14a fills)
 *   mcp.e2e.js (example 14c: an MCP client, the official SDK, lists and calls the tools of an MCP Server Trigger with Bearer Auth)
 *   crm.e2e.js (examples 10-13: HubSpot, Pipedrive, Kommo, Bitrix24 with n8n's own nodes against fake CRMs, reached
 *     through an outbound proxy: n8n runs with HTTP_PROXY/HTTPS_PROXY, NO_PROXY=127.0.0.1,localhost and the proxy's CA)
 *   ssrf.e2e.js (n8n's SSRF protection on, in an n8n of its own: one more start; 2.x only)
 *   upgrade.e2e.js (workflows saved with 0.1.0, from fixtures/0.1.0; last: it takes over the examples' webhook paths)
 * It prints each check, a summary per version, and ends with exactly one line
 * `N passed, N failed` (all versions together); the exit code is 1 when any check failed.
 *
 * n8n is installed on first use (scripts/lib/n8n-install.js; cache $CIS_N8N_CACHE or .cache/n8n).
 */
const { DEFAULT_VERSION, V1_VERSION } = require('../../scripts/lib/n8n-install');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const { createSimulator } = require('../../simulator');
const { startCrmStub, SIM_TOKEN, SIM_USER } = require('../../scripts/lib/playground');
const suite = require('../lib/suite');
const path = require('path');
const { Checks, chain, manualTrigger } = require('./harness');
const { startCrmProxy } = require('./fixtures/crm/proxy');

const { out, secs } = suite;
const TIME_SCALE = 0.05; // a simulated call (1 s dial + 3 s talk) takes 0.2 s

/** The modules, in the order they run: each is ./<name>.e2e.js. @type {[string, (ctx: any) => Promise<unknown>][]} */
const MODULES = [
	'credentials',
	'actions',
	'retry',
	'trigger',
	'publishLocal',
	'examples',
	'campaign',
	'agent',
	'wait',
	'agentWait',
	'crm',
	'chat',
	'mcp',
	'ssrf',
	'upgrade',
].map((name) => [name, require(`./${name}.e2e`)]);

function parseArgs(argv) {
	const list = (value) => String(value()).split(',').filter(Boolean);
	const opts = suite.parseArgs(
		argv,
		{ versions: [], only: [] },
		{
			'--version': (o, value) => o.versions.push(...list(value)),
			'--only': (o, value) => o.only.push(...list(value)),
		},
	);
	if (!opts.versions.length) opts.versions = [V1_VERSION, DEFAULT_VERSION];
	return opts;
}

/** The results so far, for an interrupted run (Ctrl-C). */
const finished = [];
let current = null;
suite.onInterrupt(() => [...finished, current]);

async function runVersion(version, pack, opts, installInfo) {
	const checks = new Checks(version);
	current = checks;
	const t0 = Date.now();
	const timing = { install: installInfo };
	out(`\n== n8n ${version} ==`);
	const sim = await createSimulator({
		port: 0,
		token: SIM_TOKEN,
		users: [SIM_USER],
		timeScale: TIME_SCALE,
	});
	const crm = await startCrmStub({ port: 0 });
	const userFolder = suite.makeTemp(`cis-e2e-${version}-`, { keep: opts.keep });
	// n8n's requests to the CRMs' fixed hosts go through this proxy to the fake CRMs (crm.e2e.js); 127.0.0.1 stays direct.
	const crmProxy = await startCrmProxy(userFolder);
	/** @type {Awaited<ReturnType<typeof suite.startInstance>>['n8n'] | null} */
	let n8n = null;
	let client = null;
	try {
		let started = false;
		await checks.check(
			`n8n ${version} starts with the package installed from its npm pack tarball; both nodes and credentials are loaded`,
			async () => {
				const instance = await suite.startInstance({
					version,
					tarball: pack.tarball,
					userFolder,
					echo: opts.echo,
					env: crmProxy.env,
				});
				({ n8n, client } = instance);
				timing.tarballInstallMs = instance.installMs;
				timing.startMs = n8n.startedInMs;
				const { installed } = instance;
				await suite.expectPackageNodes(n8n.url, client.cookie);
				const creds = await httpRequest('GET', `${n8n.url}/types/credentials.json`, {
					headers: { cookie: client.cookie },
				});
				const credNames = new Set((Array.isArray(creds.body) ? creds.body : []).map((d) => d.name));
				for (const type of ['cisAutoCallApi', 'cisAutoCallLoginApi']) {
					if (!credNames.has(type)) throw new Error(`credential type ${type} not served by n8n`);
				}
				started = true;
				return `${installed.name}@${installed.version} in ${secs(timing.tarballInstallMs)}, ready at ${n8n.url} in ${secs(timing.startMs)}`;
			},
		);
		if (!started) {
			for (const [name] of MODULES) checks.skip(`${name} checks`, `n8n ${version} did not start`);
			return { version, checks, timing, ms: Date.now() - t0 };
		}
		const mk = (name, type, data) => client.createCredential({ name, type, data });
		const loginData = {
			baseUrl: sim.url,
			loginUrl: `${sim.url}/api/v1/auth/login`,
			email: SIM_USER.email,
			password: SIM_USER.password,
			ttl: 3600,
		};
		const creds = {
			token: await mk('e2e token', 'cisAutoCallApi', { baseUrl: sim.url, accessToken: SIM_TOKEN }),
			badToken: await mk('e2e bad token', 'cisAutoCallApi', {
				baseUrl: sim.url,
				accessToken: 'not-the-token',
			}),
			login: await mk('e2e login', 'cisAutoCallLoginApi', loginData),
			badLogin: await mk('e2e bad login', 'cisAutoCallLoginApi', {
				...loginData,
				password: 'wrong-password',
			}),
		};
		for (const c of Object.values(creds)) c.id = String(c.id);
		const ctx = {
			version,
			tarball: pack.tarball,
			n8n,
			client,
			sim,
			crm,
			crmProxy,
			creds,
			loginData,
			checks,
			summary: {},
			createManualWorkflow: (name, nodes) =>
				client.createWorkflow(chain(name, [manualTrigger(), ...nodes])),
			async run(name, nodes) {
				const wf = await ctx.createManualWorkflow(name, nodes);
				return client.runWorkflowManually(wf.id, { timeoutMs: 60000 });
			},
		};
		for (const [name, fn] of MODULES) {
			if (opts.only.length && !opts.only.includes(name)) continue;
			const t = Date.now();
			try {
				await fn(ctx);
			} catch (err) {
				checks.skip(`${name} checks`, `crashed: ${err && err.stack ? err.stack : err}`);
				if (n8n)
					out(
						`        last n8n output:\n${n8n.logs
							.slice(-30)
							.map((l) => `          ${l}`)
							.join('\n')}`,
					);
			}
			timing[`${name}Ms`] = Date.now() - t;
		}
		timing.triggerTasksCreated = ctx.summary.triggerTasksCreated;
	} catch (err) {
		checks.skip(`n8n ${version} set-up`, err && err.stack ? err.stack : String(err));
	} finally {
		if (n8n) await n8n.stop();
		await sim.close();
		await crm.close();
		await crmProxy.close();
		if (opts.keep) out(`  (kept ${userFolder})`);
		else suite.removeTemp(userFolder);
		finished.push(checks);
		current = null;
	}
	if (checks.failed && n8n) {
		out(`  n8n's output is in ${opts.keep ? n8n.logFile : '(deleted; use --keep)'}`);
	}
	return { version, checks, timing, ms: Date.now() - t0 };
}

async function main() {
	const opts = parseArgs(process.argv.slice(2));
	const t0 = Date.now();
	out(
		`CIS Auto-Call end-to-end suite: n8n ${opts.versions.join(' and ')}, simulator time scale ${TIME_SCALE}`,
	);
	const installs = {};
	for (const v of opts.versions) {
		installs[v] = await suite.ensureVersion(v);
		out(`n8n ${v}: ${installs[v].cached ? 'cached' : `installed in ${secs(installs[v].ms)}`}`);
	}
	const pack = await suite.packOrExit({ build: opts.build });
	out(
		`packed ${path.basename(pack.tarball)} (${pack.files.length} files) in ${secs(pack.ms)}${opts.build ? ' (build included)' : ''}`,
	);

	const results = [];
	for (const v of opts.versions) results.push(await runVersion(v, pack, opts, installs[v]));
	suite.removeTemp(pack.dir);

	out('\n== summary ==');
	for (const r of results) {
		const tm = r.timing;
		const tasks = tm.triggerTasksCreated
			? `; trigger tasks created: ${tm.triggerTasksCreated.total} (activation ${tm.triggerTasksCreated.activation}, re-activation ${tm.triggerTasksCreated.reactivation}, restart ${tm.triggerTasksCreated.restart}, changed settings ${tm.triggerTasksCreated.change})`
			: '';
		out(
			`n8n ${r.version}: ${r.checks.passed} passed, ${r.checks.failed} failed in ${secs(r.ms)} (n8n ${tm.install.cached ? 'cached' : `installed in ${secs(tm.install.ms)}`}${tm.startMs ? `, start ${secs(tm.startMs)}` : ''}${tasks})`,
		);
		for (const f of r.checks.results.filter((x) => !x.ok)) out(`  failed: ${f.name}`);
	}
	out(`total ${secs(Date.now() - t0)}`);
	suite.finish(results.map((r) => r.checks));
}

suite.run(main);
