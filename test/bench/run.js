#!/usr/bin/env node
'use strict';
/**
 * CRM-scale benchmark: this package's nodes against n8n's HTTP Request node (and the trigger
 * against n8n's Webhook node), in a real n8n 2.41.1 against the CIS simulator (both on 127.0.0.1;
 * scenario 6 makes the simulator behave like a remote service). A script that prints tables, not a
 * timed test.
 *
 *   npm run bench                         # scenarios 1–7 (about 25 min on 2 quiet cores)
 *   node test/bench/run.js --smoke        # 50 rows, a few contenders, checks the counts; exit 0/1
 *   node test/bench/run.js --scenarios 1,3 --rows 2000 --repeat 3
 *
 * Options:
 *   --scenarios 1,2,3,4,5,6,7  which scenarios (default all)
 *   --candidates          add the settings a default could be (Adapt Concurrency up to 50/100/200,
 *                         concurrency 20/50) to scenarios 1, 2, 3 and 6, set explicitly (ids *cand-*)
 *   --rows N              rows of scenarios 1–3 (default 2000)
 *   --big N               rows of scenario 4 (default 100000)
 *   --repeat N            measured rounds of scenarios 1, 5 and 6 (after a warm-up round); the median is reported (default 3)
 *   --events N            events per round of scenario 5 (default 500)
 *   --leads N             leads per round of scenario 7 (default 1000)
 *   --wait-rounds N       rounds of scenario 7, order alternated (default 1)
 *   --defaults-only       scenario 5 with n8n's defaults only (not again with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true)
 *   --trigger-variants ID,ID  other settings of the trigger to measure in scenario 5 beside the default
 *                         (cis-trigger-v1, cis-trigger-legacy, cis-trigger-v1-legacy, cis-trigger-norepeat)
 *   --max-other-cores X   a run during which other processes kept more than X cores busy is run
 *                         again (at most twice; the least disturbed run is kept and marked) (default 0.5)
 *   --latency MS          simulator latency per request (default 10)
 *   --no-build            pack the repository's current dist/ instead of building a fresh copy
 *   --tarball FILE        install this packed package instead of building one
 *   --out FILE            also write the report (markdown) to FILE
 *   --json FILE           also write every measurement as JSON to FILE
 *   --only ID,ID          run only these contenders (ids as printed)
 *   --keep                keep n8n's user folder (printed)
 *   --n8n-env KEY=VALUE   extra environment of n8n (repeatable), e.g. N8N_EXPRESSION_ENGINE=legacy
 *   --cpu-prof DIR        CPU-profile n8n's main process (Node's --cpu-prof, through NODE_OPTIONS): n8n is
 *                         restarted after each scenario, so each writes its own DIR/scenario-N.cpuprofile (n8n's
 *                         start-up and the scenario's set-up included); the report ends with each profile's
 *                         table (test/bench/profile.js). One profile holds every contender of its scenario.
 *                         Implies --defaults-only; not for scenario 4 (it restarts n8n per contender).
 *   --verbose             progress on stderr (default on; --quiet turns it off)
 *
 * Each scenario run: the simulator is reset and configured (latency, limit, faults), the
 * workflow (Manual Trigger → Code node making N rows → contender) is run once through the
 * editor's manual-run endpoint, and the execution is read back with its data: the contender's
 * own executionTime, its output items; the simulator's counts; n8n's peak memory (sampled from /proc).
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const suite = require('../lib/suite');
const { startSimulator, summarizeRequests } = require('./lib/simulator');
const {
	buildTarball,
	removeBuiltTarball,
	startBenchN8n,
	runMeasured,
	N8N_VERSION,
} = require('./lib/n8n');
const { contenderWorkflow } = require('./lib/workflows');
const { floorSingle, floorBatch } = require('./lib/floor');
const { account } = require('./lib/accounting');
const { cpuWatch } = require('./lib/memory');
const { sec, mb } = require('./lib/table');
const { contendersFor, FAULTS, LIMIT, REMOTE } = require('./lib/scenarios');
const { render, evaluateTargets, smokeChecks } = require('./lib/report');
const { setUpTriggerContenders, runTriggerRound, sendUnparsedBody } = require('./lib/trigger');
const { setUpWaitContenders, runWaitRound } = require('./lib/wait');
const { profilingEnv, takeProfile, deliveriesOf } = require('./lib/profiling');
const { analyzeProfile, renderProfile } = require('./lib/profile');

function parseArgs(argv) {
	const number = (key) => (o, value) => (o[key] = Number(value()));
	const list = (key) => (o, value) => (o[key] = value().split(',').filter(Boolean));
	const a = suite.parseArgs(
		argv,
		{
			scenarios: [1, 2, 3, 4, 5, 6, 7],
			rows: 2000,
			big: 100000,
			repeat: 3,
			latency: 10,
			events: 500,
			leads: 1000,
			waitRounds: 1,
			triggerVariants: [],
			maxOtherCores: 0.5,
			smoke: false,
			candidates: false,
			verbose: true,
		},
		{
			'--smoke': (o) => (o.smoke = true),
			'--defaults-only': (o) => (o.defaultsOnly = true),
			'--candidates': (o) => (o.candidates = true),
			'--scenarios': (o, value) => (o.scenarios = value().split(',').map(Number)),
			'--rows': number('rows'),
			'--big': number('big'),
			'--repeat': (o, value) => (o.repeat = Math.max(1, Number(value()))),
			'--latency': number('latency'),
			'--events': number('events'),
			'--leads': number('leads'),
			'--wait-rounds': (o, value) => (o.waitRounds = Math.max(1, Number(value()))),
			'--trigger-variants': list('triggerVariants'),
			'--max-other-cores': number('maxOtherCores'),
			'--tarball': (o, value) => (o.tarball = path.resolve(value())),
			'--out': (o, value) => (o.out = path.resolve(value())),
			'--json': (o, value) => (o.json = path.resolve(value())),
			'--only': (o, value) => (o.only = value().split(',')),
			'--n8n-env': (o, value) => {
				const [k, ...v] = value().split('=');
				o.n8nEnv = { ...(o.n8nEnv || {}), [k]: v.join('=') };
			},
			'--cpu-prof': (o, value) => (o.cpuProf = path.resolve(value())),
			'--quiet': (o) => (o.verbose = false),
			'--verbose': (o) => (o.verbose = true),
			'--help': () => {
				process.stdout.write(fs.readFileSync(__filename, 'utf8').split('*/')[0]);
				process.exit(0);
			},
		},
	);
	if (a.cpuProf) a.defaultsOnly = true;
	if (a.smoke) {
		a.scenarios = [1, 5, 6, 7];
		a.rows = 50;
		a.events = 20;
		a.leads = 20;
		a.waitRounds = 1;
		a.repeat = 1;
	}
	return a;
}

const args = parseArgs(process.argv.slice(2));
const say = (m) => {
	if (args.verbose)
		process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}\n`);
};

function loadavg() {
	try {
		return fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
	} catch (_) {
		return os
			.loadavg()
			.map((x) => x.toFixed(2))
			.join(' ');
	}
}

function machine() {
	const cpus = os.cpus();
	let n8nNode = '';
	try {
		const { planFor } = require('../../scripts/lib/n8n-install');
		n8nNode = `Node ${planFor(N8N_VERSION).nodeVersion}`;
	} catch (_) {
		/* unknown */
	}
	return {
		cpu: `${cpus.length} × ${cpus[0] ? cpus[0].model.trim() : '?'}`,
		cores: cpus.length,
		memGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
		kernel: `${os.type()} ${os.release()}`,
		benchNode: process.version,
		n8n: `n8n ${N8N_VERSION} on ${n8nNode}`,
		date: new Date().toISOString(),
		commit: (() => {
			try {
				return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
					cwd: path.resolve(__dirname, '..', '..'),
					encoding: 'utf8',
				}).trim();
			} catch (_) {
				return '?';
			}
		})(),
	};
}

function median(values) {
	const v = values.filter((x) => typeof x === 'number').sort((a, b) => a - b);
	if (!v.length) return null;
	return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

/* ------------------------------------------------------------------ measuring */

class Bench {
	constructor(sim, env) {
		this.sim = sim;
		this.env = env;
	}

	async workflowFor(spec, rows) {
		// A new workflow per run: the node's Repeat Protection (per workflow and node) would leave
		// out the rows an earlier run of the same workflow sent, as it does for users.
		const wf = await this.env.client.createWorkflow(
			contenderWorkflow(spec, {
				count: rows,
				simUrl: this.sim.url,
				credential: this.env.credential,
			}),
		);
		return wf.id;
	}

	async configureSim(service) {
		const c = this.sim.control;
		await c.reset();
		await c.latency(service.latencyMs);
		await c.connectionDelay(service.connectionDelayMs || 0);
		if (service.limit) await c.rateLimit(service.limit);
		if (service.faults) await c.faultRate(service.faults);
	}

	/**
	 * One run of an n8n contender.
	 * @param {any} spec
	 * @param {number} rows
	 * @param {any} service
	 * @param {{ timeoutMs?: number }} [options]
	 */
	async runN8n(spec, rows, service, { timeoutMs } = {}) {
		const workflowId = await this.workflowFor(spec, rows);
		await this.configureSim(service);
		const load = loadavg();
		const cpu = cpuWatch({
			pids: [this.sim.pid, process.pid],
			groups: [this.env.n8n.process && this.env.n8n.process.pid],
		});
		const m = await runMeasured(this.env, workflowId, { timeoutMs });
		const cpuUse = cpu.stop();
		const counts = await this.sim.control.counts();
		const requests =
			rows <= 20000
				? summarizeRequests(await this.sim.control.requests(), { latencyMs: service.latencyMs })
				: null;
		const nodeFailed = Boolean(m.nodeError) && m.items.length === 0;
		const acc = account({
			rows,
			createdByPhone: counts.createdByPhone,
			items: m.items,
			nodeFailed,
		});
		const result = {
			id: spec.id,
			label: spec.label,
			settings: spec.settingsText,
			floorId: spec.floorId,
			requestsPerRow: spec.requestsPerRow,
			rows,
			status: m.status,
			nodeMs: m.nodeMs,
			rowsMs: m.rowsMs,
			rowsCount: m.rowsCount,
			workflowMs: m.workflowMs,
			wallMs: m.wallMs,
			nodeRuns: m.nodeRuns,
			nodeError: m.nodeError,
			...acc,
			duplicatedTotal: counts.duplicates,
			requests: requests ? requests.total : counts.requests,
			connections: counts.connections,
			rateLimited: requests ? requests.rateLimited : null,
			maxPerSecond: requests ? requests.maxPerSecond : null,
			byFault: requests ? requests.byFault : null,
			mainPeakRss: m.memory && m.memory.mainPeakRss,
			totalPeakRss: m.memory && m.memory.totalPeakRss,
			mainHwm: m.memory && m.memory.mainHwm,
			rssBefore: m.memory && m.memory.rssBefore,
			runMs: m.runMs,
			loadBefore: load,
			loadAfter: loadavg(),
			otherCores: cpuUse ? cpuUse.otherCores : null,
			ownCores: cpuUse ? cpuUse.ownCores : null,
			executionId: m.executionId,
		};
		say(
			`  ${spec.id}: node ${sec(result.nodeMs)} s, workflow ${sec(result.workflowMs)} s, created ${acc.created}/${rows}, dup ${acc.duplicated}, errors ${acc.errorItems}, lost ${acc.lost}, requests ${result.requests}${result.rateLimited ? ` (429: ${result.rateLimited})` : ''}, peak RSS ${mb(result.mainPeakRss)} MB, others' CPU ${result.otherCores} cores, load ${load}${m.nodeError ? `, node error: ${String(m.nodeError).slice(0, 160)}` : ''}`,
		);
		return result;
	}

	/** The undici floor of a contender spec (kind 'floor'). */
	async runFloor(spec, rows, service) {
		await this.configureSim(service);
		const load = loadavg();
		const cpu = cpuWatch({
			pids: [this.sim.pid, process.pid],
			groups: [this.env && this.env.n8n.process && this.env.n8n.process.pid],
		});
		const f =
			spec.floor === 'batch'
				? await floorBatch({
						url: this.sim.url,
						token: this.sim.token,
						count: rows,
						batchSize: spec.batchSize,
						concurrency: spec.concurrency,
					})
				: await floorSingle({
						url: this.sim.url,
						token: this.sim.token,
						count: rows,
						concurrency: spec.concurrency,
					});
		const cpuUse = cpu.stop();
		const counts = await this.sim.control.counts();
		const acc = account({
			rows,
			createdByPhone: counts.createdByPhone,
			items: [],
			nodeFailed: false,
		});
		const result = {
			id: spec.id,
			label: spec.label,
			settings: spec.settingsText,
			floorId: spec.floorId,
			requestsPerRow: spec.requestsPerRow,
			rows,
			status: 'floor',
			nodeMs: f.ms,
			workflowMs: null,
			statuses: f.statuses,
			...acc,
			lost: null,
			duplicatedTotal: counts.duplicates,
			requests: f.requests,
			connections: counts.connections,
			loadBefore: load,
			loadAfter: loadavg(),
			otherCores: cpuUse ? cpuUse.otherCores : null,
		};
		say(
			`  ${spec.id}: ${sec(f.ms)} s, statuses ${JSON.stringify(f.statuses)}, created ${acc.created}/${rows}, load ${load}`,
		);
		return result;
	}

	async runOnce(spec, rows, service, opts) {
		return spec.kind === 'floor'
			? this.runFloor(spec, rows, service)
			: this.runN8n(spec, rows, service, opts);
	}

	/**
	 * One measured run; repeated (at most twice) when other processes on the machine kept more
	 * than --max-other-cores cores busy during it. The least disturbed run is kept.
	 */
	async run(spec, rows, service, opts = {}) {
		/** @type {any} */
		let best;
		for (let attempt = 0; attempt < (opts.noRepeat ? 1 : 3); attempt++) {
			const r = await this.runOnce(spec, rows, service, opts);
			if (!best || (r.otherCores || 0) < (best.otherCores || 0)) best = r;
			if ((r.otherCores || 0) <= args.maxOtherCores) break;
			say(`  other processes kept ${r.otherCores} cores busy during ${spec.id}: running it again`);
		}
		best.disturbed = (best.otherCores || 0) > args.maxOtherCores;
		return best;
	}
}

/* ------------------------------------------------------------------ scenarios */

function selected(list) {
	return args.only ? list.filter((c) => args.only.includes(c.id)) : list;
}

/**
 * Every contender of `list` in rounds: a full-size warm-up round of the n8n contenders (not
 * reported; n8n's request and expression code gets optimized over the first thousands of
 * requests, a cold first run was up to 50% slower), then --repeat rounds over all contenders,
 * so drift of the machine or of n8n hits every contender alike. The median run is reported.
 */
async function inRounds(bench, list, rows, service) {
	if (!args.smoke) {
		say('warm-up round (not reported)');
		for (const spec of list.filter((c) => c.kind !== 'floor'))
			await bench.runOnce(spec, rows, service);
	}
	const runsById = new Map(list.map((spec) => [spec.id, []]));
	for (let round = 0; round < args.repeat; round++) {
		if (args.repeat > 1) say(`round ${round + 1} of ${args.repeat}`);
		for (const spec of list)
			runsById.get(spec.id).push(await bench.run(spec, rows, service, { noRepeat: args.smoke }));
	}
	const results = [];
	for (const spec of list) {
		const runs = runsById.get(spec.id);
		const mid = median(runs.map((x) => x.nodeMs));
		const chosen = runs.find((x) => x.nodeMs === mid) || runs[0];
		results.push({
			...chosen,
			nodeMs: mid,
			runsMs: runs.map((x) => Math.round(x.nodeMs)),
			disturbed: runs.some((x) => x.disturbed),
			runs,
		});
	}
	return results;
}

async function scenario1(bench, report) {
	const rows = args.rows;
	const service = { latencyMs: args.latency };
	const list = selected(contendersFor(1, { smoke: args.smoke, candidates: args.candidates }));
	say(
		`scenario 1: ${rows} rows, latency ${args.latency} ms, no limit; ${list.length} contenders × ${args.repeat}`,
	);
	const results = await inRounds(bench, list, rows, service);
	report.scenarios[1] = { rows, service, results };
	return results;
}

/** A remote service: 40 ms per request plus 80 ms for each new connection (REMOTE). */
async function scenario6(bench, report) {
	const rows = args.smoke ? args.rows : REMOTE.rows;
	const service = { latencyMs: REMOTE.latencyMs, connectionDelayMs: REMOTE.connectionDelayMs };
	const list = selected(contendersFor(6, { smoke: args.smoke, candidates: args.candidates }));
	say(
		`scenario 6: ${rows} rows, ${service.latencyMs} ms per request + ${service.connectionDelayMs} ms per new connection; ${list.length} contenders × ${args.repeat}`,
	);
	const results = await inRounds(bench, list, rows, service);
	report.scenarios[6] = { rows, service, results };
	return results;
}

/** Scenario `n` once per contender (no rounds): `service` shapes the simulator, `text` names it. */
async function onceEach(n, bench, report, service, text) {
	const rows = args.rows;
	const list = selected(contendersFor(n, { candidates: args.candidates }));
	say(`scenario ${n}: ${rows} rows, ${text}`);
	const results = [];
	for (const spec of list)
		results.push(await bench.run(spec, rows, service, { timeoutMs: 20 * 60 * 1000 }));
	report.scenarios[n] = { rows, service, results };
	return results;
}

/** A service with a rate limit (LIMIT). */
const scenario2 = (bench, report) =>
	onceEach(
		2,
		bench,
		report,
		{ latencyMs: args.latency, limit: LIMIT },
		`service limit ${LIMIT.perSecond}/s and ${LIMIT.inFlight} in flight`,
	);

/** A service with random faults (FAULTS). */
const scenario3 = (bench, report) =>
	onceEach(
		3,
		bench,
		report,
		{ latencyMs: args.latency, faults: FAULTS },
		`${FAULTS.rate * 100}% faults (${FAULTS.kinds.join(', ')})`,
	);

async function scenario4(bench, report, restart) {
	const rows = args.big;
	const service = { latencyMs: args.latency };
	const list = selected(contendersFor(4));
	say(`scenario 4: ${rows} rows through Create Batch From Template vs only producing them`);
	const results = [];
	for (const spec of list) {
		// a fresh n8n process for each, so its peak memory is this run's
		if (spec.kind !== 'floor') await restart();
		results.push(await bench.run(spec, rows, service, { timeoutMs: 60 * 60 * 1000 }));
	}
	report.scenarios[4] = { rows, service, results };
	return results;
}

/** n8n's own setting that lets a webhook call create no expression isolate when it evaluates no expression. */
const LAZY_ISOLATE = { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' };

/**
 * Events per second that become executions: the CIS trigger (Existing Task mode) against n8n's
 * Webhook node in the same n8n, same events, concurrency 10. A warm-up round, then rounds in
 * alternating order (A B, B A, ...), so drift of the machine hits both alike. Measured with n8n's
 * defaults and again (not in --smoke) with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true.
 */
async function scenario5(bench, report) {
	const concurrency = 10;
	const count = args.events;
	const env = bench.env;
	const contenders = selected(
		await setUpTriggerContenders(env, { variants: ['cis-trigger', ...args.triggerVariants] }),
	);
	let offset = 0;
	const round = async (contender, n) => {
		const load = loadavg();
		const cpu = cpuWatch({
			pids: [bench.sim.pid, process.pid],
			groups: [env.n8n.process && env.n8n.process.pid],
		});
		const r = await runTriggerRound(env, contender, { count: n, concurrency, offset });
		const cpuUse = cpu.stop();
		offset += n;
		say(
			`  ${contender.id}: ${r.perSecond === null ? '-' : r.perSecond.toFixed(1)} executions/s (${r.executions} of ${n} in ${sec(r.ms)} s; answers ${JSON.stringify(r.statuses)}), load ${load}`,
		);
		return { ...r, loadBefore: load, otherCores: cpuUse ? cpuUse.otherCores : null };
	};
	const measure = async () => {
		if (!args.smoke) {
			say('warm-up round (not reported)');
			for (const c of contenders) await round(c, Math.min(count, 200));
		}
		const runsById = new Map(contenders.map((c) => [c.id, []]));
		for (let i = 0; i < args.repeat; i++) {
			const order = i % 2 === 0 ? contenders : [...contenders].reverse();
			for (const c of order) runsById.get(c.id).push(await round(c, count));
		}
		const plain = runsById.get('webhook-node') || [];
		return contenders.map((c) => {
			const runs = runsById.get(c.id);
			return {
				...runs[0],
				perSecond: median(runs.map((r) => r.perSecond)),
				runsPerSecond: runs.map((r) => (r.perSecond === null ? null : +r.perSecond.toFixed(1))),
				executions: Math.min(...runs.map((r) => r.executions)),
				succeeded: Math.min(...runs.map((r) => r.succeeded)),
				events: count,
				otherCores: Math.max(...runs.map((r) => r.otherCores || 0)),
				loads: runs.map((r) => r.loadBefore.split(' ')[0]),
				// the same round of both, side by side: less exposed to drift than the medians
				roundRatios:
					c.id === 'webhook-node'
						? undefined
						: runs.map((m, i) =>
								m.perSecond && plain[i] && plain[i].perSecond
									? +(m.perSecond / plain[i].perSecond).toFixed(2)
									: null,
							),
				runs,
			};
		});
	};
	const configs = [];
	say(
		`scenario 5: ${count} events at concurrency ${concurrency}, ${contenders.map((c) => c.id).join(' vs ')}; n8n's defaults`,
	);
	configs.push({ setting: 'n8n defaults', results: await measure() });
	if (!args.smoke && !args.defaultsOnly) {
		say(`scenario 5 again with ${JSON.stringify(LAZY_ISOLATE)}`);
		await env.restartWith(LAZY_ISOLATE);
		try {
			configs.push({
				setting: Object.entries(LAZY_ISOLATE)
					.map(([k, v]) => `${k}=${v}`)
					.join(' '),
				results: await measure(),
			});
		} finally {
			await env.restartWith(
				Object.fromEntries(Object.keys(LAZY_ISOLATE).map((k) => [k, undefined])),
			);
		}
	}
	const cis = contenders.find((c) => c.id === 'cis-trigger');
	const unparsedBody = cis ? await sendUnparsedBody(env, cis, offset++) : undefined;
	if (unparsedBody)
		say(
			`  cis-trigger, one event as application/octet-stream: answer ${unparsedBody.status}, executions ${unparsedBody.executions}`,
		);
	report.scenarios[5] = {
		events: count,
		concurrency,
		configs,
		results: configs[0].results,
		unparsedBody,
	};
	return configs;
}

/**
 * Leads into their waits and their results back: Create and Run and Wait for Result with the
 * trigger against HTTP Request + Wait node with a router workflow (lib/wait.js), in one n8n with
 * n8n's defaults. Leads are posted all at once (concurrency = leads, at most 1,000), results at 20.
 * A warm-up round of 20 leads per route first (not reported); rounds alternate the order; each round uses new leads.
 */
async function scenario7(bench, report) {
	const count = args.leads;
	const leadConcurrency = Math.min(count, 1000);
	const resultConcurrency = 20;
	const contenders = selected(await setUpWaitContenders(bench.env, bench.sim));
	say(
		`scenario 7: ${count} leads into their waits (all at once), results at concurrency ${resultConcurrency}; ${contenders.map((c) => c.id).join(' vs ')}; n8n's defaults`,
	);
	const runsById = new Map(contenders.map((c) => [c.id, []]));
	let prefix = 1;
	if (!args.smoke) {
		// n8n's code for each route is compiled over its first executions: a cold first route was up to 30% slower
		say('warm-up round (not reported)');
		for (const c of contenders)
			await runWaitRound(bench.env, bench.sim, c, {
				count: 20,
				prefix: prefix++,
				leadConcurrency: 20,
				resultConcurrency,
			});
	}
	for (let i = 0; i < args.waitRounds; i++) {
		const order = i % 2 === 0 ? contenders : [...contenders].reverse();
		for (const c of order) {
			const load = loadavg();
			const cpu = cpuWatch({
				pids: [bench.sim.pid, process.pid],
				groups: [bench.env.n8n.process && bench.env.n8n.process.pid],
			});
			const r = await runWaitRound(bench.env, bench.sim, c, {
				count,
				prefix: prefix++,
				leadConcurrency,
				resultConcurrency,
			});
			const cpuUse = cpu.stop();
			const fixed = (x) => (x === null ? '-' : x.toFixed(1));
			say(
				`  ${c.id}: into waits ${sec(r.intoWaitMs)} s (${fixed(r.leadsPerSecond)} leads/s), resumed ${sec(r.resumeMs)} s (${fixed(r.resultsPerSecond)} results/s); succeeded ${r.succeeded}/${count}, lost ${r.lost}, doubled ${r.doubled}, mixed ${r.mixed}; leads ${JSON.stringify(r.leadStatuses)}, results ${JSON.stringify(r.resultStatuses)}, load ${load}`,
			);
			runsById
				.get(c.id)
				.push({ ...r, loadBefore: load, otherCores: cpuUse ? cpuUse.otherCores : null });
		}
	}
	const results = contenders.map((c) => {
		const runs = runsById.get(c.id);
		return {
			...runs[0],
			leadsPerSecond: median(runs.map((r) => r.leadsPerSecond)),
			resultsPerSecond: median(runs.map((r) => r.resultsPerSecond)),
			runsLeadsPerSecond: runs.map((r) =>
				r.leadsPerSecond === null ? null : +r.leadsPerSecond.toFixed(1),
			),
			runsResultsPerSecond: runs.map((r) =>
				r.resultsPerSecond === null ? null : +r.resultsPerSecond.toFixed(1),
			),
			succeeded: Math.min(...runs.map((r) => r.succeeded)),
			lost: Math.max(...runs.map((r) => r.lost)),
			doubled: Math.max(...runs.map((r) => r.doubled)),
			mixed: Math.max(...runs.map((r) => r.mixed)),
			loads: runs.map((r) => r.loadBefore.split(' ')[0]),
			otherCores: Math.max(...runs.map((r) => r.otherCores || 0)),
			runs,
		};
	});
	report.scenarios[7] = {
		leads: count,
		leadConcurrency,
		resultConcurrency,
		rounds: args.waitRounds,
		results,
	};
	return results;
}

/* ------------------------------------------------------------------ main */

async function main() {
	const t0 = Date.now();
	const report = { machine: machine(), loadStart: loadavg(), args, scenarios: {} };
	say(`machine: ${JSON.stringify(report.machine)}; load ${report.loadStart}`);
	const tarball = args.tarball || (await buildTarball({ build: args.build, say }));
	say(`package: ${tarball}`);
	const sim = await startSimulator({ latencyMs: args.latency });
	say(`simulator at ${sim.url} (pid ${sim.pid})`);
	let env;
	/** @type {{ scenario: number, file: string }[]} */
	const profiles = [];
	let profiledScenario = null;
	const collectProfile = () => {
		if (profiledScenario === null) return;
		const file = takeProfile(args.cpuProf, `scenario-${profiledScenario}`);
		if (file) profiles.push({ scenario: profiledScenario, file });
		say(
			file
				? `CPU profile of scenario ${profiledScenario}: ${file}`
				: `no CPU profile found for scenario ${profiledScenario} in ${args.cpuProf}`,
		);
		profiledScenario = null;
	};
	try {
		const n8nEnv = args.cpuProf
			? { ...args.n8nEnv, ...profilingEnv(args.cpuProf, args.n8nEnv) }
			: args.n8nEnv;
		env = await startBenchN8n({ tarball, sim, say, env: n8nEnv });
		const bench = new Bench(sim, env);
		const restart = async () => {
			say('restarting n8n (fresh process for a clean memory peak)');
			await env.n8n.restart();
		};
		const scenarios = {
			1: scenario1,
			2: scenario2,
			3: scenario3,
			6: scenario6,
			7: scenario7,
			5: scenario5,
			4: scenario4,
		};
		for (const n of [1, 2, 3, 6, 7, 5, 4].filter((k) => args.scenarios.includes(k))) {
			if (profiledScenario !== null) {
				// n8n writes its profile when it stops: one profile per scenario
				say('restarting n8n (the CPU profile of the scenario before is written on stop)');
				await env.n8n.restart();
				collectProfile();
			}
			await scenarios[n](bench, report, restart);
			if (args.cpuProf) profiledScenario = n;
		}
	} finally {
		if (env) await env.stop({ keep: args.keep });
		if (env && args.keep) say(`kept ${env.userFolder}`);
		if (args.cpuProf) collectProfile();
		await sim.stop();
		if (!args.tarball) removeBuiltTarball(tarball);
	}
	report.loadEnd = loadavg();
	report.targets = args.smoke ? [] : evaluateTargets(report);
	report.text = render(report);
	for (const p of profiles) {
		const perUnit = deliveriesOf(report, p.scenario, args);
		const title = `CPU profile of n8n's main process, scenario ${p.scenario} (${path.basename(p.file)}; every contender of the scenario in one profile)`;
		report.text += `\n${renderProfile(analyzeProfile(JSON.parse(fs.readFileSync(p.file, 'utf8'))), { title, perUnit })}`;
	}
	report.totalMs = Date.now() - t0;
	process.stdout.write(`${report.text}\n`);
	if (args.out) fs.writeFileSync(args.out, `${report.text}\n`);
	if (args.json) {
		const slim = JSON.parse(JSON.stringify(report, (k, v) => (k === 'runs' ? undefined : v)));
		fs.writeFileSync(args.json, JSON.stringify(slim, null, 2));
	}
	say(`done in ${sec(report.totalMs)} s`);
	if (args.smoke) {
		const problems = smokeChecks(report);
		if (problems.length) process.stderr.write(`SMOKE FAILED:\n  ${problems.join('\n  ')}\n`);
		else process.stderr.write('SMOKE OK\n');
		// the smoke run is one check (as CI counts it)
		suite.finish([{ passed: problems.length ? 0 : 1, failed: problems.length ? 1 : 0 }]);
	}
}

suite.run(main);
