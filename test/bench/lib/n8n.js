'use strict';
/**
 * A real n8n 2.41.1 with this package installed from a packed tarball, in a throwaway user
 * folder under os.tmpdir(), on free loopback ports. Built on scripts/lib (see test/e2e/lib/README.md).
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { packRepo, REPO_ROOT } = require('../../../scripts/lib/pack');
const suite = require('../../lib/suite');
const { sampleGroup, mainRss } = require('./memory');
const { CONTENDER, ROWS } = require('./workflows');

const N8N_VERSION = '2.41.1';

/**
 * Builds the package in a temporary copy of the sources (so the repository's own dist/, which
 * others may be using, is not rebuilt under them) and packs it. build=false packs the
 * repository's current dist/ as it is.
 * @param {{ build?: boolean, say?: (line: string) => void }} [options]
 */
async function buildTarball({ build = true, say = () => {} } = {}) {
	if (!build) {
		const r = await packRepo({ build: false });
		if (!r.ok)
			throw new Error(`npm pack failed: ${r.error}\n${r.steps.map((s) => s.output).join('\n')}`);
		return r.tarball;
	}
	const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'cis-bench-src-'));
	for (const entry of [
		'package.json',
		'tsconfig.json',
		'gulpfile.js',
		'README.md',
		'LICENSE',
		'LICENSE.md',
		'nodes',
		'credentials',
	]) {
		const from = path.join(REPO_ROOT, entry);
		if (fs.existsSync(from)) fs.cpSync(from, path.join(copy, entry), { recursive: true });
	}
	fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
	say(`building the package in ${copy}`);
	const r = await packRepo({ repoDir: copy, outDir: path.join(copy, 'pack') });
	if (!r.ok)
		throw new Error(`build/pack failed: ${r.error}\n${r.steps.map((s) => s.output).join('\n')}`);
	return r.tarball;
}

/** Removes the temporary build copy or pack folder that holds a tarball made by buildTarball. */
function removeBuiltTarball(tarball) {
	const tmp = fs.realpathSync(os.tmpdir());
	for (
		let dir = path.dirname(tarball);
		dir.startsWith(tmp) && dir !== tmp;
		dir = path.dirname(dir)
	) {
		if (/^cis-(bench-src|pack)-/.test(path.basename(dir))) {
			fs.rmSync(dir, { recursive: true, force: true });
			return;
		}
	}
}

/**
 * Installs n8n (cached), the tarball, starts n8n and sets up owner, API key and a
 * cisAutoCallApi credential pointing at the simulator. Resolves
 * { n8n, client, credential, userFolder, stop() }.
 * @param {{ tarball: string, sim: any, say?: (line: string) => void, env?: NodeJS.ProcessEnv }} options
 */
async function startBenchN8n({ tarball, sim, say = () => {}, env = {} }) {
	await suite.ensureVersion(N8N_VERSION);
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'cis-bench-n8n-'));
	say(`installing the package and starting n8n ${N8N_VERSION} (user folder ${userFolder})`);
	// one object for the whole life of the instance: restartWith() changes it for the next start
	const n8nEnvironment = {
		// keep the run data of every node: the bench reads the node's executionTime and items
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		EXECUTIONS_DATA_PRUNE: 'false',
		...env,
	};
	const { n8n, client } = await suite.startInstance({
		version: N8N_VERSION,
		tarball,
		userFolder,
		env: n8nEnvironment,
	});
	say(`n8n ready at ${n8n.url} in ${n8n.startedInMs} ms`);
	const credential = await client.createCredential({
		name: 'bench simulator',
		type: 'cisAutoCallApi',
		data: { baseUrl: sim.url, accessToken: sim.token },
	});
	return {
		n8n,
		client,
		credential,
		userFolder,
		/** Restarts n8n with these environment variables added (a value of undefined removes one). */
		async restartWith(changes) {
			for (const [key, value] of Object.entries(changes)) {
				if (value === undefined) delete n8nEnvironment[key];
				else n8nEnvironment[key] = value;
			}
			await n8n.restart();
		},
		async stop({ keep = false } = {}) {
			await n8n.stop();
			if (!keep) fs.rmSync(userFolder, { recursive: true, force: true });
		},
	};
}

/**
 * Starts a stored Manual-Trigger workflow through the editor's manual-run endpoint
 * (POST /rest/workflows/:id/run, the 2.x body) and resolves its execution id.
 */
async function startManualRun(client, workflowId) {
	const wf = await client.rest('GET', `/workflows/${workflowId}`);
	const trigger = wf.nodes.find((nd) => nd.type === 'n8n-nodes-base.manualTrigger');
	const res = await client.rest('POST', `/workflows/${workflowId}/run`, {
		triggerToStartFrom: { name: trigger.name },
	});
	if (!res || !res.executionId)
		throw new Error(`workflow ${workflowId}: unexpected run answer ${JSON.stringify(res)}`);
	return res.executionId;
}

const TERMINAL = new Set(['success', 'error', 'crashed', 'canceled']);

/**
 * Runs a stored workflow once (manual run) while sampling n8n's memory. The memory sampling
 * stops when the execution has finished (polled without data), before the execution is read
 * back with its data, so the peak is the run's, not the read-back's. Resolves the measurements.
 */
async function runMeasured(env, workflowId, { timeoutMs = 30 * 60 * 1000 } = {}) {
	const pgid = env.n8n.process && env.n8n.process.pid;
	const rssBefore = mainRss(pgid);
	const sampler = sampleGroup(pgid);
	const t0 = Date.now();
	let memory;
	let summary;
	try {
		const executionId = await startManualRun(env.client, workflowId);
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const r = await env.client.rawApi('GET', `/executions/${executionId}?includeData=false`);
			if (r.status === 200 && TERMINAL.has(r.body.status)) {
				summary = r.body;
				break;
			}
			if (Date.now() > deadline)
				throw new Error(`execution ${executionId} not finished within ${timeoutMs} ms`);
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
	} finally {
		memory = await sampler.stop();
	}
	const runMs = Date.now() - t0;
	const execution = await env.client.getExecution(summary.id, { includeData: true });
	const wallMs = Date.now() - t0;
	return { ...readExecution(execution), runMs, wallMs, memory: memory && { ...memory, rssBefore } };
}

/** The timings and output of the Code node and the contender of one execution. */
function readExecution(execution) {
	const resultData = (execution.data && execution.data.resultData) || {};
	const runData = resultData.runData || {};
	const task = (name) => (runData[name] && runData[name][runData[name].length - 1]) || null;
	const contender = task(CONTENDER);
	const rows = task(ROWS);
	const items =
		(contender && contender.data && contender.data.main && contender.data.main[0]) || [];
	const workflowMs =
		execution.startedAt && execution.stoppedAt
			? Date.parse(execution.stoppedAt) - Date.parse(execution.startedAt)
			: null;
	return {
		executionId: execution.id,
		status: execution.status,
		workflowMs,
		rowsMs: rows ? rows.executionTime : null,
		rowsCount:
			rows && rows.data && rows.data.main && rows.data.main[0] ? rows.data.main[0].length : null,
		nodeMs: contender ? contender.executionTime : null,
		nodeRuns: runData[CONTENDER] ? runData[CONTENDER].length : 0,
		nodeError:
			contender && contender.error
				? contender.error.message || String(contender.error)
				: resultData.error
					? resultData.error.message
					: null,
		items,
	};
}

module.exports = {
	N8N_VERSION,
	buildTarball,
	removeBuiltTarball,
	startBenchN8n,
	runMeasured,
	readExecution,
};
