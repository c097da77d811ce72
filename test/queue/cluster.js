'use strict';
/**
 * n8n 2.x in queue mode on 127.0.0.1, set up as n8n's docs describe it:
 *
 *   balancer (round robin) ──► webhook-1, webhook-2   (`n8n webhook`: production webhooks only)
 *   main (`n8n start`, N8N_DISABLE_PRODUCTION_MAIN_PROCESS=true: editor, API, publishing)
 *   worker-1, worker-2 (`n8n worker`: run every execution, manual runs included)
 *   Postgres (shared database) and Redis (Bull queue + pub/sub), see ./services.js
 *
 * All n8n processes share one encryption key, one database and one Redis. N8N_WEBHOOK_URL is the
 * balancer, so the URL a trigger registers at the service reaches the webhook processes. Each
 * process has its own user folder with the package installed from its npm pack tarball (installed
 * once with npm the way a user does, then copied, as a container image would carry it).
 */
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { startN8n, installPackageTarball, freePort } = require('../../scripts/lib/n8n-instance');
const { startPostgres, ensureRedis, startRedis, startBalancer } = require('./services');

const WORKERS = 2;
const WEBHOOK_PROCESSES = 2;

/** Environment shared by every n8n process of the cluster. */
function sharedEnv({ postgres, redis, balancer, encryptionKey }) {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: 'unused-trust-auth',
		N8N_ENCRYPTION_KEY: encryptionKey,
		// the public address of production webhooks: what a trigger registers at the service
		N8N_WEBHOOK_URL: `${balancer.url}/`,
		// n8n 2.x: manual runs are enqueued for the workers too (the default in n8n 3)
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
	};
}

const PORT_TRIES = 3;

/**
 * Starts an n8n process on a port chosen just before it starts, and on another one when that port
 * was taken meanwhile: a free port is one the system may also hand to any outgoing connection (the
 * other processes' own to Postgres and Redis among them) until n8n binds it.
 */
async function startOnFreePort(start, tries = PORT_TRIES) {
	for (let attempt = 1; ; attempt++) {
		try {
			return await start(await freePort());
		} catch (error) {
			const taken = /already in use|EADDRINUSE/i.test(String(error && error.message));
			if (!taken || attempt >= tries) throw error;
		}
	}
}

/**
 * Starts Postgres, Redis, the balancer, then main, then the workers and webhook processes.
 * Returns { postgres, redis, balancer, main, workers, webhooks, all(), restartAll(), stop(), timing }.
 * `workDir` must exist; everything is created inside it. `env`: more environment of every n8n process.
 */
async function startCluster({
	version,
	tarball,
	workDir,
	n8nInstall,
	echo = false,
	env: extraEnv = {},
}) {
	const timing = {};
	let t = Date.now();
	// redis-server found (or its message thrown) before any process is started
	await ensureRedis(workDir);
	const postgres = await startPostgres(workDir, n8nInstall);
	const redis = await startRedis(workDir);
	const balancer = await startBalancer();
	timing.servicesMs = Date.now() - t;

	t = Date.now();
	const folders = {
		main: path.join(workDir, 'main'),
		workers: Array.from({ length: WORKERS }, (_, i) => path.join(workDir, `worker-${i + 1}`)),
		webhooks: Array.from({ length: WEBHOOK_PROCESSES }, (_, i) =>
			path.join(workDir, `webhook-${i + 1}`),
		),
	};
	const installed = await installPackageTarball(folders.main, tarball, version);
	for (const folder of [...folders.workers, ...folders.webhooks]) {
		fs.cpSync(path.join(folders.main, '.n8n', 'nodes'), path.join(folder, '.n8n', 'nodes'), {
			recursive: true,
			verbatimSymlinks: true,
		});
	}
	timing.packageInstallMs = Date.now() - t;

	const env = sharedEnv({
		postgres,
		redis,
		balancer,
		encryptionKey: crypto.randomBytes(24).toString('hex'),
	});
	Object.assign(env, extraEnv);
	const cluster = {
		postgres,
		redis,
		balancer,
		installed,
		timing,
		main: null,
		workers: [],
		webhooks: [],
	};
	const startMain = () =>
		startN8n({
			version,
			userFolder: folders.main,
			label: 'main',
			echo,
			env: { ...env, N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true' },
		});
	const startWorker = (i) =>
		startOnFreePort((port) =>
			startN8n({
				version,
				userFolder: folders.workers[i],
				port,
				command: ['worker', '--concurrency=5'],
				label: `worker-${i + 1}`,
				echo,
				env: {
					...env,
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(port),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				},
			}),
		);
	const startWebhook = (i) =>
		startOnFreePort((port) =>
			startN8n({
				version,
				userFolder: folders.webhooks[i],
				port,
				command: 'webhook',
				label: `webhook-${i + 1}`,
				echo,
				env,
			}),
		);

	/** Every n8n process handle: main, workers, webhook processes. */
	cluster.all = () => [cluster.main, ...cluster.workers, ...cluster.webhooks].filter(Boolean);
	const started = [];
	const tracked = (promise) => promise.then((handle) => (started.push(handle), handle));
	try {
		t = Date.now();
		// main first: it runs the database migrations the others wait for
		cluster.main = await tracked(startMain());
		timing.mainStartMs = Date.now() - t;
		t = Date.now();
		[cluster.workers, cluster.webhooks] = await Promise.all([
			Promise.all(folders.workers.map((_, i) => tracked(startWorker(i)))),
			Promise.all(folders.webhooks.map((_, i) => tracked(startWebhook(i)))),
		]);
		timing.othersStartMs = Date.now() - t;
	} catch (error) {
		// let the processes that did start finish starting, then stop everything
		await new Promise((resolve) => setTimeout(resolve, 1000));
		await Promise.all(started.map((p) => p.stop().catch(() => {})));
		await balancer.close().catch(() => {});
		await redis.stop().catch(() => {});
		await postgres.stop().catch(() => {});
		throw error;
	}
	balancer.backends = cluster.webhooks.map((w) => w.url);

	/** Stops every n8n process, then starts them again (main first). Resolves the time it took. */
	cluster.restartAll = async () => {
		const t0 = Date.now();
		await Promise.all(cluster.all().map((p) => p.stop()));
		await cluster.main.restart();
		await Promise.all([...cluster.workers, ...cluster.webhooks].map((p) => p.restart()));
		return Date.now() - t0;
	};

	cluster.stop = async () => {
		await Promise.all(cluster.all().map((p) => p.stop().catch(() => {})));
		await balancer.close().catch(() => {});
		await redis.stop().catch(() => {});
		await postgres.stop().catch(() => {});
	};
	return cluster;
}

/**
 * Which worker ran each execution: { [executionId]: 'worker-1' | 'worker-2' }, read from the
 * workers' logs ("Worker started execution <id> (job <n>)", n8n's info-level line).
 */
function executionsByWorker(cluster) {
	const ranOn = {};
	cluster.workers.forEach((w, i) => {
		for (const line of w.logs) {
			const m = /Worker started execution (\d+)/.exec(line);
			if (m) ranOn[m[1]] = `worker-${i + 1}`;
		}
	});
	return ranOn;
}

/**
 * Every run of each execution on the workers, in the order the queue gave them out:
 * { [executionId]: [{ worker: 'worker-1', job: 12, finished: true }, ...] }, from n8n's info-level
 * lines "Worker started execution <id> (job <n>)" and "Worker finished execution <id> (job <n>)".
 * A waiting execution has one run before its wait and one after each resume.
 */
function workerRunsByExecution(cluster) {
	const runs = {};
	cluster.workers.forEach((w, i) => {
		for (const line of w.logs) {
			const m = /Worker (started|finished) execution (\d+) \(job (\d+)\)/.exec(line);
			if (!m) continue;
			const [, what, id, job] = m;
			const list = (runs[id] = runs[id] || []);
			let run = list.find((r) => r.job === Number(job));
			if (!run) list.push((run = { worker: `worker-${i + 1}`, job: Number(job), finished: false }));
			if (what === 'finished') run.finished = true;
		}
	});
	for (const list of Object.values(runs)) list.sort((a, b) => a.job - b.job);
	return runs;
}

module.exports = {
	startCluster,
	startOnFreePort,
	executionsByWorker,
	workerRunsByExecution,
	WORKERS,
	WEBHOOK_PROCESSES,
};
