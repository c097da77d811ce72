'use strict';
/**
 * The floor: the same 4.4 requests sent straight from an undici client at a given concurrency,
 * without n8n. Runs in this (the bench's) process.
 */
const { Pool } = require('undici');
const { SINGLE_PATH, BATCH_PATH, singleBody, row, BOT } = require('./workflows');

async function runPool(url, token, concurrency, bodies, pathName) {
	const origin = new URL(url).origin;
	const pool = new Pool(origin, {
		connections: concurrency,
		pipelining: 1,
		keepAliveTimeout: 30000,
	});
	const statuses = {};
	let next = 0;
	const started = process.hrtime.bigint();
	const worker = async () => {
		while (next < bodies.length) {
			const body = bodies[next++];
			let status;
			try {
				const res = await pool.request({
					method: 'POST',
					path: pathName,
					headers: {
						authorization: `Bearer ${token}`,
						accept: 'application/json',
						'content-type': 'application/json',
					},
					body: JSON.stringify(body),
				});
				status = res.statusCode;
				await res.body.json().catch(() => undefined);
			} catch (error) {
				status = error.code || 'error';
			}
			statuses[status] = (statuses[status] || 0) + 1;
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, bodies.length) }, worker));
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	await pool.close();
	return { ms, statuses, requests: bodies.length };
}

/** count rows → count requests of 4.4 at `concurrency`. Resolves { ms, statuses, requests }. */
function floorSingle({ url, token, count, concurrency }) {
	const bodies = Array.from({ length: count }, (_, i) => singleBody(i));
	return runPool(url, token, concurrency, bodies, SINGLE_PATH);
}

/** count rows → ceil(count / batchSize) requests of 4.5 at `concurrency`. */
function floorBatch({ url, token, count, batchSize, concurrency }) {
	const bodies = [];
	for (let start = 0; start < count; start += batchSize) {
		const batch = [];
		for (let i = start; i < Math.min(count, start + batchSize); i++) {
			const r = row(i);
			batch.push({
				phone: [r.phone],
				variables: { name: r.name },
				callbackData: { crmId: r.crmId },
				botSettingsId: BOT,
			});
		}
		bodies.push({ batch });
	}
	return runPool(url, token, concurrency, bodies, BATCH_PATH);
}

module.exports = { floorSingle, floorBatch };
