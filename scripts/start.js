#!/usr/bin/env node
'use strict';
/**
 * `npm start`: the package running in a real n8n, against the simulator of the service.
 *
 *   node scripts/start.js [--version 2.41.1|1.123.81] [--port 5678] [--sim-port 5680]
 *                         [--crm-port 5681] [--time-scale 1] [--user-folder DIR] [--fresh] [--check]
 *
 * 1. installs n8n on first use into the git-ignored cache (scripts/lib/n8n-install.js), reused after,
 *    run by this machine's Node when it fits that n8n, else by a Node runtime package from npm;
 * 2. builds the package and packs it (`npm pack`), as it would be published;
 * 3. starts the simulator of the service and a tiny CRM stub, both on 127.0.0.1;
 * 4. starts n8n on 127.0.0.1 with the tarball installed in its user folder's nodes/ (the way a
 *    user installs a community node), sets up the owner by API, creates the credentials pointing
 *    at the simulator, imports the example workflows (examples/*.json) and activates the
 *    ones that listen (1, 2, 4, 5a, 7, 8);
 * 5. points the simulator's default call-task template at example 2 (control API
 *    POST /__sim/default-template), so that calls made by examples 1 and 3 report back;
 * 6. prints the editor URL, the login, the simulator and CRM URLs, and waits.
 * Ctrl-C stops everything (n8n and its task runner, the simulator, the CRM stub). The n8n user folder
 * (.cache/npm-start/n8n-<version>, or --user-folder) is kept: the next `npm start` opens the same
 * workflows, credentials and executions, points the credentials at this start's simulator and sets
 * nothing up twice; --fresh deletes it first. n8n's own settings in the environment (N8N_*, DB_*,
 * EXECUTIONS_*, QUEUE_*, …: n8nSettingsFrom) reach the n8n process. --check sends one lead through
 * examples 1 and 2 once ready, then stops (exit code 0 when its call result reached the CRM stub): CI
 * runs it on macOS and Windows.
 *
 * The examples, the CRM stub and the import of both are in scripts/lib/playground.js, shared with
 * the end-to-end suite (test/e2e), which runs the examples exactly as this script sets them up.
 *
 * Plain Node (CommonJS, built-ins only), runs under the machine's Node (>= 20) on Linux, macOS, Windows.
 */
const fs = require('fs');
const path = require('path');
const { httpRequest, freePort, portFree } = require('./lib/http');
const {
	startCrmStub,
	setupPlayground,
	resumePlayground,
	readPlaygroundState,
	writePlaygroundState,
	SIM_TOKEN,
	SIM_USER,
} = require('./lib/playground');
const { startScriptedChatModel } = require('./lib/standInModel');

/** The n8n owner npm start sets up. */
const START_OWNER = {
	email: 'demo@example.com',
	firstName: 'Demo',
	lastName: 'User',
	password: 'Demo-Passw0rd',
};

/** The n8n port asked for: --port, else $CIS_N8N_PORT, else none (5678 or the next free one). */
const PORT_VARIABLE = 'CIS_N8N_PORT';
const DEFAULT_N8N_PORT = 5678;
/** The simulator's and the CRM stub's ports when free (the README names them; scripts/check-docs.js checks it). */
const DEFAULT_SIM_PORT = 5680;
const DEFAULT_CRM_PORT = 5681;

/** Where npm start keeps n8n's user folder unless --user-folder says otherwise (git-ignored). */
function defaultUserFolder(version) {
	return path.join(path.resolve(__dirname, '..'), '.cache', 'npm-start', `n8n-${version}`);
}

/**
 * n8n's own settings, as n8n documents them (docs.n8n.io, "Environment variables"): every N8N_*
 * variable, the database, executions, queue and a few more. npm start passes them to n8n as they are.
 */
const N8N_SETTING =
	/^(N8N_|DB_|EXECUTIONS_|QUEUE_|NODES_|NODE_FUNCTION_ALLOW_|CREDENTIALS_|WORKFLOWS_|EXTERNAL_|GENERIC_TIMEZONE$|WEBHOOK_URL$|CODE_ENABLE_STDOUT$|OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS$)/;
/** What npm start itself decides (its options say how), so a variable cannot move it. */
const SET_BY_START = {
	N8N_PORT: '--port N or CIS_N8N_PORT=N',
	N8N_USER_FOLDER: '--user-folder DIR',
	N8N_LISTEN_ADDRESS: 'n8n listens on 127.0.0.1 only',
	N8N_ENCRYPTION_KEY: "the kept folder's credentials are encrypted with npm start's key",
	N8N_RUNNERS_BROKER_PORT: 'a free port is chosen',
};

/**
 * The n8n settings in `env` that reach the n8n process ({ settings }), and those npm start sets
 * itself ({ ignored: [[name, why]] }).
 */
function n8nSettingsFrom(env = process.env) {
	const settings = {};
	const ignored = [];
	for (const [name, value] of Object.entries(env)) {
		if (value === undefined || !N8N_SETTING.test(name)) continue;
		if (SET_BY_START[name]) ignored.push([name, SET_BY_START[name]]);
		else settings[name] = value;
	}
	return { settings, ignored };
}

function parsePort(text, where) {
	const port = Number(text);
	if (!/^\d+$/.test(String(text).trim()) || port < 1 || port > 65535) {
		throw new Error(`${where} must be a port number from 1 to 65535, got "${text}"`);
	}
	return port;
}

/**
 * n8n's port checked again right before n8n starts, since the install before it can take minutes:
 * the port chosen at first while it is still free; else, when none was asked for, the next free one
 * (with a note saying so); a port asked for (`explicit`) that was taken meanwhile throws portTakenMessage.
 * @param {{ port: number, note?: string }} chosen
 * @param {number | undefined} explicit
 * @param {number[]} [avoid] ports of the simulator and the stubs
 */
async function recheckN8nPort(chosen, explicit, avoid = []) {
	if (await portFree(chosen.port)) return chosen;
	return await pickPort(chosen.port, explicit, { variable: PORT_VARIABLE }, avoid);
}

/**
 * Why a port asked for cannot be used, saying how to choose another.
 * @param {number} port
 * @param {{ what?: string, option?: string, variable?: string }} [options]
 */
function portTakenMessage(port, { what = 'n8n', option = '--port', variable } = {}) {
	const choose = variable ? `${option} N or ${variable}=N` : `${option} N`;
	return `port ${port} on 127.0.0.1 is taken (by another program, e.g. an n8n already running): stop it, or choose another port for ${what} with ${choose} (npm start -- ${option} ${port + 1})`;
}

/**
 * The port to use: `explicit` (must be free: throws portTakenMessage otherwise), else `preferred`
 * when free, else the next free one above it. Returns { port, note } (note: why not `preferred`).
 */
async function pickPort(preferred, explicit, naming = {}, avoid = []) {
	if (explicit) {
		if (!(await portFree(explicit))) throw new Error(portTakenMessage(explicit, naming));
		return { port: explicit };
	}
	if (!avoid.includes(preferred) && (await portFree(preferred))) return { port: preferred };
	for (let port = preferred + 1; port < preferred + 20 && port <= 65535; port++) {
		if (!avoid.includes(port) && (await portFree(port)))
			return { port, note: `port ${preferred} is taken, using ${port}` };
	}
	const port = await freePort();
	return { port, note: `port ${preferred} is taken, using ${port}` };
}

/* ------------------------------------------------------------------ main */

function parseArgs(argv, env = process.env) {
	const opts = { version: '2.41.1', timeScale: 1, fresh: false, check: false };
	if (env[PORT_VARIABLE] !== undefined && env[PORT_VARIABLE] !== '')
		opts.port = parsePort(env[PORT_VARIABLE], PORT_VARIABLE);
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].split(/=(.*)/s, 2);
		const value = () => (inline !== undefined ? inline : argv[++i]);
		switch (flag) {
			case '--version':
				opts.version = value();
				break;
			case '--port':
				opts.port = parsePort(value(), '--port');
				break;
			case '--sim-port':
				opts.simPort = parsePort(value(), '--sim-port');
				break;
			case '--crm-port':
				opts.crmPort = parsePort(value(), '--crm-port');
				break;
			case '--time-scale':
				opts.timeScale = Number(value());
				break;
			case '--user-folder':
				opts.userFolder = path.resolve(value());
				break;
			case '--fresh':
				opts.fresh = true;
				break;
			case '--keep': // the folder is kept by default now; accepted so that older commands still run
				break;
			case '--check':
				opts.check = true;
				break;
			case '-h':
			case '--help':
				opts.help = true;
				break;
			default:
				throw new Error(`unknown option ${argv[i]} (see --help)`);
		}
	}
	return opts;
}

const HELP = `npm start [-- options]     (or: node scripts/start.js [options])

Builds the package, starts the CIS simulator, a CRM stub and a real n8n with the package
installed and the example workflows imported, all on 127.0.0.1. Ctrl-C stops everything.

  --version V      n8n version: 2.41.1 (default, needs Node 24) or 1.123.81 (Node 22 or 24)
  --port N         n8n port (default: $CIS_N8N_PORT, else 5678 or the next free one);
                   a port asked for must be free
  --sim-port N     simulator port (default 5680, or the next free one)
  --crm-port N     CRM stub port (default 5681, or the next free one)
  --time-scale X   simulated durations × X (default 1: a call takes about 4 s)
  --user-folder D  n8n's user folder (default .cache/npm-start/n8n-<version> in this clone)
  --fresh          start from scratch: delete the user folder first (your workflows, credentials
                   and executions in it are gone)
  --check          once ready, send one lead through examples 1 and 2, then stop
                   (exit code 0 when its call result reached the CRM stub)

Your work is kept: stopping leaves the user folder as it is, and the next npm start opens the same
workflows, credentials and executions (the examples are not imported twice).

n8n's own settings reach n8n: set them in the environment as n8n documents them, e.g.
  N8N_EVENTBUS_RECOVERY_MODE=simple npm start
Passed on: N8N_*, DB_*, EXECUTIONS_*, QUEUE_*, NODES_*, NODE_FUNCTION_ALLOW_*, CREDENTIALS_*,
WORKFLOWS_*, EXTERNAL_*, GENERIC_TIMEZONE, WEBHOOK_URL, CODE_ENABLE_STDOUT,
OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS. npm start sets these itself (its options choose them):
${Object.keys(SET_BY_START).join(', ')}.

n8n is installed on first use into $CIS_N8N_CACHE or .cache/n8n (several minutes, once). It runs
on this machine's Node when that fits the n8n version, else on a Node runtime package from the npm
registry for this platform (Linux x64/arm64, macOS arm64/x64, Windows x64; 35-53 MB, once).
`;

function say(line = '') {
	process.stdout.write(`${line}\n`);
}

function step(n, total, text) {
	say(`[start ${n}/${total}] ${text}`);
}

/**
 * --check: a lead posted to example 1 is called and example 2 posts the call's end to the CRM stub.
 * Resolves a line saying what happened; rejects when it did not happen within timeoutMs.
 */
async function checkExampleFlow({ n8nUrl, crm, timeoutMs = 120000 }) {
	const lead = { name: 'Check Lead', phone: '79990005556', crmId: 'CHECK-1' };
	const res = await httpRequest('POST', `${n8nUrl}/webhook/cis-lead`, { body: lead });
	if (res.status !== 200)
		throw new Error(`POST ${n8nUrl}/webhook/cis-lead answered ${res.status}: ${res.text}`);
	const deadline = Date.now() + timeoutMs;
	const t0 = Date.now();
	for (;;) {
		const result = crm.requests.find(
			(r) =>
				r.path === `/leads/${lead.crmId}/call-results` && r.body && r.body.event === 'CALL_ENDED',
		);
		if (result)
			return `lead ${lead.crmId} called; its CALL_ENDED reached the CRM stub after ${((Date.now() - t0) / 1000).toFixed(1)} s`;
		if (Date.now() > deadline)
			throw new Error(
				`no CALL_ENDED for lead ${lead.crmId} at the CRM stub within ${timeoutMs / 1000} s (received: ${crm.requests.map(shortEvent).join('; ') || 'nothing'})`,
			);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

function shortEvent(entry) {
	const b = entry.body && typeof entry.body === 'object' ? entry.body : {};
	const bits = [
		b.event,
		b.status,
		b.callId ? `call ${b.callId}` : null,
		b.campaign ? `(${b.campaign})` : null,
		b.note ? JSON.stringify(b.note) : null,
	].filter(Boolean);
	return `${entry.method} ${entry.path}${bits.length ? `  ${bits.join(' ')}` : ''}`;
}

async function main() {
	let opts;
	try {
		opts = parseArgs(process.argv.slice(2));
	} catch (e) {
		process.stderr.write(`[start] ${e.message}\n`);
		process.exit(2);
	}
	if (opts.help) {
		say(HELP);
		return;
	}
	const t0 = Date.now();
	const cleanups = []; // run last-in first-out
	let stopping = false;
	const stop = async (code, why) => {
		if (stopping) return;
		stopping = true;
		if (why) say(`\n[start] ${why}: stopping…`);
		for (const fn of cleanups.reverse()) {
			try {
				await fn();
			} catch (e) {
				process.stderr.write(`[start] while stopping: ${e.message}\n`);
			}
		}
		say('[start] stopped: nothing of it is left running.');
		process.exit(code);
	};
	let signals = 0;
	for (const [sig, code] of /** @type {[NodeJS.Signals, number][]} */ ([
		['SIGINT', 130],
		['SIGTERM', 143],
		['SIGHUP', 129],
	])) {
		process.on(sig, () => {
			signals += 1;
			if (signals > 1) process.exit(code); // a second Ctrl-C: now (exit hooks still kill n8n's group)
			void stop(code, sig === 'SIGINT' ? 'Ctrl-C' : sig);
		});
	}

	// Required here (not at the top) so that `require('./start')` from the tests stays light.
	const { ensureN8n, isInstalled, planFor } = require('./lib/n8n-install');
	const { megabytes } = require('./lib/node-runtime');
	const { startN8n, setupOwner, installPackageTarball } = require('./lib/n8n-instance');
	const { packRepo } = require('./lib/pack');
	const { createSimulator } = require('../simulator');

	const TOTAL = 6;
	const version = opts.version;
	const userFolder = opts.userFolder || defaultUserFolder(version);
	if (opts.fresh) fs.rmSync(userFolder, { recursive: true, force: true });
	// What an earlier npm start set up in this folder (none: a first start).
	const earlier = readPlaygroundState(userFolder);
	const n8nSettings = n8nSettingsFrom(process.env);
	// what cannot work is said before anything is installed or started
	let n8nPort;
	let plan;
	try {
		n8nPort = await pickPort(DEFAULT_N8N_PORT, opts.port, { variable: PORT_VARIABLE });
		plan = planFor(version);
		if (plan.node.source === 'none') throw new Error(plan.node.reason);
	} catch (e) {
		process.stderr.write(`[start] ${e.message}\n`);
		process.exit(2);
	}
	try {
		// 1. n8n itself, and the Node it runs on
		const node = plan.node;
		const runsOn =
			node.source === 'own'
				? `this machine's Node ${process.version}`
				: `Node ${node.version}, the npm package ${node.package} (${megabytes(node.bytes)}, downloaded once), as this machine's ${node.problem}`;
		if (isInstalled(version)) {
			step(1, TOTAL, `n8n ${version}: already installed in the cache; runs on ${runsOn}`);
		} else {
			step(
				1,
				TOTAL,
				`n8n ${version}: installing on first use into the cache (4 to 12 minutes depending on the machine, 2-3 GB; progress below); runs on ${runsOn}`,
			);
		}
		const install = await ensureN8n(version);
		if (stopping) return;

		// 2. the package, packed as published
		step(2, TOTAL, 'building the package and packing it (npm run build, npm pack)…');
		const pack = await packRepo({ quiet: true });
		if (stopping) return;
		if (!pack.ok) {
			const out = pack.steps.map((s) => `--- ${s.step} (exit ${s.code})\n${s.output}`).join('\n');
			throw new Error(`${pack.error}\n${out}`);
		}
		cleanups.push(() => fs.rmSync(pack.dir, { recursive: true, force: true }));
		say(`          ${path.basename(pack.tarball)} (${pack.files.length} files)`);

		// 3. simulator + CRM stub
		const ports = (earlier && earlier.ports) || {};
		const sim = await createSimulator({
			port: (
				await pickPort(
					ports.sim || DEFAULT_SIM_PORT,
					opts.simPort,
					{ what: 'the simulator', option: '--sim-port' },
					[n8nPort.port],
				)
			).port,
			token: SIM_TOKEN,
			users: [SIM_USER],
			timeScale: opts.timeScale,
		});
		cleanups.push(() => sim.close());
		const crm = await startCrmStub({
			port: (
				await pickPort(
					ports.crm || DEFAULT_CRM_PORT,
					opts.crmPort,
					{ what: 'the CRM stub', option: '--crm-port' },
					[n8nPort.port, sim.port],
				)
			).port,
			onRequest: (entry) => say(`[crm] ${shortEvent(entry)}`),
		});
		cleanups.push(() => crm.close());
		// Example 9's chat model: a stand-in on a free port that needs no key.
		// The same port as last time when free, so that the kept credential still points at it.
		const modelPort = ports.model && (await portFree(ports.model)) ? ports.model : 0;
		const model = await startScriptedChatModel({ port: modelPort });
		cleanups.push(() => model.close());
		step(
			3,
			TOTAL,
			`simulator of the service on ${sim.url}, CRM stub on ${crm.url}, stand-in chat model on ${model.url}`,
		);

		// 4. n8n with the tarball installed the way a user installs a community node
		fs.mkdirSync(userFolder, { recursive: true });
		cleanups.push(() =>
			say(
				`[start] your workflows and executions are kept in ${userFolder}: npm start opens them again (--fresh starts from scratch)`,
			),
		);
		step(
			4,
			TOTAL,
			`installing the tarball into ${path.join(userFolder, '.n8n', 'nodes')} and starting n8n ${version} (${earlier ? 'your kept n8n folder' : 'a new n8n folder, kept when you stop'})…`,
		);
		for (const [name, why] of n8nSettings.ignored)
			say(`          ${name} is set by npm start, not taken from the environment (${why})`);
		const passed = Object.keys(n8nSettings.settings);
		if (passed.length) say(`          n8n settings from the environment: ${passed.join(', ')}`);
		await installPackageTarball(userFolder, pack.tarball, install);
		if (stopping) return;
		// chosen before the install, which can take minutes: checked again now
		n8nPort = await recheckN8nPort(n8nPort, opts.port, [sim.port, crm.port, model.port]);
		if (n8nPort.note)
			say(`          ${n8nPort.note} for n8n (choose one with --port N or ${PORT_VARIABLE}=N)`);
		const n8n = await startN8n({
			version,
			userFolder,
			port: n8nPort.port,
			env: n8nSettings.settings,
		});
		cleanups.push(() => n8n.stop());
		if (stopping) return;
		const client = await setupOwner(n8n.url, START_OWNER, { version });
		say(`          n8n ready in ${Math.round(n8n.startedInMs / 1000)} s; owner set up by API`);

		// 5. credentials, examples, default template
		const where = {
			client,
			n8nUrl: n8n.url,
			simUrl: sim.url,
			crmUrl: crm.url,
			modelUrl: model.url,
			log: (line) => say(`          ${line}`),
		};
		let setup;
		if (earlier) {
			step(
				5,
				TOTAL,
				"your kept workflows and credentials: credentials pointed at this start's simulator, default template of the simulator…",
			);
			setup = await resumePlayground({ ...where, state: earlier });
		} else {
			step(5, TOTAL, 'credentials, example workflows, default template of the simulator…');
			setup = await setupPlayground(where);
		}
		writePlaygroundState(userFolder, setup, { sim: sim.port, crm: crm.port, model: model.port });
		if (stopping) return;
		const wfs = setup.workflows;
		for (const wf of Object.values(wfs)) {
			say(
				`          ${wf.activated ? 'active  ' : 'manual  '} ${n8n.url}/workflow/${wf.id}  ${wf.name}`,
			);
		}
		if (setup.template) {
			say(
				`          default template of the simulator: webhook → example 2 (${wfs['02'].triggerUrl}?secret=…)`,
			);
			say(
				'          to send the results to a trigger of your own instead (docs/getting-started.md):',
			);
			say(
				`            curl -X POST ${sim.url}/__sim/default-template -H 'content-type: application/json' \\`,
			);
			say(
				`              -d '{"webhookUrls": [{"url": "<Production URL>?secret=<your secret>", "events": {"CALL_ENDED": {"name": "CALL_ENDED", "value": true}, "CANDIDATE_CHANGED": {"name": "CANDIDATE_CHANGED", "value": true}}}]}'`,
			);
		}
		if (wfs['05a'] && wfs['05a'].activated) {
			const task = [...sim.state.tasks.values()].find((t) => t.name === 'Spring campaign');
			if (task)
				say(
					`          example 5a created the call task "Spring campaign" (${task.id}) on the simulator`,
				);
		}

		// 6. what to do now
		step(6, TOTAL, `ready in ${Math.round((Date.now() - t0) / 1000)} s`);
		say('');
		say(`  n8n editor      ${n8n.url}`);
		say(`  login           ${START_OWNER.email} / ${START_OWNER.password}`);
		say(
			`  simulator       ${sim.url}   (token "${SIM_TOKEN}", login ${SIM_USER.email} / ${SIM_USER.password}; state: ${sim.url}/__sim/state)`,
		);
		say(
			`  CRM stub        ${crm.url}   (contacts: ${crm.url}/contacts; what it received: ${crm.url}/__crm/requests)`,
		);
		say(
			`  user folder     ${userFolder} (kept when you stop; npm start -- --fresh starts from scratch)`,
		);
		say('');
		say(
			'  Try it: a lead from the "CRM" (example 1) is called, and the result comes back to the CRM (example 2):',
		);
		say(`    curl -s -X POST ${n8n.url}/webhook/cis-lead -H 'content-type: application/json' \\`);
		say(`         -d '{"name": "Ann Lee", "phone": "79990005555", "crmId": "CRM-42"}'`);
		say(
			`    a few seconds later this window shows  [crm] POST /leads/CRM-42/call-results  CALL_ENDED ANSWERED …`,
		);
		say('  The same in one workflow (example 8: call, wait for the result, write it to the CRM):');
		say(
			`    curl -s -X POST ${n8n.url}/webhook/cis-lead-wait -H 'content-type: application/json' \\`,
		);
		say(`         -d '{"name": "Eve Waits", "phone": "79990005588", "crmId": "CRM-88"}'`);
		say(
			`    the execution waits until the call ends, then this window shows  [crm] POST /leads/CRM-88/call-results  CALL_RESULT Answered …`,
		);
		if (wfs['14b'] && wfs['14b'].activated) {
			say(
				'  A chat agent calls and later reads the result from the Data Table "cis_call_results" (examples 14a + 14b, stand-in model):',
			);
			say(
				`    open ${n8n.url}/workflow/${wfs['14b'].id}, click Open chat: "call Ann on +7 999 000-55-55", a few seconds later "what did Ann say?"`,
			);
		}
		if (wfs['14c'] && wfs['14c'].activated) {
			const mcpNode = wfs['14c'].json.nodes.find(
				(node) => node.type === '@n8n/n8n-nodes-langchain.mcpTrigger',
			);
			say(
				`  MCP server (example 14c) for Claude Desktop or any MCP client: ${n8n.url}/mcp/${mcpNode.parameters.path}`,
			);
			say(
				`    header  Authorization: Bearer ${setup.mcpToken}   (credential "MCP clients' bearer token"; docs/ai-agents.md)`,
			);
		}
		say(
			'  An AI Agent calls the lead, waits for the answer and writes a CRM note (example 9, offline stand-in model):',
		);
		say(
			`    curl -s -X POST ${n8n.url}/webhook/cis-lead-agent -H 'content-type: application/json' \\`,
		);
		say(`         -d '{"name": "Ann Agent", "phone": "79990005599", "crmId": "CRM-99"}'`);
		say(
			`    the agent waits until the call ends, then this window shows  [crm] POST /leads/CRM-99/notes  AGENT_NOTE …`,
		);
		say(
			'  Example 3 and 5b/5c: open them in the editor and click "Execute workflow" (5b feeds and starts the',
		);
		say('  campaign that example 5a created; its results come back here as [crm] lines).');
		say(
			`  Example 4: curl -s -X POST ${n8n.url}/webhook/cis-privacy -H 'content-type: application/json' \\`,
		);
		say(
			`             -d '{"callId": "<callId of a [crm] line>", "action": "depersonalize", "keepRecording": true}'`,
		);
		say('');
		if (opts.check) {
			say(`[start] check: ${await checkExampleFlow({ n8nUrl: n8n.url, crm })}`);
			await stop(0, 'check passed');
			return;
		}
		say('  Press Ctrl-C to stop everything.');
		say('');
		// keep running until a signal arrives
		await new Promise(() => {});
	} catch (err) {
		if (stopping) return;
		process.stderr.write(`\n[start] failed: ${err && err.stack ? err.stack : err}\n`);
		await stop(1);
	}
}

module.exports = {
	defaultUserFolder,
	n8nSettingsFrom,
	DEFAULT_CRM_PORT,
	DEFAULT_N8N_PORT,
	DEFAULT_SIM_PORT,
	PORT_VARIABLE,
	parseArgs,
	pickPort,
	portTakenMessage,
	recheckN8nPort,
	START_OWNER,
};

if (require.main === module) {
	main();
}
