'use strict';
/**
 * Smoke probe of the e2e infrastructure against a real n8n, using only built-in nodes:
 *   node test/e2e/lib/probe.js [version]     (default 2.41.1; e.g. 1.123.81)
 *
 * Installs (cached) n8n, starts it in a temp user folder, sets up the owner, creates an
 * API key, then:
 *   - Webhook -> NoOp workflow: create, activate/publish, POST, read the execution back
 *   - Manual Trigger -> Set workflow: run it via the editor's manual-run endpoint
 *   - n8nApi credential: create it and test it (good key -> OK, bad key -> Error)
 *   - deactivate, restart, check the webhook is gone and the API key still works
 * Prints timings and exits non-zero on failure. Leaves no process behind.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const assert = require('assert');
const { ensureN8n } = require('../../../scripts/lib/n8n-install');
const { execFileSync } = require('child_process');
const {
	startN8n,
	setupOwner,
	installPackageTarball,
	executeWorkflowCli,
} = require('../../../scripts/lib/n8n-instance');

/** Packs a tiny community package (one programmatic node) and returns the tarball path. */
function packProbePackage(dir) {
	const pkg = path.join(dir, 'pkg');
	fs.mkdirSync(path.join(pkg, 'dist'), { recursive: true });
	fs.writeFileSync(
		path.join(pkg, 'package.json'),
		JSON.stringify(
			{
				name: 'n8n-nodes-e2e-probe',
				version: '0.0.1',
				license: 'MIT',
				keywords: ['n8n-community-node-package'],
				files: ['dist'],
				n8n: { n8nNodesApiVersion: 1, credentials: [], nodes: ['dist/ProbeNode.node.js'] },
				peerDependencies: { 'n8n-workflow': '*' },
			},
			null,
			2,
		),
	);
	fs.writeFileSync(
		path.join(pkg, 'dist', 'ProbeNode.node.js'),
		`'use strict';
class ProbeNode {
	constructor() {
		this.description = {
			displayName: 'E2E Probe', name: 'probeNode', group: ['transform'], version: 1, description: 'probe',
			defaults: { name: 'E2E Probe' }, inputs: ['main'], outputs: ['main'], properties: [],
		};
	}
	async execute() {
		return [this.getInputData().map((item, i) => ({ json: { ...item.json, probed: true }, pairedItem: { item: i } }))];
	}
}
module.exports = { ProbeNode };
`,
	);
	const out = execFileSync(
		'npm',
		['pack', '--pack-destination', dir, '--ignore-scripts', '--silent'],
		{ cwd: pkg, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
	);
	return path.join(dir, out.trim().split('\n').pop());
}

const WEBHOOK_ID = '6f1c0f7e-2d7a-4c59-9a55-0c7f7f0e0a01';

function webhookWorkflow() {
	return {
		name: 'probe webhook',
		nodes: [
			{
				parameters: { httpMethod: 'POST', path: 'probe', options: {} },
				id: 'a1',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: WEBHOOK_ID,
			},
			{
				parameters: {},
				id: 'a2',
				name: 'No Operation',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [200, 0],
			},
		],
		connections: { Webhook: { main: [[{ node: 'No Operation', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

function manualWorkflow() {
	return {
		name: 'probe manual',
		nodes: [
			{
				parameters: {},
				id: 'b1',
				name: 'When clicking ‘Execute workflow’',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
			},
			{
				parameters: {
					assignments: {
						assignments: [{ id: 'x1', name: 'hello', value: '={{ 40 + 2 }}', type: 'number' }],
					},
					options: {},
				},
				id: 'b2',
				name: 'Edit Fields',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [200, 0],
			},
		],
		connections: {
			'When clicking ‘Execute workflow’': {
				main: [[{ node: 'Edit Fields', type: 'main', index: 0 }]],
			},
		},
		settings: { executionOrder: 'v1' },
	};
}

function lastNodeJson(execution, nodeName) {
	const runData = execution.data.resultData.runData[nodeName];
	return runData[runData.length - 1].data.main[0].map((i) => i.json);
}

async function main() {
	const version = process.argv[2] || '2.41.1';
	const timings = {};
	let t = Date.now();
	await ensureN8n(version);
	timings.ensureN8nMs = Date.now() - t;

	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), `cis-probe-${version}-`));
	t = Date.now();
	const tarball = packProbePackage(userFolder);
	const installed = await installPackageTarball(userFolder, tarball, version);
	timings.packAndInstallTarballMs = Date.now() - t;
	console.log(`installed ${installed.name}@${installed.version} into ${installed.dir}`);
	t = Date.now();
	const n8n = await startN8n({ version, userFolder });
	timings.firstStartMs = Date.now() - t;
	console.log(
		`n8n ${version} ready at ${n8n.url} in ${timings.firstStartMs} ms (user folder ${userFolder})`,
	);
	try {
		t = Date.now();
		const client = await setupOwner(n8n.url, undefined, { version });
		timings.ownerSetupAndKeyMs = Date.now() - t;
		console.log(`owner + API key in ${timings.ownerSetupAndKeyMs} ms`);

		// --- webhook workflow
		const wf = await client.createWorkflow(webhookWorkflow());
		assert.ok(wf.id, 'workflow id');
		t = Date.now();
		const act = await client.activate(wf.id);
		timings.activateMs = Date.now() - t;
		console.log(`activated ${wf.id} (active=${act && act.active}) in ${timings.activateMs} ms`);
		t = Date.now();
		// the Webhook node (isFullPath) answers on /webhook/<path>; nodes without isFullPath
		// (e.g. community triggers) on /webhook/<webhookId>/<path>
		const res = await client.callWebhook('probe', { ping: 1 });
		assert.strictEqual(res.status, 200, `webhook answered ${res.status} ${res.text}`);
		const [ex] = await client.waitForExecutions(wf.id, 1, 20000);
		timings.webhookToExecutionMs = Date.now() - t;
		assert.strictEqual(ex.status, 'success');
		assert.strictEqual(ex.mode, 'webhook');
		const items = lastNodeJson(ex, 'No Operation');
		assert.deepStrictEqual(items[0].body, { ping: 1 });
		console.log(
			`webhook execution ${ex.id} ${ex.status} (mode ${ex.mode}) read back in ${timings.webhookToExecutionMs} ms`,
		);

		// --- manual workflow
		const mwf = await client.createWorkflow(manualWorkflow());
		t = Date.now();
		const mex = await client.runWorkflowManually(mwf.id);
		timings.manualRunMs = Date.now() - t;
		assert.strictEqual(mex.status, 'success');
		assert.strictEqual(lastNodeJson(mex, 'Edit Fields')[0].hello, 42);
		console.log(
			`manual run execution ${mex.id} ${mex.status} (mode ${mex.mode}) in ${timings.manualRunMs} ms`,
		);

		// --- credential test (built-in n8nApi credential pointing at this very n8n)
		const good = await client.createCredential({
			name: 'probe n8n api',
			type: 'n8nApi',
			data: { apiKey: client.apiKey, baseUrl: `${n8n.url}/api/v1` },
		});
		const bad = await client.createCredential({
			name: 'probe n8n api bad',
			type: 'n8nApi',
			data: { apiKey: 'wrong', baseUrl: `${n8n.url}/api/v1` },
		});
		const okRes = await client.testCredential({ id: good.id, name: good.name, type: 'n8nApi' });
		const badRes = await client.testCredential({ id: bad.id, name: bad.name, type: 'n8nApi' });
		console.log(`credential test good: ${JSON.stringify(okRes)} bad: ${JSON.stringify(badRes)}`);
		assert.strictEqual(okRes.status, 'OK');
		assert.strictEqual(badRes.status, 'Error');
		// unsaved data only (1.x accepts; 2.x needs the id of a stored credential)
		const unsaved = await client
			.testCredential({
				type: 'n8nApi',
				name: 'x',
				data: { apiKey: client.apiKey, baseUrl: `${n8n.url}/api/v1` },
			})
			.then(
				(r) => JSON.stringify(r),
				(e) => `rejected: ${e.message.slice(0, 200)}`,
			);
		console.log(`credential test of unsaved data: ${unsaved}`);

		// --- deactivate, restart
		await client.deactivate(wf.id);
		const after = await client.callWebhook('probe', { ping: 2 });
		console.log(`after deactivate: webhook -> ${after.status}`);
		assert.strictEqual(after.status, 404);
		await client.activate(wf.id);
		t = Date.now();
		await n8n.restart();
		timings.restartMs = Date.now() - t;
		// after a restart 2.x re-registers triggers asynchronously (outbox/reconciler)
		await client.waitForPublication(wf.id, 'published', 30000);
		let again;
		const until = Date.now() + 20000;
		do {
			again = await client.callWebhook('probe', { ping: 3 });
			if (again.status === 200) break;
			await new Promise((r) => setTimeout(r, 250));
		} while (Date.now() < until);
		timings.restartToWebhookOkMs = Date.now() - t;
		assert.strictEqual(again.status, 200, `after restart webhook -> ${again.status}`);
		const exs = await client.waitForExecutions(wf.id, 2, 20000);
		assert.strictEqual(exs.length, 2);
		console.log(
			`restart in ${timings.restartMs} ms; webhook still active after restart; API key still valid`,
		);

		// --- the installed community package's node, in a manual workflow
		const pwf = await client.createWorkflow({
			name: 'probe package node',
			nodes: [
				{
					parameters: {},
					id: 'c1',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
				},
				{
					parameters: {},
					id: 'c2',
					name: 'E2E Probe',
					type: 'n8n-nodes-e2e-probe.probeNode',
					typeVersion: 1,
					position: [200, 0],
				},
			],
			connections: { Start: { main: [[{ node: 'E2E Probe', type: 'main', index: 0 }]] } },
		});
		const pex = await client.runWorkflowManually(pwf.id);
		assert.strictEqual(
			pex.status,
			'success',
			JSON.stringify(pex.data && pex.data.resultData.error),
		);
		assert.strictEqual(lastNodeJson(pex, 'E2E Probe')[0].probed, true);
		console.log(`package node n8n-nodes-e2e-probe.probeNode ran (execution ${pex.id})`);

		// --- the CLI way: stop the server, `n8n execute --id` on the same user folder
		await n8n.stop();
		t = Date.now();
		const cli = await executeWorkflowCli({ version, userFolder, workflowId: mwf.id });
		timings.cliExecuteMs = Date.now() - t;
		console.log(
			`n8n execute --id=${mwf.id} --rawOutput: exit ${cli.code}${cli.crashedOnExit ? ' (SIGSEGV on exit after printing the run)' : ''}, ${cli.run ? 'JSON ok' : 'no JSON'} in ${timings.cliExecuteMs} ms`,
		);
		if (!cli.run)
			console.log(`  stdout: ${cli.stdout.slice(0, 400)}\n  stderr: ${cli.stderr.slice(-400)}`);
		assert.ok(cli.ok);
		assert.strictEqual(
			cli.run.data.resultData.runData['Edit Fields'][0].data.main[0][0].json.hello,
			42,
		);

		console.log(`OK n8n ${version} ${JSON.stringify(timings)}`);
	} catch (err) {
		console.error(`FAILED on n8n ${version}: ${err.stack || err}`);
		console.error(`--- last n8n output:\n${n8n.logs.slice(-60).join('\n')}`);
		process.exitCode = 1;
	} finally {
		await n8n.stop();
		if (!process.env.CIS_KEEP_USER_FOLDER) fs.rmSync(userFolder, { recursive: true, force: true });
	}
}

main().catch((err) => {
	console.error(err.stack || err);
	process.exit(1);
});
