#!/usr/bin/env node
'use strict';
/**
 * Queue-mode scale benchmark (issue 54): N leads waiting at once in the queue suite's cluster
 * (./cluster.js: Postgres, Redis, main, 2 workers, 2 webhook processes, round-robin balancer), the
 * package's route against the route a user builds without it. A script that prints figures, not a
 * timed test: the smoke run checks counts only.
 *
 *   package: Webhook "New lead" → CIS Auto-Call (Create and Run and Wait for Result, node version 3)
 *            → HTTP Request "CRM" to the CRM stub; the service's events reach a published CIS
 *            Auto-Call Trigger (Existing Task, secret credential), which hands each result over.
 *   DIY:     Webhook "New lead" → HTTP Request (4.4, Callback Data { crmId, resumeUrl }) → Wait node
 *            → HTTP Request "CRM"; the events reach a router workflow (Webhook → HTTP Request POST to
 *            the resume URL), as in bench scenario 7 (test/bench/lib/wait.js).
 *
 * Each route: the simulator keeps its deliveries back; N leads are POSTed through the balancer
 * (--lead-concurrency, default 50) until all N executions wait (counted in Postgres); then the
 * simulator delivers every call's events through the balancer, 50 at a time, re-sends on (17 attempts, about 18 hours),
 * until all N executions finished. Lost, doubled and mixed results are counted from the CRM stub's
 * and the simulator's records. Sampled meanwhile (every --sample-ms, default 2000): each process's
 * RSS and CPU time, Postgres' size and largest tables, Redis' INFO memory, the Repeat Protection row.
 *
 *   npm run bench:queue                      # N = 10,000 per route (about an hour on 2 cores)
 *   node test/queue/scale.js --leads 200     # the smoke run: counts checked, exit 1 on lost/doubled/mixed
 *   options: --leads N, --route package|diy|both (default both; package first), --lead-concurrency N,
 *   --json FILE, --sample-ms N, --n8n-env KEY=VALUE (every n8n process; repeatable), --keep, --echo,
 *   --no-build
 *
 * Ends with exactly one line `N passed, N failed`.
 */
const fs = require('fs');
const os = require('os');
const crypto = require('crypto');
const path = require('path');
const { DEFAULT_VERSION } = require('../../scripts/lib/n8n-install');
const { setupOwner } = require('../../scripts/lib/n8n-instance');
const { createSimulator } = require('../../simulator');
const {
	SIM_TOKEN,
	SIM_USER,
	startCrmStub,
	webhookTarget,
} = require('../../scripts/lib/playground');
const suite = require('../lib/suite');
const {
	Checks,
	chain,
	cisNode,
	leadWebhook,
	waitBridgeTrigger,
	waitForResultParameters,
	NO_REDIAL,
	sleep,
} = require('../e2e/harness');
const { sendAll } = require('../bench/lib/trigger');
const { diyCallAndWaitNodes, diyRouterWorkflow } = require('../bench/lib/wait');
const { groupProcesses, readProcCpu } = require('../bench/lib/memory');
const { startCluster } = require('./cluster');
const { redisCommand } = require('./services');

const { out, secs } = suite;
const VERSION = DEFAULT_VERSION;
/**
 * The service at full time: each call rings 1 s and talks 3 s, and an event not answered 200 comes
 * again after 1, 2, 4 … s as the service re-sends it (a shorter time scale crowds the re-sends of
 * thousands of events into seconds, which no service does).
 */
const TIME_SCALE = 1;
/** 1 + 2 + … + 2^15 s ≈ 18 hours of re-sends (the service re-sends for 24 hours). */
const SERVICE_ATTEMPTS = 17;
const SECRET = 'queue-scale-secret-0123456789abcdef';
const BOT = 'bot-scale';
const DELIVERY_CONCURRENCY = 50;
const MB = 1024 * 1024;

function parseArgs(argv) {
	return suite.parseArgs(
		argv,
		{ leads: 10000, route: 'both', leadConcurrency: 50, sampleMs: 2000, json: '', n8nEnv: {} },
		{
			'--leads': (o, value) => (o.leads = Math.max(1, Number(value()) || 200)),
			'--route': (o, value) => {
				o.route = String(value());
				if (!['package', 'diy', 'both'].includes(o.route))
					throw new Error(`--route must be package, diy or both, got ${o.route}`);
			},
			'--lead-concurrency': (o, value) => (o.leadConcurrency = Math.max(1, Number(value()) || 50)),
			'--sample-ms': (o, value) => (o.sampleMs = Math.max(200, Number(value()) || 2000)),
			'--json': (o, value) => (o.json = path.resolve(value())),
			'--n8n-env': (o, value) => {
				const [k, ...v] = value().split('=');
				o.n8nEnv = { ...o.n8nEnv, [k]: v.join('=') };
			},
			'--help': () => {
				process.stdout.write(fs.readFileSync(__filename, 'utf8').split('*/')[0]);
				process.exit(0);
			},
		},
	);
}

/* ------------------------------------------------------------------ what a process costs */

function procStatus(pid) {
	try {
		const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
		const m = /^VmRSS:\s+(\d+) kB/m.exec(text);
		return m ? Number(m[1]) * 1024 : 0;
	} catch (_) {
		return 0;
	}
}

/** Proportional set size (shared pages split among the processes that map them), bytes. */
function procPss(pid) {
	try {
		const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
		return m ? Number(m[1]) * 1024 : procStatus(pid);
	} catch (_) {
		return procStatus(pid);
	}
}

const TICKS_PER_SECOND = 100;

/**
 * One sample of a process group: the n8n process itself (its largest member: not the watchdog or
 * the task runner) and the group; Postgres and Redis as proportional sizes summed over the group.
 */
function sampleGroup(name, pgid) {
	const members = groupProcesses(pgid);
	let largest = 0;
	let total = 0;
	let cpu = 0;
	for (const p of members) {
		const rss = name === 'postgres' ? procPss(p.pid) : procStatus(p.pid);
		largest = Math.max(largest, rss);
		total += rss;
		cpu += readProcCpu(p.pid);
	}
	return { rss: name === 'postgres' ? total : largest, group: total, cpu };
}

/** Samples every process of the cluster until stop(); `phase()` and `waiting()` label the samples. */
function startSampler(groups, { intervalMs, label }) {
	const samples = [];
	let timer = null;
	const tick = () => {
		const s = { at: Date.now(), label: label(), procs: {} };
		for (const [name, pgid] of Object.entries(groups)) s.procs[name] = sampleGroup(name, pgid);
		samples.push(s);
		return s;
	};
	tick();
	timer = setInterval(tick, intervalMs);
	return {
		samples,
		now: tick,
		stop() {
			clearInterval(timer);
			return tick();
		},
	};
}

/* ------------------------------------------------------------------ Postgres and Redis */

async function postgresFigures(cluster) {
	const [{ size }] = await cluster.postgres.query("SELECT pg_database_size('n8n')::bigint AS size");
	const tables = await cluster.postgres.query(
		`SELECT relname AS name, pg_total_relation_size(relid)::bigint AS size, n_live_tup::bigint AS rows
		 FROM pg_catalog.pg_statio_user_tables JOIN pg_stat_user_tables USING (relid, relname)
		 ORDER BY pg_total_relation_size(relid) DESC LIMIT 5`,
	);
	return {
		size: Number(size),
		tables: tables.map((t) => ({ name: t.name, size: Number(t.size), rows: Number(t.rows) })),
	};
}

async function redisFigures(cluster) {
	try {
		const info = await redisCommand(cluster.redis.port, 'INFO memory');
		const field = (k) => Number((new RegExp(`^${k}:(\\d+)`, 'm').exec(info) || [])[1] || 0);
		const keys = await redisCommand(cluster.redis.port, 'DBSIZE');
		return {
			used: field('used_memory'),
			peak: field('used_memory_peak'),
			rss: field('used_memory_rss'),
			keys: Number((/:(\d+)/.exec(keys) || [])[1] || 0),
		};
	} catch (e) {
		return { error: e.message };
	}
}

/** Repeat Protection's record (n8n's processed_data rows): size of each, and how long rewriting the largest takes. */
async function recordFigures(cluster, workflowId) {
	const rows = await cluster.postgres.query(
		`SELECT context, length(value::text) AS chars, pg_column_size(value) AS stored FROM processed_data WHERE "workflowId" = $1`,
		[workflowId],
	);
	if (!rows.length) return { rows: 0 };
	const biggest = rows.reduce((a, b) => (Number(b.chars) > Number(a.chars) ? b : a));
	// what n8n does per change of the record: read the row, write it whole (timed in Postgres, rolled back)
	const timings = [];
	for (let i = 0; i < 3; i++) {
		await cluster.postgres.query('BEGIN');
		try {
			const plan = await cluster.postgres.query(
				`EXPLAIN (ANALYZE, FORMAT JSON) UPDATE processed_data SET value = value WHERE "workflowId" = $1 AND context = $2`,
				[workflowId, biggest.context],
			);
			timings.push(plan[0]['QUERY PLAN'][0]['Execution Time']);
		} finally {
			await cluster.postgres.query('ROLLBACK');
		}
	}
	const t = Date.now();
	const [row] = await cluster.postgres.query(
		`SELECT value FROM processed_data WHERE "workflowId" = $1 AND context = $2`,
		[workflowId, biggest.context],
	);
	const readMs = Date.now() - t;
	const value = typeof row.value === 'string' ? JSON.parse(row.value) : row.value;
	const keys = Array.isArray(value && value.data) ? value.data.length : null;
	return {
		rows: rows.length,
		chars: Number(biggest.chars),
		stored: Number(biggest.stored),
		keys,
		rewriteMs: Math.min(...timings),
		readMs,
	};
}

/** n8n's query for executions about to resume (WaitTracker), planned and timed with N executions waiting. */
async function waitPollFigures(cluster) {
	try {
		const plan = await cluster.postgres.query(
			`EXPLAIN (ANALYZE, FORMAT JSON) SELECT id, "waitTill" FROM execution_entity
			 WHERE "waitTill" <= now() + interval '70 seconds' AND status = 'waiting' ORDER BY "waitTill" ASC`,
		);
		const top = plan[0]['QUERY PLAN'][0];
		const scans = JSON.stringify(top.Plan).match(/"Node Type":"[^"]+"/g) || [];
		return {
			ms: top['Execution Time'],
			plan: [...new Set(scans.map((s) => s.slice(13, -1)))].join(' / '),
		};
	} catch (e) {
		return { error: e.message };
	}
}

async function executionStatuses(cluster, workflowId, afterId) {
	const rows = await cluster.postgres.query(
		'SELECT status, count(*)::int AS n FROM execution_entity WHERE "workflowId" = $1 AND id > $2 GROUP BY status',
		[workflowId, afterId],
	);
	return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

async function lastExecutionId(cluster) {
	const [{ id }] = await cluster.postgres.query(
		'SELECT coalesce(max(id), 0)::int AS id FROM execution_entity',
	);
	return id;
}

/** Polls Postgres until `count` executions of the workflow have one of `statuses` (or none can get there). */
async function untilStatus(cluster, workflowId, afterId, count, statuses, { timeoutMs, onPoll }) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const byStatus = await executionStatuses(cluster, workflowId, afterId);
		const reached = statuses.reduce((n, s) => n + (byStatus[s] || 0), 0);
		if (onPoll) onPoll(reached, byStatus);
		if (reached >= count) return { at: Date.now(), byStatus };
		const failed = (byStatus.error || 0) + (byStatus.crashed || 0) + (byStatus.canceled || 0);
		if (failed > 0 && reached + failed >= count) return { at: null, byStatus };
		if (Date.now() > deadline) return { at: null, byStatus };
		await sleep(1000);
	}
}

/* ------------------------------------------------------------------ the two routes */

/** The CRM: an HTTP Request POSTing the lead's id (from its own Webhook) and the result the execution got. */
function crmNode(crmUrl, route, resultExpression) {
	return {
		id: crypto.randomUUID(),
		name: 'CRM',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [0, 0],
		parameters: {
			method: 'POST',
			url: `=${crmUrl}/leads/{{ $('New lead').first().json.body.crmId }}/call-results`,
			sendBody: true,
			specifyBody: 'json',
			jsonBody: `={{ JSON.stringify({ route: '${route}', execution: $execution.id, result: ${resultExpression}, outcome: $json.outcome, callStatus: $json.callStatus }) }}`,
			options: {},
		},
	};
}

function packageWorkflow(leadPath, credential, crmUrl) {
	const wait = cisNode(
		'Call and wait',
		waitForResultParameters({
			from: '$json.body',
			botSettingsId: BOT,
			waitAtMost: 60,
			waitUnit: 'minutes',
		}),
		credential,
		{ typeVersion: 3 },
	);
	return chain('scale: package', [
		leadWebhook(leadPath),
		wait,
		crmNode(crmUrl, 'package', '$json.result'),
	]);
}

function diyWorkflow(leadPath, simUrl, credential, crmUrl) {
	const ids = {
		request: crypto.randomUUID(),
		wait: crypto.randomUUID(),
		webhook: crypto.randomUUID(),
	};
	return chain('scale: DIY', [
		leadWebhook(leadPath),
		...diyCallAndWaitNodes(simUrl, credential, ids, BOT),
		crmNode(crmUrl, 'diy', '$json.body.result'),
	]);
}

/** Sets both routes up; each gets the webhook target its calls' events go to. */
async function setUpRoutes({ client, cluster, sim, crm, cred }) {
	const balancer = cluster.balancer.url;
	const secretCred = await client.createCredential({
		name: 'scale secret',
		type: 'cisAutoCallWebhookSecretApi',
		data: { secret: SECRET },
	});
	const publish = async (workflow) => {
		const wf = await client.createWorkflow(workflow);
		await client.activate(wf.id, { timeoutMs: 60000 });
		return String(wf.id);
	};
	const triggerId = crypto.randomUUID();
	const trigger = await publish(
		chain('scale: CIS Auto-Call Trigger', [
			waitBridgeTrigger('CIS Auto-Call Trigger', triggerId, secretCred),
		]),
	);
	const packageLeads = await publish(packageWorkflow('scale-lead-package', cred, crm.url));
	const diyLeads = await publish(diyWorkflow('scale-lead-diy', sim.url, cred, crm.url));
	const router = await publish(diyRouterWorkflow('scale-events-diy'));
	return {
		package: {
			id: 'package',
			label: 'Create and Run and Wait for Result + CIS Auto-Call Trigger',
			leadWorkflowId: packageLeads,
			resultWorkflowId: trigger,
			leadUrl: `${balancer}/webhook/scale-lead-package`,
			target: webhookTarget(`${balancer}/webhook/${triggerId}/webhook?secret=${SECRET}`, [
				'CALL_ENDED',
				'CANDIDATE_CHANGED',
			]),
		},
		diy: {
			id: 'diy',
			label: 'HTTP Request + Wait node, Webhook + HTTP Request router',
			leadWorkflowId: diyLeads,
			resultWorkflowId: router,
			leadUrl: `${balancer}/webhook/scale-lead-diy`,
			target: webhookTarget(`${balancer}/webhook/scale-events-diy`, ['CALL_ENDED']),
		},
	};
}

/** The lead of index i of a route: a phone of its own, its CRM id, and what its call will say. */
function leadOf(route, i) {
	const digit = route === 'package' ? 1 : 2;
	return {
		phone: String(79200000000 + digit * 1000000 + i),
		crmId: `${route}-${i}`,
	};
}

function loadText() {
	return os
		.loadavg()
		.map((x) => x.toFixed(2))
		.join(' ');
}

/**
 * One route: N leads into their waits, then their results. Resolves the figures and counts.
 */
async function runRoute(env, route, n, opts) {
	const { cluster, sim, crm } = env;
	const say = (m) =>
		process.stderr.write(`[scale ${new Date().toISOString().slice(11, 19)}] ${m}\n`);
	const leads = Array.from({ length: n }, (_, i) => leadOf(route.id, i));
	// an earlier route's events the service still re-sends would load this route's webhook processes
	sim.reset();
	for (const l of leads)
		sim.setOutcome(l.phone, {
			attempts: [{ status: 'ANSWERED', durationSec: 3 }],
			result: { crmId: l.crmId, agreed: l.phone.endsWith('0') },
		});
	sim.setDefaultTemplate({ webhookUrls: [route.target], redialStrategyOptions: NO_REDIAL });
	const figures = { route: route.id, label: route.label, leads: n, load: {} };
	figures.load.before = loadText();
	figures.postgresBefore = await postgresFigures(cluster);
	figures.redisBefore = await redisFigures(cluster);
	const afterId = await lastExecutionId(cluster);
	const crmMark = crm.requests.length;
	const deliveryMark = sim.webhookDeliveries.length;
	let phase = 'before';
	let waitingNow = 0;
	const sampler = startSampler(env.groups, {
		intervalMs: opts.sampleMs,
		label: () => ({ phase, waiting: waitingNow }),
	});
	const start = sampler.now();

	// Phase 1: the leads into their waits, the service's deliveries kept back.
	sim.holdDeliveries();
	phase = 'leads';
	say(`${route.id}: posting ${n} leads at c=${opts.leadConcurrency}`);
	let lastSaid = 0;
	const progress = (what) => (reached) => {
		if (Date.now() - lastSaid > 30000) {
			lastSaid = Date.now();
			say(`${route.id}: ${reached}/${n} ${what}`);
		}
	};
	const sent = await sendAll(
		route.leadUrl,
		leads.map((l) => ({ phone: l.phone, crmId: l.crmId })),
		opts.leadConcurrency,
	);
	figures.leadAnswers = sent.statuses;
	const waiting = await untilStatus(cluster, route.leadWorkflowId, afterId, n, ['waiting'], {
		timeoutMs: 60000 + n * 1000,
		onPoll: (reached) => {
			waitingNow = reached;
			progress('waiting')(reached);
		},
	});
	figures.waitingSeen = waiting.byStatus;
	figures.intoWaitMs = waiting.at === null ? null : waiting.at - sent.firstSentAt;
	const allWaiting = sampler.now();
	figures.postgresWaiting = await postgresFigures(cluster);
	figures.redisWaiting = await redisFigures(cluster);
	figures.waitPoll = await waitPollFigures(cluster);
	figures.record = await recordFigures(cluster, route.leadWorkflowId);
	figures.load.waiting = loadText();

	// Phase 2: the service delivers every call's events through the balancer, 50 at a time.
	phase = 'results';
	say(`${route.id}: ${waiting.byStatus.waiting || 0} waiting; releasing the deliveries`);
	const releasedAt = Date.now();
	sim.releaseDeliveries();
	const finished = await untilStatus(cluster, route.leadWorkflowId, afterId, n, ['success'], {
		timeoutMs: 120000 + n * 1000,
		onPoll: progress('finished'),
	});
	figures.finishedSeen = finished.byStatus;
	figures.resumeMs = finished.at === null ? null : finished.at - releasedAt;
	const allFinished = sampler.now();
	// the re-sends settle (a Person Done the trigger answered before its Call Ended, …)
	phase = 'after';
	await Promise.race([sim.idle(), sleep(60000)]);
	await sleep(3000);
	const end = sampler.stop();
	figures.load.after = loadText();
	figures.postgresAfter = await postgresFigures(cluster);
	figures.redisAfter = await redisFigures(cluster);
	figures.recordAfter = await recordFigures(cluster, route.leadWorkflowId);

	// Counted from the CRM stub's and the simulator's records, not from the executions.
	const posts = crm.requests.slice(crmMark).filter((r) => r.method === 'POST');
	const byLead = new Map();
	let mixed = 0;
	const mixedExamples = [];
	for (const r of posts) {
		const m = /^\/leads\/([^/]+)\/call-results$/.exec(r.path);
		const crmId = m && decodeURIComponent(m[1]);
		byLead.set(crmId, (byLead.get(crmId) || 0) + 1);
		const result = r.body && r.body.result;
		if (!result || result.crmId !== crmId) {
			mixed++;
			if (mixedExamples.length < 3) mixedExamples.push({ lead: crmId, posted: r.body });
		}
	}
	const created = sim.createdByPhone();
	figures.lost = leads.filter((l) => !byLead.has(l.crmId)).length;
	figures.doubled =
		leads.filter((l) => (byLead.get(l.crmId) || 0) > 1).length +
		leads.filter((l) => (created[l.phone] || 0) > 1).length;
	figures.mixed = mixed;
	figures.mixedExamples = mixedExamples;
	figures.crmPosts = posts.length;
	figures.candidates = leads.filter((l) => (created[l.phone] || 0) >= 1).length;
	const deliveries = sim.webhookDeliveries.slice(deliveryMark);
	const byStatus = {};
	const errors = {};
	for (const d of deliveries) {
		byStatus[d.status] = (byStatus[d.status] || 0) + 1;
		if (d.error) errors[d.error] = (errors[d.error] || 0) + 1;
	}
	const events = new Set(
		deliveries.map((d) => `${d.event} ${d.body && (d.body.id || d.body.candidateId)}`),
	).size;
	figures.deliveries = { events, attempts: deliveries.length, byStatus, errors };
	figures.resultWorkflowRuns = Object.values(
		await executionStatuses(cluster, route.resultWorkflowId, afterId),
	).reduce((a, b) => a + b, 0);
	figures.leadsPerSecond = figures.intoWaitMs ? (n * 1000) / figures.intoWaitMs : null;
	figures.resultsPerSecond = figures.resumeMs ? (n * 1000) / figures.resumeMs : null;
	figures.memory = memoryFigures(sampler.samples, { start, allWaiting, allFinished, end });
	figures.cpu = cpuFigures({ start, allWaiting, allFinished }, n);
	figures.timeline = timeline(sampler.samples);
	return figures;
}

/** Per process: RSS at the start, with all N waiting, with all finished, at the end, and the peak. */
function memoryFigures(samples, marks) {
	const result = {};
	for (const name of Object.keys(marks.start.procs)) {
		result[name] = {
			start: marks.start.procs[name].rss,
			waiting: marks.allWaiting.procs[name].rss,
			finished: marks.allFinished.procs[name].rss,
			end: marks.end.procs[name].rss,
			peak: Math.max(...samples.map((s) => (s.procs[name] ? s.procs[name].rss : 0))),
		};
	}
	return result;
}

/** CPU seconds per process in each phase, and per lead / per result (ms). */
function cpuFigures(marks, n) {
	const result = {};
	for (const name of Object.keys(marks.start.procs)) {
		const leads =
			(marks.allWaiting.procs[name].cpu - marks.start.procs[name].cpu) / TICKS_PER_SECOND;
		const results =
			(marks.allFinished.procs[name].cpu - marks.allWaiting.procs[name].cpu) / TICKS_PER_SECOND;
		result[name] = {
			leadsSeconds: +leads.toFixed(1),
			resultsSeconds: +results.toFixed(1),
			msPerLead: +((leads * 1000) / n).toFixed(2),
			msPerResult: +((results * 1000) / n).toFixed(2),
		};
	}
	return result;
}

/** RSS of each process at about every tenth of the run (MB), so that growth shows. */
function timeline(samples) {
	const step = Math.max(1, Math.floor(samples.length / 10));
	return samples
		.filter((_, i) => i % step === 0 || i === samples.length - 1)
		.map((s) => ({
			t: Math.round((s.at - samples[0].at) / 1000),
			phase: s.label.phase,
			waiting: s.label.waiting,
			rssMb: Object.fromEntries(
				Object.entries(s.procs).map(([k, v]) => [k, Math.round(v.rss / MB)]),
			),
		}));
}

/* ------------------------------------------------------------------ report */

const mb = (b) => `${(b / MB).toFixed(0)} MB`;
const rate = (x) => (x ? `${x.toFixed(1)}/s` : '-');

function report(all, machine) {
	out('\n== figures ==');
	out(
		`machine: ${machine.cores} cores (nproc ${machine.nproc}), ${machine.memGb} GB memory; n8n ${VERSION}, main + 2 workers (concurrency 5) + 2 webhook processes; simulator time scale ${TIME_SCALE}, deliveries at c=${DELIVERY_CONCURRENCY}`,
	);
	for (const f of all) {
		out(`\n-- ${f.route}: ${f.label}, N = ${f.leads}`);
		out(
			`load average (1/5/15 min) before ${f.load.before}; all waiting ${f.load.waiting}; after ${f.load.after}`,
		);
		out(
			`leads into waits: ${rate(f.leadsPerSecond)} (${f.intoWaitMs === null ? 'not all' : secs(f.intoWaitMs)}; lead answers ${JSON.stringify(f.leadAnswers)}; seen ${JSON.stringify(f.waitingSeen)})`,
		);
		out(
			`results resumed: ${rate(f.resultsPerSecond)} (${f.resumeMs === null ? 'not all' : secs(f.resumeMs)}; seen ${JSON.stringify(f.finishedSeen)}; deliveries ${JSON.stringify(f.deliveries)}; result workflow executions ${f.resultWorkflowRuns})`,
		);
		out(
			`lost ${f.lost}, doubled ${f.doubled}, mixed ${f.mixed} (CRM stub: ${f.crmPosts} posts; simulator: ${f.candidates} people with a candidate)`,
		);
		for (const m of f.mixedExamples)
			out(`  mixed: lead ${m.lead} got ${JSON.stringify(m.posted).slice(0, 300)}`);
		out('RSS per process (start → all waiting → all finished → end; peak):');
		for (const [name, m] of Object.entries(f.memory))
			out(
				`  ${name.padEnd(10)} ${mb(m.start)} → ${mb(m.waiting)} → ${mb(m.finished)} → ${mb(m.end)}; peak ${mb(m.peak)}`,
			);
		out('CPU per process (leads phase / results phase; ms per lead / per result):');
		for (const [name, c] of Object.entries(f.cpu))
			out(
				`  ${name.padEnd(10)} ${c.leadsSeconds} s / ${c.resultsSeconds} s; ${c.msPerLead} / ${c.msPerResult} ms`,
			);
		const pg = (p) =>
			`${mb(p.size)} (${p.tables.map((t) => `${t.name} ${mb(t.size)} ${t.rows} rows`).join(', ')})`;
		out(`Postgres before: ${pg(f.postgresBefore)}`);
		out(`Postgres all waiting: ${pg(f.postgresWaiting)}`);
		out(`Postgres after: ${pg(f.postgresAfter)}`);
		const rd = (r) =>
			r.error
				? r.error
				: `used ${mb(r.used)}, peak ${mb(r.peak)}, rss ${mb(r.rss)}, ${r.keys} keys`;
		out(
			`Redis before: ${rd(f.redisBefore)}; all waiting: ${rd(f.redisWaiting)}; after: ${rd(f.redisAfter)}`,
		);
		out(
			`n8n's waiting-executions poll with ${f.leads} waiting: ${f.waitPoll.error || `${f.waitPoll.ms.toFixed(2)} ms (${f.waitPoll.plan})`}`,
		);
		const rec = (r) =>
			r.rows
				? `${r.rows} row(s), largest ${r.chars} characters (${r.stored} bytes stored), ${r.keys} keys; rewrite ${r.rewriteMs.toFixed(2)} ms in Postgres, read ${r.readMs} ms`
				: 'no row';
		out(`Repeat Protection's record, all waiting: ${rec(f.record)}; after: ${rec(f.recordAfter)}`);
		out('RSS timeline (s, phase, waiting: MB per process):');
		for (const s of f.timeline)
			out(
				`  ${String(s.t).padStart(5)} ${s.phase.padEnd(7)} ${String(s.waiting).padStart(6)}: ${Object.entries(
					s.rssMb,
				)
					.map(([k, v]) => `${k} ${v}`)
					.join(', ')}`,
			);
	}
	const p = all.find((f) => f.route === 'package');
	const d = all.find((f) => f.route === 'diy');
	if (p && d && p.leadsPerSecond && d.leadsPerSecond && p.resultsPerSecond && d.resultsPerSecond)
		out(
			`\npackage vs DIY: leads into waits ${(p.leadsPerSecond / d.leadsPerSecond).toFixed(2)}×, results resumed ${(p.resultsPerSecond / d.resultsPerSecond).toFixed(2)}×`,
		);
}

/* ------------------------------------------------------------------ main */

let checks = null;
suite.onInterrupt(() => [checks], 500);

async function main() {
	const opts = parseArgs(process.argv.slice(2));
	const t0 = Date.now();
	out(
		`CIS Auto-Call queue-mode scale benchmark: n8n ${VERSION}, N = ${opts.leads} per route, route(s) ${opts.route}`,
	);
	const { install: n8nInstall } = await suite.ensureVersion(VERSION);
	const pack = await suite.packOrExit({ build: opts.build });
	checks = new Checks('queue scale');
	const workDir = suite.makeTemp('cis-queue-scale-', { keep: opts.keep });
	const sim = await createSimulator({
		port: 0,
		token: SIM_TOKEN,
		users: [SIM_USER],
		timeScale: TIME_SCALE,
		webhookConcurrency: DELIVERY_CONCURRENCY,
		webhookMaxAttempts: SERVICE_ATTEMPTS,
	});
	const crm = await startCrmStub();
	const all = [];
	/** @type {any} */
	let cluster = null;
	try {
		cluster = await startCluster({
			version: VERSION,
			tarball: pack.tarball,
			workDir,
			n8nInstall,
			echo: opts.echo,
			env: opts.n8nEnv,
		});
		const client = await setupOwner(cluster.main.url, undefined, { version: VERSION });
		const cred = await client.createCredential({
			name: 'scale token',
			type: 'cisAutoCallApi',
			data: { baseUrl: sim.url, accessToken: SIM_TOKEN },
		});
		cred.id = String(cred.id);
		const routes = await setUpRoutes({ client, cluster, sim, crm, cred });
		const groups = {
			main: cluster.main.process.pid,
			'worker-1': cluster.workers[0].process.pid,
			'worker-2': cluster.workers[1].process.pid,
			'webhook-1': cluster.webhooks[0].process.pid,
			'webhook-2': cluster.webhooks[1].process.pid,
			postgres: cluster.postgres.pgid,
			redis: cluster.redis.pgid,
		};
		const env = { cluster, sim, crm, groups };
		const order = opts.route === 'both' ? ['package', 'diy'] : [opts.route];
		for (const id of order) {
			await checks.check(
				`${id} route: ${opts.leads} leads into their waits, then their results through the balancer → ${opts.leads} CRM updates, none lost, doubled or mixed (counted by the CRM stub and the simulator)`,
				async () => {
					const f = await runRoute(env, routes[id], opts.leads, opts);
					all.push(f);
					if (f.lost || f.doubled || f.mixed || f.crmPosts !== opts.leads)
						throw new Error(
							`lost ${f.lost}, doubled ${f.doubled}, mixed ${f.mixed}, CRM posts ${f.crmPosts} of ${opts.leads}`,
						);
					return `${rate(f.leadsPerSecond)} into waits, ${rate(f.resultsPerSecond)} resumed`;
				},
			);
		}
	} catch (err) {
		checks.skip('queue scale set-up', err && err.stack ? err.stack : String(err));
	} finally {
		if (cluster) await cluster.stop();
		await sim.close();
		await crm.close();
		suite.removeTemp(pack.dir);
		if (opts.keep) out(`  (kept ${workDir})`);
		else suite.removeTemp(workDir);
	}
	const machine = {
		cores: os.cpus().length,
		nproc: os.availableParallelism ? os.availableParallelism() : os.cpus().length,
		memGb: Math.round(os.totalmem() / 1024 ** 3),
	};
	report(all, machine);
	if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ machine, routes: all }, null, 2));
	out(`total ${secs(Date.now() - t0)}`);
	suite.finish([checks]);
}

suite.run(main);
