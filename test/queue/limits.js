'use strict';
/**
 * Queue mode: Max Calls per Day against leads that arrive at once. "New lead (Webhook) → Create and
 * Run (Max Calls per Day = cap)" is published; N leads are posted at the same moment through the
 * balancer, so that both webhook processes start executions and both workers run them, each worker
 * changing the node's record in n8n's database (Postgres) at the same time as the other. The calls the
 * simulator received beyond the cap are the overshoot: measured per round and printed; it must never
 * exceed the number of workers (docs/limits.md). Run alone: `node test/queue/run.js --only limits`
 * (--limit-rounds N, default 3).
 */
const assert = require('assert');
const crypto = require('crypto');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const { chain, cisNode, leadWebhook, apiRequestsSince, waitFor } = require('../e2e/harness');
const { executionsByWorker } = require('./cluster');

const SINGLE = '/cis/api/v1/telephony/autoCallCandidate/single';
const CAP = 5;
const LEADS = 20;

module.exports = async function limitChecks(ctx) {
	const { cluster, client, sim, cred, checks, summary } = ctx;
	const rounds = ctx.limitRounds || 3;
	const overshoots = [];
	const spread = [];
	for (let round = 1; round <= rounds; round++) {
		await checks.check(
			`Max Calls per Day ${CAP}, ${LEADS} leads posted at once through the balancer (round ${round} of ${rounds}): at most ${CAP} + ${cluster.workers.length} (the workers) are called`,
			async () => {
				const leadPath = `queue-limits-${crypto.randomUUID()}`;
				const call = cisNode(
					'Call',
					{
						resource: 'candidate',
						operation: 'createAndRun',
						botSettingsId: 'bot-limits',
						phone: '={{ $json.body.phone }}',
						options: { maxCallsPerDay: CAP },
					},
					cred,
					{ typeVersion: 2 },
				);
				const wf = await client.createWorkflow(
					chain(`queue limits round ${round}`, [leadWebhook(leadPath), call]),
				);
				await client.activate(wf.id, { timeoutMs: 60000 });
				const mark = sim.requests.length;
				const phones = Array.from(
					{ length: LEADS },
					(_, i) => `7999${String(round).padStart(2, '0')}${String(i).padStart(5, '0')}`,
				);
				const answers = await Promise.all(
					phones.map((phone) =>
						httpRequest('POST', `${cluster.balancer.url}/webhook/${leadPath}`, { body: { phone } }),
					),
				);
				assert.ok(
					answers.every((a) => a.status === 200),
					`lead webhook answers ${answers.map((a) => a.status).join(', ')}`,
				);
				let finished = [];
				await waitFor(
					`${LEADS} executions of round ${round} finished`,
					async () => {
						finished = (await client.listExecutions(wf.id)).filter(
							(e) => !['new', 'running', 'waiting'].includes(e.status),
						);
						return finished.length >= LEADS;
					},
					120000,
					500,
				);
				const called = apiRequestsSince(sim, mark).filter(
					(r) => r.method === 'POST' && r.path === SINGLE,
				).length;
				const ranOn = executionsByWorker(cluster);
				const perWorker = cluster.workers.map(
					(_, i) => finished.filter((e) => ranOn[String(e.id)] === `worker-${i + 1}`).length,
				);
				await client.deactivate(wf.id).catch(() => undefined);
				overshoots.push(called - CAP);
				spread.push(perWorker.join('+'));
				assert.ok(
					called >= Math.min(CAP, LEADS) - 0,
					`only ${called} called: the cap of ${CAP} was not reached`,
				);
				assert.ok(
					called - CAP <= cluster.workers.length,
					`${called} called against a cap of ${CAP}: overshoot ${called - CAP} > ${cluster.workers.length} workers`,
				);
				return `${called} called of ${LEADS} (overshoot ${called - CAP}); executions per worker ${perWorker.join(' + ')}`;
			},
		);
	}
	if (overshoots.length) {
		checks.note(
			`figure: Max Calls per Day ${CAP}, ${LEADS} leads at once, 2 workers: overshoot per round ${overshoots.join(', ')} (worst ${Math.max(...overshoots)}); executions per worker ${spread.join(', ')}`,
		);
		summary.limits = { cap: CAP, leads: LEADS, overshoots };
	}
};
