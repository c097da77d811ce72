#!/usr/bin/env node
'use strict';
/**
 * `npm start` as a user runs it, twice on one n8n folder (scripts/start.js as a child process, Ctrl-C
 * between): the user's own workflow and the executions are still there at the second start, nothing
 * is imported twice, the credentials follow the simulator to another port, and n8n's own settings in
 * the environment reach the n8n process (read back from the running n8n: its settings endpoint, and
 * on Linux the process's environment in /proc/<pid>/environ). A third start with --fresh begins
 * from scratch.
 *
 *   node test/start/run.js [--version 2.41.1] [--keep] [--echo]
 *
 * Ends with one line `N passed, N failed`. Plain Node (CommonJS, built-ins only).
 */
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const suite = require('../lib/suite');
const { Checks } = require('../e2e/harness');
const { createClient } = require('../../scripts/lib/n8n-client');
const { httpRequest, freePort } = require('../../scripts/lib/http');
const { loadExamples } = require('../../scripts/lib/playground');
const { START_OWNER } = require('../../scripts/start');

const START = path.resolve(__dirname, '..', '..', 'scripts', 'start.js');
/** n8n settings given to the second start, and how the running n8n shows each. */
const SETTINGS = {
	N8N_HIDE_USAGE_PAGE: 'true',
	EXECUTIONS_TIMEOUT: '321',
	N8N_EVENTBUS_RECOVERY_MODE: 'simple',
};

/** scripts/start.js with these arguments and extra environment; its output is collected. */
function startNpmStart(args, env, { echo, label }) {
	const base = { ...process.env };
	for (const name of Object.keys(base))
		if (/^(N8N_|DB_|EXECUTIONS_|QUEUE_)/.test(name)) delete base[name];
	const child = spawn(process.execPath, [START, ...args], {
		env: { ...base, ...env },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const run = { child, output: '', exit: null };
	const take = (chunk) => {
		const text = chunk.toString('utf8');
		run.output += text;
		if (echo)
			for (const line of text.split('\n').filter(Boolean))
				process.stderr.write(`[${label}] ${line}\n`);
	};
	child.stdout.on('data', take);
	child.stderr.on('data', take);
	run.exited = new Promise((resolve) =>
		child.on('exit', (code, signal) => resolve((run.exit = { code, signal }))),
	);
	return run;
}

async function until(run, re, timeoutMs, what) {
	const t0 = Date.now();
	while (!re.test(run.output)) {
		if (run.exit)
			throw new Error(
				`npm start ended (code ${run.exit.code}) before ${what}. Output:\n${run.output.slice(-3000)}`,
			);
		if (Date.now() - t0 > timeoutMs)
			throw new Error(
				`no ${what} within ${timeoutMs / 1000} s. Output:\n${run.output.slice(-3000)}`,
			);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/** Ctrl-C, as a user stops it; resolves its exit. */
async function stop(run) {
	if (run.exit) return run.exit;
	run.child.kill('SIGINT');
	return await run.exited;
}

/** Linux: the pid of the `n8n start` process among the descendants of `rootPid`. */
function n8nPidUnder(rootPid) {
	const parents = new Map();
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
			parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
		} catch (_) {
			/* gone */
		}
	}
	const isUnder = (pid) => {
		for (let p = parents.get(pid); p; p = parents.get(p)) if (p === rootPid) return true;
		return false;
	};
	for (const pid of parents.keys()) {
		if (!isUnder(pid)) continue;
		const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
		if (
			argv.some((arg) => /[\\/]n8n$|[\\/]n8n[\\/]bin[\\/]n8n/.test(arg)) &&
			argv.includes('start')
		)
			return pid;
	}
	return undefined;
}

async function main() {
	const opts = suite.parseArgs(
		process.argv.slice(2),
		{ version: '2.41.1' },
		{ '--version': (o, v) => (o.version = v()) },
	);
	const checks = new Checks(`npm start ${opts.version}`);
	const runs = [];
	suite.onInterrupt(() => {
		for (const r of runs) if (!r.exit) r.child.kill('SIGKILL');
		return [checks];
	});
	await suite.ensureVersion(opts.version);
	const folder = path.join(suite.makeTemp('cis-npm-start-', { keep: opts.keep }), 'n8n');
	const port = await freePort();
	const [simPort, simPort2, crmPort] = [await freePort(), await freePort(), await freePort()];
	const url = `http://127.0.0.1:${port}`;
	const common = [
		'--version',
		opts.version,
		'--user-folder',
		folder,
		'--port',
		String(port),
		'--crm-port',
		String(crmPort),
	];
	const examples = loadExamples().length;
	const login = async () => {
		const client = createClient(url, { owner: START_OWNER, version: opts.version });
		await client.login(START_OWNER.email, START_OWNER.password);
		await client.createApiKey(`npm-start-test-${Date.now()}`);
		return client;
	};
	const workflowCount = async (client) => {
		const list = await client.rest('GET', '/workflows');
		return (Array.isArray(list) ? list : list.data || []).length;
	};
	suite.out(`npm start twice on one n8n folder, n8n ${opts.version}`);

	let own;
	let firstRun;
	const first = startNpmStart(
		[...common, '--sim-port', String(simPort)],
		{},
		{ echo: opts.echo, label: 'start 1' },
	);
	runs.push(first);
	await checks.check('first npm start: ready, the examples imported', async () => {
		await until(first, /\[start 6\/6\] ready/, 600000, 'the ready line');
		const client = await login();
		const count = await workflowCount(client);
		if (count !== examples)
			throw new Error(`${count} workflows, expected the ${examples} examples`);
		// the user's own workflow, and one execution of example 1 (a lead called)
		own = await client.createWorkflow({
			name: 'My own workflow',
			nodes: [
				{
					id: 'a1',
					name: 'When clicking',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
			],
			connections: {},
		});
		const lead = await httpRequest('POST', `${url}/webhook/cis-lead`, {
			body: { name: 'Kept Lead', phone: '79990005557', crmId: 'KEEP-1' },
		});
		if (lead.status !== 200) throw new Error(`POST /webhook/cis-lead answered ${lead.status}`);
		await until(
			first,
			/\[crm\] POST \/leads\/KEEP-1\/call-results/,
			120000,
			"the lead's call result at the CRM stub",
		);
		firstRun = (await client.listExecutions(undefined, {})).map((execution) =>
			String(execution.id),
		);
		if (!firstRun.length) throw new Error('no execution of the lead');
		return `${count} examples; workflow "${own.name}" (${own.id}) created; executions ${firstRun.join(', ')}`;
	});
	await checks.check(
		'Ctrl-C stops it and says the folder is kept; the folder is still there',
		async () => {
			const exit = await stop(first);
			if (!/your workflows and executions are kept in/.test(first.output))
				throw new Error(`no line saying the folder is kept. Output:\n${first.output.slice(-1500)}`);
			if (!fs.existsSync(path.join(folder, '.n8n'))) throw new Error(`${folder}/.n8n is gone`);
			return `exit ${exit.code ?? exit.signal}`;
		},
	);

	const second = startNpmStart([...common, '--sim-port', String(simPort2)], SETTINGS, {
		echo: opts.echo,
		label: 'start 2',
	});
	runs.push(second);
	let client;
	await checks.check(
		'second npm start on the kept folder: the own workflow and the executions are there, the examples not imported twice',
		async () => {
			await until(second, /\[start 6\/6\] ready/, 600000, 'the ready line');
			client = await login();
			const wf = await client.rest('GET', `/workflows/${own.id}`);
			if (!wf || wf.name !== 'My own workflow')
				throw new Error(`workflow ${own.id}: ${JSON.stringify(wf).slice(0, 300)}`);
			const count = await workflowCount(client);
			if (count !== examples + 1)
				throw new Error(`${count} workflows, expected ${examples} examples + 1 own`);
			const ids = (await client.listExecutions(undefined, {})).map((execution) =>
				String(execution.id),
			);
			const lost = firstRun.filter((id) => !ids.includes(id));
			if (lost.length)
				throw new Error(
					`the executions ${lost.join(', ')} of the first start are gone (now: ${ids.join(', ')})`,
				);
			return `"${wf.name}" kept, ${count} workflows, executions ${firstRun.join(', ')} kept`;
		},
	);
	await checks.check(
		'n8n settings from the environment reach the n8n process (its settings endpoint)',
		async () => {
			const res = await client.rawRest('GET', '/settings');
			const settings = res.body && res.body.data ? res.body.data : res.body;
			if (settings.hideUsagePage !== true)
				throw new Error(`N8N_HIDE_USAGE_PAGE=true: hideUsagePage is ${settings.hideUsagePage}`);
			if (settings.executionTimeout !== 321)
				throw new Error(`EXECUTIONS_TIMEOUT=321: executionTimeout is ${settings.executionTimeout}`);
			if (!/n8n settings from the environment: .*N8N_EVENTBUS_RECOVERY_MODE/.test(second.output))
				throw new Error('npm start did not say which settings it passed');
			return 'hideUsagePage true (N8N_HIDE_USAGE_PAGE), executionTimeout 321 (EXECUTIONS_TIMEOUT)';
		},
	);
	if (process.platform === 'linux') {
		await checks.check(
			'N8N_EVENTBUS_RECOVERY_MODE=simple is in the environment of the running n8n process (/proc/<pid>/environ)',
			async () => {
				const pid = n8nPidUnder(second.child.pid);
				if (!pid) throw new Error('no `n8n start` process found under npm start');
				const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
				if (!environ.includes('N8N_EVENTBUS_RECOVERY_MODE=simple'))
					throw new Error(`not in the environment of pid ${pid}`);
				return `pid ${pid}`;
			},
		);
	}
	await checks.check(
		'the kept credentials follow the simulator to its new port: a lead is called and its result reaches the CRM',
		async () => {
			if (!new RegExp(`now points at http://127\\.0\\.0\\.1:${simPort2}`).test(second.output))
				throw new Error('npm start did not say the credentials now point at the new simulator');
			const lead = await httpRequest('POST', `${url}/webhook/cis-lead`, {
				body: { name: 'Kept Lead', phone: '79990005558', crmId: 'KEEP-2' },
			});
			if (lead.status !== 200) throw new Error(`POST /webhook/cis-lead answered ${lead.status}`);
			await until(
				second,
				/\[crm\] POST \/leads\/KEEP-2\/call-results/,
				120000,
				"the lead's call result at the CRM stub",
			);
		},
	);
	await stop(second);

	const third = startNpmStart(
		[...common, '--sim-port', String(simPort), '--fresh', '--check'],
		{},
		{ echo: opts.echo, label: 'start 3' },
	);
	runs.push(third);
	await checks.check(
		'npm start -- --fresh starts from scratch: the examples only, and the check passes',
		async () => {
			const exit = await third.exited;
			if (exit.code !== 0)
				throw new Error(`exit ${exit.code}. Output:\n${third.output.slice(-3000)}`);
			if (
				!/a new n8n folder, kept when you stop/.test(third.output) ||
				!/imported \d+ example workflows/.test(third.output)
			) {
				throw new Error(
					`it did not start from a new folder. Output:\n${third.output.slice(-2000)}`,
				);
			}
			return 'a new folder, the examples imported, the check passed';
		},
	);

	if (!opts.keep) suite.removeTemp();
	suite.finish([checks]);
}

suite.run(main);
