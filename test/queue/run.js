#!/usr/bin/env node
'use strict';
/**
 * Queue-mode suite: the package, installed from its `npm pack` tarball, in n8n 2.41.1 run the way
 * users scale it (./cluster.js: Postgres, Redis, main with production webhooks off, 2 workers,
 * 2 webhook processes behind a round-robin balancer), against the simulator of the service (in
 * this process). Checks: ./checks.js.
 *
 *   npm run test:queue
 *   options: --rounds N (rounds of the re-publish race, default 3), --simultaneous N (how often the
 *   figure "same delivery to both webhook processes at once" is measured, default 5), --wait-rounds N
 *   (rounds of "a call's last two events at once on both webhook processes" for Create and Run and
 *   Wait for Result, default 5), --fault-rounds N (rounds of ./faults.js per delivery model, default 3), --delivery
 *   independent|ordered|both (./faults.js's delivery models: each event re-sent on its own schedule, or a lead's
 *   Person Done sent only after its Call Ended was taken; default both, the ordered one --ordered-rounds N rounds,
 *   default 1), --only faults|agent|limits (that
 *   case alone: ./faults.js, run only this way, ./agent.js, an AI Agent's wait across a worker restart, or ./limits.js,
 *   Max Calls per Day against leads at once, --limit-rounds N rounds, default 3), --keep (keep the temp folder
 *   with every process's user folder and log), --echo (mirror n8n's output), --no-build
 *
 * Prints each check, figures, and ends with exactly one line `N passed, N failed`; exit code 1
 * when a check failed. Everything runs on 127.0.0.1 in one temp folder, removed at the end (also
 * on Ctrl-C). n8n and Postgres are installed into the cache on first use ($CIS_N8N_CACHE).
 */
const path = require('path');
const { DEFAULT_VERSION } = require('../../scripts/lib/n8n-install');
const { setupOwner } = require('../../scripts/lib/n8n-instance');
const { createSimulator } = require('../../simulator');
const { SIM_TOKEN, SIM_USER } = require('../../scripts/lib/playground');
const suite = require('../lib/suite');
const { Checks, chain, manualTrigger } = require('../e2e/harness');
const { startCluster, executionsByWorker } = require('./cluster');
const queueChecks = require('./checks');
const faultChecks = require('./faults');
const agentChecks = require('./agent');
const limitChecks = require('./limits');

const { out, secs } = suite;
const VERSION = DEFAULT_VERSION;
const TIME_SCALE = 0.05;

function parseArgs(argv) {
	return suite.parseArgs(
		argv,
		{
			rounds: 3,
			simultaneous: 5,
			waitRounds: 5,
			faultRounds: 3,
			delivery: 'both',
			orderedRounds: 1,
			only: '',
			limitRounds: 3,
		},
		{
			'--rounds': (o, value) => (o.rounds = Math.max(1, Number(value()) || 3)),
			'--simultaneous': (o, value) => (o.simultaneous = Math.max(0, Number(value()) || 0)),
			'--wait-rounds': (o, value) => (o.waitRounds = Math.max(1, Number(value()) || 5)),
			'--fault-rounds': (o, value) => (o.faultRounds = Math.max(1, Number(value()) || 3)),
			'--delivery': (o, value) => {
				o.delivery = String(value());
				if (!['independent', 'ordered', 'both'].includes(o.delivery))
					throw new Error(`--delivery must be independent, ordered or both, got ${o.delivery}`);
			},
			'--ordered-rounds': (o, value) => (o.orderedRounds = Math.max(1, Number(value()) || 1)),
			'--only': (o, value) => (o.only = String(value())), // `faults` (./faults.js), `agent` (./agent.js) or `limits` (./limits.js) alone
			'--limit-rounds': (o, value) => (o.limitRounds = Math.max(1, Number(value()) || 3)),
		},
	);
}

let checks = null;
// the process groups (n8n, Postgres, Redis) get a little longer to go than a single n8n
suite.onInterrupt(() => [checks], 500);

async function main() {
	const opts = parseArgs(process.argv.slice(2));
	const t0 = Date.now();
	out(
		`CIS Auto-Call queue-mode suite: n8n ${VERSION} (main + 2 workers + 2 webhook processes), simulator time scale ${TIME_SCALE}`,
	);
	const { install: n8nInstall } = await suite.ensureVersion(VERSION);
	const pack = await suite.packOrExit({ build: opts.build });
	out(
		`packed ${path.basename(pack.tarball)} in ${secs(pack.ms)}${opts.build ? ' (build included)' : ''}`,
	);

	checks = new Checks('queue');
	const workDir = suite.makeTemp('cis-queue-', { keep: opts.keep });
	const sim = await createSimulator({
		port: 0,
		token: SIM_TOKEN,
		users: [SIM_USER],
		timeScale: TIME_SCALE,
	});
	const summary = {};
	/** @type {any} */
	let cluster = null;
	try {
		/** @type {any} */
		let client = null;
		await checks.check(
			`n8n ${VERSION} in queue mode starts: Postgres 17+, Redis, main (production webhooks off), 2 workers, 2 webhook processes, one encryption key; the package from its npm pack tarball; no unsupported-Postgres warning`,
			async () => {
				const t = Date.now();
				cluster = await startCluster({
					version: VERSION,
					tarball: pack.tarball,
					workDir,
					n8nInstall,
					echo: opts.echo,
				});
				summary.startMs = Date.now() - t;
				client = await setupOwner(cluster.main.url, undefined, { version: VERSION });
				await suite.expectPackageNodes(cluster.main.url, client.cookie, 'main');
				if (Number(cluster.postgres.version.split('.')[0]) < 17)
					throw new Error(`Postgres ${cluster.postgres.version}: n8n supports 17 and newer`);
				const warnings = cluster
					.all()
					.flatMap((p) =>
						p.logs.filter((l) =>
							/Postgres \d+ (is not supported|is outside the supported range)/.test(l),
						),
					);
				if (warnings.length) throw new Error(warnings[0]);
				const tm = cluster.timing;
				return `Postgres ${cluster.postgres.version}, Redis ${cluster.redis.version}, ${cluster.installed.name}@${cluster.installed.version}; services ${secs(tm.servicesMs)}, package ${secs(tm.packageInstallMs)}, main ${secs(tm.mainStartMs)}, workers + webhook processes ${secs(tm.othersStartMs)}`;
			},
		);
		if (!client) {
			checks.skip('queue-mode checks', 'the cluster did not start');
		} else {
			const cred = await client.createCredential({
				name: 'queue token',
				type: 'cisAutoCallApi',
				data: { baseUrl: sim.url, accessToken: SIM_TOKEN },
			});
			cred.id = String(cred.id);
			const ctx = {
				cluster,
				client,
				sim,
				cred,
				checks,
				summary,
				raceRounds: opts.rounds,
				simultaneousTrials: opts.simultaneous,
				waitRounds: opts.waitRounds,
				limitRounds: opts.limitRounds,
				// The fault case's delivery models (./faults.js), each with its rounds.
				deliveryModels: [
					...(opts.delivery !== 'ordered'
						? [{ model: 'independent', rounds: opts.faultRounds }]
						: []),
					...(opts.delivery !== 'independent'
						? [
								{
									model: 'ordered',
									rounds: opts.delivery === 'both' ? opts.orderedRounds : opts.faultRounds,
								},
							]
						: []),
				],
				async run(name, nodes) {
					const wf = await client.createWorkflow(chain(name, [manualTrigger(), ...nodes]));
					return client.runWorkflowManually(wf.id, { timeoutMs: 60000 });
				},
			};
			try {
				if (!opts.only) await queueChecks(ctx);
				// The fault case runs on request: it still meets a known limit (docs/queue-mode.md), one round in six.
				if (opts.only === 'faults') await faultChecks(ctx);
				// The agent's case restarts workers with other settings: a cluster of its own (--only agent; CI step "queue agent").
				if (opts.only === 'agent') await agentChecks(ctx);
				// Max Calls per Day against leads at once on both workers: the overshoot measured (docs/limits.md).
				if (opts.only === 'limits') await limitChecks(ctx);
			} catch (err) {
				checks.skip('queue-mode checks', `crashed: ${err && err.stack ? err.stack : err}`);
			}
			await figures(cluster, summary);
		}
	} catch (err) {
		checks.skip('queue-mode set-up', err && err.stack ? err.stack : String(err));
	} finally {
		if (cluster) await cluster.stop();
		await sim.close();
		suite.removeTemp(pack.dir);
		if (opts.keep)
			out(`  (kept ${workDir}: user folders with n8n-output.log, postgres/postgres.log, redis/)`);
		else suite.removeTemp(workDir);
	}

	out('\n== figures ==');
	if (summary.startMs)
		out(
			`cluster start ${secs(summary.startMs)}; restart of all 5 n8n processes ${summary.restartMs ? secs(summary.restartMs) : '-'}`,
		);
	if (summary.executions) {
		const e = summary.executions;
		out(
			`executions in the database: ${e.total} (${Object.entries(e.byStatus)
				.map(([s, n]) => `${s} ${n}`)
				.join(
					', ',
				)}); started by worker-1 ${e.byWorker['worker-1'] || 0}, worker-2 ${e.byWorker['worker-2'] || 0}`,
		);
		out(
			`balancer forwarded ${summary.balancerForwarded.join(' + ')} requests to the webhook processes`,
		);
	}
	if (summary.tasksCreated) {
		const c = summary.tasksCreated;
		out(
			`call tasks created by the trigger: publish ${c.publish}, restart of every process ${c.restart}, re-publish unchanged ${c.republishUnchanged}, race rounds ${c.raceRounds.join('/') || '-'}`,
		);
	}
	if (summary.dedup) {
		const d = summary.dedup;
		const same =
			d.simultaneous && d.simultaneous.length
				? `; copies at the same instant: downstream runs ${d.simultaneous.join(', ')}`
				: '';
		out(
			`de-duplication: 6 copies of one delivery → ${d.executions} executions, ${d.downstreamRuns} downstream run(s)${same}`,
		);
	}
	if (summary.wait) {
		const w = summary.wait;
		const parts = [];
		if (w.one)
			parts.push(
				`one lead: execution ${w.one.execution} waited on ${w.one.runs[0]}, resumed and finished on ${w.one.finishedOn}`,
			);
		if (w.manual)
			parts.push(
				`test run from the editor (manual): execution ${w.manual.execution} ran on ${w.manual.runs.join(' then ')}`,
			);
		if (w.simultaneous)
			parts.push(
				`the call's last two events at once on both webhook processes, ${w.simultaneous.length} rounds: rest of the workflow ran ${w.simultaneous.map((r) => r.crmRuns).join(', ')} time(s), CRM status ${w.simultaneous.map((r) => r.statuses.join('+') || '-').join(', ')} (every call answered)`,
			);
		if (w.twoLeads)
			parts.push(
				`two leads on different webhook processes: completed with both results ${w.twoLeads.completed ? 'yes' : 'NO'} (${w.twoLeads.ending})`,
			);
		if (parts.length) out(`Create and Run and Wait for Result: ${parts.join('; ')}`);
	}
	for (const f of summary.faults || [])
		out(`fault case, ${f.model} delivery, round ${f.round}: ${f.text}`);
	for (const a of summary.agent || []) {
		const after =
			a.firstResultAfterUpMs === null
				? 'no result'
				: `the result ${secs(a.firstResultAfterUpMs)} after it was up`;
		out(
			`agent wait (${a.name}): execution ${a.execution} waited on ${a.waitedOn}, restarted in ${secs(a.restartMs)}, ${after}; hand-overs answered ${a.handOvers.join(', ') || '-'}; resumed on ${a.resumedOn.join(', ') || '-'}; recovery: ${a.recovery.join(' | ') || '-'}${a.atTimeLimit ? `; at its Wait at Most: ${a.atTimeLimit}` : ''}`,
		);
	}
	for (const f of checks.results.filter((x) => !x.ok)) out(`failed: ${f.name}`);
	out(`total ${secs(Date.now() - t0)}`);
	suite.finish([checks]);
}

/** Executions counted in the database, and which worker started them (from the workers' logs). */
async function figures(cluster, summary) {
	try {
		const rows = await cluster.postgres.query(
			'SELECT status, count(*) AS n FROM execution_entity GROUP BY status',
		);
		const byStatus = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
		const byWorker = {};
		for (const w of Object.values(executionsByWorker(cluster)))
			byWorker[w] = (byWorker[w] || 0) + 1;
		summary.executions = {
			total: Object.values(byStatus).reduce((a, b) => a + b, 0),
			byStatus,
			byWorker,
		};
		summary.balancerForwarded = cluster.balancer.forwarded;
	} catch (err) {
		out(`  (figures not read: ${err.message})`);
	}
}

suite.run(main);
