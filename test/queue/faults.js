'use strict';
/**
 * The queue suite's fault case: a webhook process killed (`kill -9`) while the results of
 * 20 waiting leads are being delivered, and started again at once while the round-robin balancer
 * of N8N_WEBHOOK_URL still sends it requests: refused while it is dead, then n8n's own answers while
 * it starts (`200 "n8n is starting up. Please wait"`, then 404 until its routes exist).
 *
 * Who talks to whom:
 *   simulator (the service) ──► front ──► webhook-1, webhook-2     (the service's deliveries)
 *   trigger (in a webhook process) ──► cluster balancer ──► webhook-1, webhook-2   (hand-overs to
 *   `/webhook-waiting/…` at N8N_WEBHOOK_URL, round robin, whatever state a process is in)
 * The front checks readiness the way docs/queue-mode.md asks of a balancer: it sends nothing to the
 * killed process until n8n says it is ready again. A delivery answered by n8n's own "starting up"
 * 200 never reaches the trigger, so no node can keep it; what the package must get right is the
 * hand-over, which the balancer of N8N_WEBHOOK_URL still sends to the starting process.
 *
 * The service is a simulator of its own here (time scale 0.05, re-sends on anything but 200 after
 * 1, 2, 4 … s × 0.05, 17 attempts, about 18 hours at full scale), so that the re-send schedule of
 * the real service (24 hours) is not cut short by the shared simulator's 8 attempts.
 *
 * Each round: 20 leads (10 answered, 10 not reached with NOANSWER / BUSY / REJECTED), their calls
 * ending one after another while all 20 executions wait; webhook-1 is killed just before the
 * service delivers the Person Done of a not-reached lead whose Call Ended went to webhook-1 (so
 * that only the dead process saw that lead's last call), and started again at once. Checked: 20 CRM
 * updates, one per lead, each with its outcome and its last call's status (a lead whose unanswered
 * Call Ended only the killed process had taken may lose that status, never its outcome); every event
 * delivered within the first 14 attempts of the re-send schedule (410 s at this time scale; the
 * trigger's 2-minute grace for a last call that has not arrived ends by the 13th); one candidate per phone.
 *
 * Two delivery models, the service documents neither (run.js --delivery): `independent`, each event
 * re-sent on its own schedule; `ordered`, a lead's Person Done sent only after its Call Ended was taken
 * (the simulator's webhookOrder 'perCandidate'). Under `ordered` the killed process always had taken the
 * victim's Call Ended, so that lead's result comes after the grace, without its last call's status.
 */
const assert = require('assert');
const crypto = require('crypto');
const http = require('http');
const { createSimulator } = require('../../simulator');
const {
	SIM_TOKEN,
	SIM_USER,
	startCrmStub,
	webhookTarget,
} = require('../../scripts/lib/playground');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const { forward, listenOnLoopback } = require('./services');
const {
	callAndWaitWorkflow,
	chain,
	noOp,
	waitBridgeTrigger,
	executionsWithWaiting,
	NO_REDIAL,
	sleep,
	waitFor,
} = require('../e2e/harness');

const TIME_SCALE = 0.05;
/** 1 + 2 + … + 2^15 s ≈ 18 hours of re-sends at full scale (the real service re-sends for 24 hours). */
const SERVICE_ATTEMPTS = 17;
/**
 * Attempts within which every event must get its 200. Attempt k goes out 0.05 × (2^(k−1) − 1) s after
 * the first: the 13th at 205 s, the first after the trigger's 2-minute grace for a Person Done whose
 * last call it has not seen; the 14th at 410 s (room for a slow machine).
 */
const ATTEMPTS_ALLOWED = 14;
const LEADS = 20;
const WAIT_EVENTS = ['CALL_ENDED', 'CANDIDATE_CHANGED'];
const NOT_ANSWERED = ['NOANSWER', 'BUSY', 'REJECTED'];
const SECRET = 'queue-faults-secret-0123456789abcdef';
const FINISHED = ['success', 'error', 'crashed', 'canceled'];

/**
 * The service's way in: round robin over the webhook processes that are up (`up[i]`), like a
 * balancer that checks n8n's readiness. `beforeForward(event)` runs before each delivery is
 * forwarded (the test kills a process there); `prefer(event)` may name the process that gets it (a
 * balancer may send any request to any process). `log`: { at, backend, event, crmId, status, answer }.
 */
async function startFront(webhooks) {
	const state = {
		up: webhooks.map(() => true),
		next: 0,
		log: [],
		beforeForward: null,
		prefer: null,
	};
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', async () => {
			const raw = Buffer.concat(chunks);
			let body = null;
			try {
				body = JSON.parse(raw.toString('utf8'));
			} catch (_) {
				/* not JSON: forwarded as it is */
			}
			if (state.beforeForward) await state.beforeForward(body).catch(() => {});
			const ready = state.up.map((up, i) => (up ? i : -1)).filter((i) => i >= 0);
			if (!ready.length) {
				res
					.writeHead(503, { 'content-type': 'text/plain' })
					.end('front: no webhook process is ready');
				return;
			}
			const preferred = state.prefer ? state.prefer(body) : undefined;
			const backend =
				preferred !== undefined && ready.includes(preferred)
					? preferred
					: ready[state.next++ % ready.length];
			const target = new URL(req.url, webhooks[backend].url);
			const entry = {
				at: Date.now(),
				backend,
				event: body && body.event,
				crmId: body && body.callbackData && body.callbackData.crmId,
				status: null,
				answer: '',
			};
			state.log.push(entry);
			forward(req, res, target, entry, {
				label: 'front',
				keep: 200,
				send: (upstream) => upstream.end(raw),
			});
		});
	});
	return {
		url: `http://127.0.0.1:${await listenOnLoopback(server)}`,
		state,
		close: () =>
			new Promise((resolve) => {
				server.close(() => resolve(undefined));
				server.closeAllConnections();
			}),
	};
}

/** How n8n answered requests in the balancer's log: "502 ×3, 200 n8n is starting up. Please wait ×1, …". */
function answersText(entries) {
	const counts = new Map();
	for (const e of entries) {
		const answer = String(e.answer || '')
			.replace(/"deliveryId":"[^"]*"/, '"deliveryId":…')
			.replace(/127\.0\.0\.1:\d+/, '127.0.0.1:…');
		const key = `${e.status} ${answer.replace(/\s+/g, ' ').slice(0, 60)}`;
		counts.set(key, (counts.get(key) || 0) + 1);
	}
	return [...counts].map(([k, n]) => `${k} ×${n}`).join('; ') || 'none';
}

/** The delivery models (the service documents neither): what each does, and the simulator's `webhookOrder`. */
const DELIVERY_MODELS = {
	independent: {
		words: 'each event re-sent on its own schedule',
		webhookOrder: 'independent',
		digit: 0,
	},
	ordered: {
		words: "a lead's Person Done sent only after its Call Ended was taken",
		webhookOrder: 'perCandidate',
		digit: 1,
	},
};

module.exports = async function faultChecks(ctx) {
	ctx.summary.faults = [];
	for (const { model, rounds } of ctx.deliveryModels || [{ model: 'independent', rounds: 1 }])
		await deliveryModelChecks(ctx, model, rounds);
};

/** The fault case's rounds under one delivery model, with a service (simulator) of its own. */
async function deliveryModelChecks(ctx, model, rounds) {
	const { cluster, client, checks, summary } = ctx;
	const delivery = DELIVERY_MODELS[model];
	const sim = await createSimulator({
		port: 0,
		token: SIM_TOKEN,
		users: [SIM_USER],
		timeScale: TIME_SCALE,
		webhookMaxAttempts: SERVICE_ATTEMPTS,
		webhookOrder: delivery.webhookOrder,
	});
	const crm = await startCrmStub();
	const front = await startFront(cluster.webhooks);
	try {
		const cred = await client.createCredential({
			name: `faults token (${model})`,
			type: 'cisAutoCallApi',
			data: { baseUrl: sim.url, accessToken: SIM_TOKEN },
		});
		const secretCred = await client.createCredential({
			name: `faults secret (${model})`,
			type: 'cisAutoCallWebhookSecretApi',
			data: { secret: SECRET },
		});
		const bridgeId = crypto.randomUUID();
		const bridgePath = `/webhook/${bridgeId}/webhook`;
		const bridgeWf = await client.createWorkflow(
			chain(`queue faults bridge (${model})`, [
				waitBridgeTrigger('CIS Trigger', bridgeId, secretCred),
				noOp(),
			]),
		);
		const crmUpdate = {
			parameters: {
				method: 'POST',
				url: `=${crm.url}/fault-results/{{ $execution.id }}`,
				sendBody: true,
				specifyBody: 'json',
				jsonBody:
					'={{ JSON.stringify({ status: $json.status, outcome: $json.outcome, callStatus: $json.callStatus, callId: $json.callId, callbackData: $json.callbackData }) }}',
				options: {},
			},
			id: crypto.randomUUID(),
			name: 'CRM update',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			position: [0, 0],
		};
		const leadPath = `queue-faults-lead-${crypto.randomUUID()}`;
		const leadWf = await client.createWorkflow(
			callAndWaitWorkflow(`queue faults: one lead (${model})`, {
				leadPath,
				credential: { ...cred, id: String(cred.id) },
				waitAtMost: 10,
				waitUnit: 'minutes',
				crm: crmUpdate,
				botSettingsId: 'bot-faults',
			}),
		);
		await client.activate(bridgeWf.id, { timeoutMs: 60000 });
		await client.activate(leadWf.id, { timeoutMs: 60000 });
		sim.setDefaultTemplate({
			webhookUrls: [webhookTarget(`${front.url}${bridgePath}?secret=${SECRET}`, WAIT_EVENTS)],
			redialStrategyOptions: NO_REDIAL,
		});

		for (let round = 1; round <= rounds; round++) {
			await checks.check(
				`faults, ${delivery.words} (round ${round} of ${rounds}): webhook-1 killed (kill -9) while the results of ${LEADS} waiting leads are delivered, started again while the balancer of N8N_WEBHOOK_URL still sends it hand-overs → ${LEADS} CRM updates, one per lead, each with its outcome and its last call's status (only a lead whose unanswered Call Ended the killed process had taken, and whose Person Done it had not, may lose that status: never its outcome); every event delivered within ${ATTEMPTS_ALLOWED} attempts of the service's re-send schedule; one candidate per phone`,
				async () => {
					const figure = await faultRound(round);
					figure.model = model;
					summary.faults.push(figure);
					return figure.text;
				},
			);
		}

		/** One round; returns its figures, throws what went wrong. */
		async function faultRound(round) {
			const leads = Array.from({ length: LEADS }, (_, i) => {
				const answered = i % 2 === 0;
				return {
					phone: `7999005${delivery.digit}${round}${String(i).padStart(2, '0')}`,
					crmId: `QF-${model[0]}${round}-${i + 1}`,
					status: answered ? 'ANSWERED' : NOT_ANSWERED[(i >> 1) % NOT_ANSWERED.length],
				};
			});
			// The calls end one after another, 1.5 s apart at this time scale, from about 30 s on.
			leads.forEach((lead, i) =>
				sim.setOutcome(lead.phone, {
					attempts: [{ status: /** @type {any} */ (lead.status), durationSec: 600 + 30 * i }],
					result: { crmId: lead.crmId },
				}),
			);
			const byCrmId = new Map(leads.map((l) => [l.crmId, l]));
			const known = new Set(
				(await executionsWithWaiting(client, leadWf.id)).map((e) => String(e.id)),
			);
			const deliveriesMark = sim.webhookDeliveries.length;
			const balancerMark = cluster.balancer.log.length;
			const frontMark = front.state.log.length;
			const crmMark = crm.requests.length;

			// Armed once every lead waits: before the Person Done of a not-reached lead whose Call Ended
			// webhook-1 got, webhook-1 is killed and started again. Until then the front sends a not-reached
			// lead's Call Ended to webhook-1: round robin alone, shifted by re-sends, could send every one of
			// them to webhook-2, and the round would have no kill (seen in CI).
			const victim = cluster.webhooks[0];
			/** @type {any} */
			let kill = null;
			let armed = false;
			front.state.prefer = (body) => {
				if (!armed || kill || !body || body.event !== 'CALL_ENDED') return undefined;
				const lead = byCrmId.get(body.callbackData && body.callbackData.crmId);
				return lead && lead.status !== 'ANSWERED' ? 0 : undefined;
			};
			front.state.beforeForward = async (body) => {
				if (!armed || kill || !body || body.event !== 'CANDIDATE_CHANGED') return;
				const crmId = body.callbackData && body.callbackData.crmId;
				const lead = byCrmId.get(crmId);
				if (!lead || lead.status === 'ANSWERED') return;
				const ended = front.state.log
					.slice(frontMark)
					.filter((e) => e.crmId === crmId && e.event === 'CALL_ENDED');
				const donePersons = front.state.log
					.slice(frontMark)
					.filter((e) => e.event === 'CANDIDATE_CHANGED' && e.status === 200).length;
				if (!ended.length || ended[ended.length - 1].backend !== 0 || donePersons < 2) return;
				kill = { crmId, at: Date.now() };
				front.state.up[0] = false;
				await victim.kill();
				kill.balancerMark = cluster.balancer.log.length;
				kill.restarted = victim.restart().then(
					() => {
						kill.readyAfterMs = Date.now() - kill.at;
						front.state.up[0] = true;
					},
					(e) => (kill.restartError = e),
				);
			};

			const posted = await Promise.all(
				leads.map((l) =>
					httpRequest('POST', `${cluster.balancer.url}/webhook/${leadPath}`, {
						body: { phone: l.phone, crmId: l.crmId },
					}),
				),
			);
			assert.deepStrictEqual(
				posted.map((p) => p.status),
				leads.map(() => 200),
				'the lead webhook answers',
			);
			// (on a slow machine a call may end before every execution waits: its events are answered 503 until then)
			let waiting = [];
			await waitFor(
				`${LEADS} executions waiting`,
				async () => {
					waiting = (await executionsWithWaiting(client, leadWf.id)).filter(
						(e) => !known.has(String(e.id)) && ['waiting', ...FINISHED].includes(e.status),
					);
					return waiting.length === LEADS;
				},
				120000,
				500,
			).catch((e) => {
				throw new Error(`${e.message}: ${waiting.length} waiting`);
			});
			armed = true;

			// every lead's CRM update, or what is missing once the allowed attempts are over (410 s) and a little more
			const crmPosts = () =>
				crm.requests.slice(crmMark).filter((r) => r.path.startsWith('/fault-results/'));
			await waitFor(`${LEADS} CRM updates`, () => crmPosts().length >= LEADS, 480000, 1000).catch(
				() => {},
			);
			await sleep(3000);
			if (kill && kill.restarted) await kill.restarted;
			front.state.beforeForward = null;
			front.state.prefer = null;

			/**
			 * Whether only webhook-1 held the lead's last call when it was killed: it had taken (200) the lead's
			 * unanswered Call Ended, and no Person Done of the lead had been taken yet. That process's death may cost
			 * the last call's status words, nothing else (docs/queue-mode.md).
			 */
			const onlyTheKilledProcessTook = (crmId) => {
				const before = front.state.log
					.slice(frontMark)
					.filter((e) => e.crmId === crmId && kill && e.at <= kill.at);
				return (
					before.some((e) => e.event === 'CALL_ENDED' && e.backend === 0 && e.status === 200) &&
					!before.some((e) => e.event === 'CANDIDATE_CHANGED' && e.status === 200)
				);
			};
			const got = crmPosts();
			const perLead = leads.map((l) =>
				got.filter((r) => r.body && r.body.callbackData && r.body.callbackData.crmId === l.crmId),
			);
			const deliveries = sim.webhookDeliveries
				.slice(deliveriesMark)
				.filter((d) => d.body && d.body.callbackData && byCrmId.has(d.body.callbackData.crmId));
			const attemptsOf = new Map();
			for (const d of deliveries) {
				const key = `${d.event} ${d.body.callbackData.crmId}`;
				const seen = attemptsOf.get(key) || { attempts: 0, ok: false };
				seen.attempts = Math.max(seen.attempts, d.attempt);
				if (d.status === 200) seen.ok = true;
				attemptsOf.set(key, seen);
			}
			const notDelivered = [...attemptsOf]
				.filter(([, s]) => !s.ok)
				.map(([k, s]) => `${k} (${s.attempts} attempts)`);
			const maxAttempts = Math.max(0, ...[...attemptsOf.values()].map((s) => s.attempts));
			const restartAnswers = kill
				? cluster.balancer.log
						.slice(kill.balancerMark)
						.filter((e) => e.backend === 0 && e.at <= kill.at + (kill.readyAfterMs || 0))
				: [];
			const handOversToVictim = restartAnswers.filter((e) =>
				e.path.startsWith('/webhook-waiting/'),
			);
			const resumes = cluster.balancer.log
				.slice(balancerMark)
				.filter((e) => e.path.startsWith('/webhook-waiting/'));
			const finished = (await executionsWithWaiting(client, leadWf.id)).filter(
				(e) => !known.has(String(e.id)),
			);
			const statuses = {};
			for (const e of finished) statuses[e.status] = (statuses[e.status] || 0) + 1;
			const bridgeRuns = (await client.listExecutions(bridgeWf.id)).length;
			const figure = {
				round,
				killedBefore: kill ? `the Person Done of ${kill.crmId}` : 'no kill',
				readyAfterMs: kill && kill.readyAfterMs,
				crmUpdates: got.length,
				maxAttempts,
				attempts: [...attemptsOf.values()].map((s) => s.attempts),
				handOversToRestarting: answersText(handOversToVictim),
				serviceAnswers: answersText(front.state.log.slice(frontMark)),
				resumeAnswers: answersText(resumes),
				passOnAnswers: answersText(
					cluster.balancer.log.slice(balancerMark).filter((e) => e.passedOn),
				),
				executions: statuses,
				bridgeRuns,
			};
			figure.text =
				`killed before ${figure.killedBefore}, ready again after ${figure.readyAfterMs ? `${(figure.readyAfterMs / 1000).toFixed(1)} s` : '-'}; ` +
				`CRM updates ${got.length}/${LEADS}; most attempts of an event ${maxAttempts} (of ${SERVICE_ATTEMPTS}); executions ${JSON.stringify(statuses)}; ` +
				`hand-overs the restarting webhook-1 answered: ${figure.handOversToRestarting}`;
			checks.note(`round ${round}: service deliveries answered ${figure.serviceAnswers}`);
			checks.note(
				`round ${round}: n8n's answers to the hand-overs (balancer) ${figure.resumeAnswers}`,
			);
			checks.note(
				`round ${round}: Person Done events passed on by a webhook process (balancer) ${figure.passOnAnswers || 'none'}`,
			);
			checks.note(
				`round ${round}: attempts per event ${figure.attempts.join(',')}; trigger workflow runs ${bridgeRuns}`,
			);

			assert.ok(
				kill,
				'the kill never happened (no Person Done of a not-reached lead after a Call Ended at webhook-1)',
			);
			assert.ok(
				!kill.restartError,
				`webhook-1 did not start again: ${kill.restartError && kill.restartError.message}`,
			);
			const wrong = [];
			const wordsLost = [];
			leads.forEach((lead, i) => {
				const posts = perLead[i];
				const want =
					lead.status === 'ANSWERED' ? ['answered', 'ANSWERED'] : ['notReached', lead.status];
				if (posts.length !== 1) wrong.push(`${lead.crmId}: ${posts.length} CRM updates`);
				else if (
					posts[0].body.outcome === 'notReached' &&
					want[0] === 'notReached' &&
					posts[0].body.callStatus === null &&
					onlyTheKilledProcessTook(lead.crmId)
				)
					wordsLost.push(lead.crmId);
				else if (posts[0].body.outcome !== want[0] || posts[0].body.callStatus !== want[1])
					wrong.push(
						`${lead.crmId}: ${posts[0].body.outcome}/${posts[0].body.callStatus}, expected ${want.join('/')}`,
					);
			});
			figure.wordsLost = wordsLost;
			figure.text += `; last call's status lost (the killed process had taken it): ${wordsLost.join(', ') || 'none'}`;
			assert.deepStrictEqual(
				wrong,
				[],
				`${wrong.length} lead(s) wrong: ${wrong.join('; ')}. ${figure.text}`,
			);
			assert.deepStrictEqual(
				notDelivered,
				[],
				`events never answered 200: ${notDelivered.join(', ')}`,
			);
			assert.ok(
				maxAttempts <= ATTEMPTS_ALLOWED,
				`an event needed ${maxAttempts} attempts (allowed ${ATTEMPTS_ALLOWED})`,
			);
			assert.deepStrictEqual(
				leads.map((l) => sim.createdByPhone()[l.phone]),
				leads.map(() => 1),
				'candidates created per phone',
			);
			assert.strictEqual(
				finished.filter((e) => FINISHED.includes(e.status)).length,
				LEADS,
				`executions ${JSON.stringify(statuses)}`,
			);
			return figure;
		}
	} finally {
		front.state.beforeForward = null;
		front.state.prefer = null;
		await front.close();
		await crm.close();
		await sim.close();
	}
}
