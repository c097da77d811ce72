'use strict';
/**
 * Queue mode: an AI Agent whose tool is Create and Run and Wait for Result (Max Calls per
 * Run 1) waits on a worker; the worker that ran it is restarted while it waits (its memory gone),
 * and the call ends only after that worker is up again (its start-up recovery has run).
 *
 * n8n's start-up recovery on a worker reads the worker's event log: the AI Agent node started there
 * and never finished (it waits for its tool), and, unlike the waiting tool node, it has no run data.
 * In n8n's default recovery mode (`N8N_EVENTBUS_RECOVERY_MODE=extensive`) the recovery writes
 * "Workflow did not finish, possible out-of-memory issue" into the waiting execution's data; n8n
 * then answers the call's result 409 "has finished with error". With
 * `N8N_EVENTBUS_RECOVERY_MODE=simple` it only marks executions that were new or running as crashed,
 * and leaves a waiting one as it is (docs/queue-mode.md).
 *
 * - recovery mode simple: the call's result resumes the agent through a webhook process on a worker
 *   and the model reads the answered result; its next call is refused by the cap, which travelled
 *   with the execution; one person phoned.
 * - n8n's default recovery: the result is not lost: it starts the trigger's own workflow marked
 *   notHandedOver; one person phoned; the model never reads it. At Wait at Most (2 minutes here) n8n
 *   resumes the agent's execution, which ends (measured: error; the model read noResult first).
 * - a workflow that waits without an agent (n8n's default recovery): resumes after the restart.
 *
 * The stand-in chat model and the workflow are the e2e suite's (test/e2e/agentWait.e2e.js).
 */
const assert = require('assert');
const crypto = require('crypto');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const { webhookTarget } = require('../../scripts/lib/playground');
const { startScriptedChatModel } = require('../../scripts/lib/standInModel');
const {
	chain,
	noOp,
	waitBridgeTrigger,
	callAndWaitWorkflow,
	nextExecution,
	waitFor,
	errorOf,
	outputOf,
	NO_REDIAL,
	WAIT_NODE,
} = require('../e2e/harness');
const { agentWorkflow, waitingTool, toolObjects, TOOL_NAME } = require('../e2e/agentWait.e2e');
const { workerRunsByExecution } = require('./cluster');

const SECRET = 'queue-agent-wait-secret-0123456789';
const FINISHED = ['success', 'error', 'crashed', 'canceled'];
const RECOVERY_MODE = 'N8N_EVENTBUS_RECOVERY_MODE';
/** A call of 900 s (45 s at the simulator's time scale): it ends after the restarted worker is up again (measured: up in 10–23 s). */
const CALL_SECONDS = 900;
/** What a worker's start-up recovery says about the executions in its event log. */
const RECOVERY_LINE =
	/\[Recovery\]|Found unfinished executions|Marked executions as `crashed`|Skipped recovery/;

module.exports = async function agentWaitQueueChecks({
	cluster,
	client,
	sim,
	cred,
	checks,
	summary,
}) {
	const model = await startScriptedChatModel();
	summary.agent = [];
	try {
		const openAi = await client.createCredential({
			name: 'queue stand-in model',
			type: 'openAiApi',
			data: { apiKey: 'sk-stand-in', url: `${model.url}/v1`, header: false },
		});
		const secretCred = await client.createCredential({
			name: 'queue agent-wait secret',
			type: 'cisAutoCallWebhookSecretApi',
			data: { secret: SECRET },
		});
		const bridgeId = crypto.randomUUID();
		const bridgeWf = await client.createWorkflow(
			chain('queue agent-wait bridge', [
				waitBridgeTrigger('CIS Trigger', bridgeId, secretCred),
				noOp(),
			]),
		);
		await client.activate(bridgeWf.id, { timeoutMs: 60000 });
		const bridgeUrl = `${cluster.balancer.url}/webhook/${bridgeId}/webhook?secret=${SECRET}`;
		sim.setDefaultTemplate({
			webhookUrls: [webhookTarget(bridgeUrl, ['CALL_ENDED', 'CANDIDATE_CHANGED'])],
			redialStrategyOptions: NO_REDIAL,
		});

		/**
		 * The agent calls phoneA (then phoneB, which the cap refuses), waits on a worker; that worker is
		 * restarted with `env` while the call goes on. Resolves what happened, once the agent's execution
		 * finished or (`until`) the trigger's workflow got the result.
		 */
		async function waitAcrossRestart(
			name,
			{ phoneA, phoneB, result, env, until = '', plain = false, waitAtMost = 10 },
		) {
			const leadPath = `queue-agent-wait-${crypto.randomUUID()}`;
			const wf = await client.createWorkflow(
				plain
					? callAndWaitWorkflow(`queue wait without an agent (${name})`, {
							leadPath,
							credential: cred,
							waitAtMost: 10,
							waitUnit: 'minutes',
						})
					: agentWorkflow(`queue agent waits (${name})`, {
							leadPath,
							openAi,
							tools: [waitingTool(cred, { waitAtMost, options: { maxCallsPerRun: 1 } })],
						}),
			);
			await client.activate(wf.id, { timeoutMs: 60000 });
			sim.setOutcome(phoneA, {
				attempts: [{ status: 'ANSWERED', durationSec: CALL_SECONDS }],
				result,
			});
			const bridgeRuns = new Set(
				(await client.listExecutions(bridgeWf.id)).map((e) => String(e.id)),
			);
			const mark = model.requests.length;
			const balancerMark = cluster.balancer.log.length;
			const script = [
				{ tool: TOOL_NAME, args: { phone: phoneA } },
				{ tool: TOOL_NAME, args: { phone: phoneB } },
			];
			const body = plain
				? { phone: phoneA, crmId: `QA-${name}` }
				: { text: `SCRIPT ${JSON.stringify(script)}` };
			const res = await httpRequest('POST', `${cluster.balancer.url}/webhook/${leadPath}`, {
				body,
			});
			assert.strictEqual(res.status, 200, `the lead webhook answered ${res.status} ${res.text}`);
			const waiting = await nextExecution(client, wf.id, new Set(), ['waiting'], 60000);
			const firstRuns = await waitFor(
				'the worker run before the wait',
				() =>
					(workerRunsByExecution(cluster)[String(waiting.id)] || []).filter((r) => r.finished)
						.length >= 1 && workerRunsByExecution(cluster)[String(waiting.id)],
				15000,
			);
			const waitedOn = firstRuns[0].worker;
			const worker = cluster.workers[Number(waitedOn.replace(/\D/g, '')) - 1];
			const logMark = worker.logs.length;
			const t0 = Date.now();
			await worker.restart({ env });
			const upAt = Date.now();
			const recovery = worker.logs.slice(logMark).filter((l) => RECOVERY_LINE.test(l));
			// The case is about a worker whose start-up (and its recovery) ran while the agent waited.
			const deliveries = () =>
				cluster.balancer.log
					.slice(balancerMark)
					.filter((e) => e.path.startsWith(`/webhook/${bridgeId}/`));
			const handOvers = () =>
				cluster.balancer.log
					.slice(balancerMark)
					.filter((e) => e.path.startsWith(`/webhook-waiting/${waiting.id}/`));
			const early = deliveries().filter((e) => e.at < upAt);
			assert.strictEqual(
				early.length,
				0,
				`the call's result reached n8n before ${waitedOn} was up again (${early.length} deliveries): the case did not test a restart while the agent waits`,
			);
			const created = () =>
				sim.requests
					.filter(
						(r) =>
							r.path === '/cis/api/v1/telephony/autoCallCandidate/single' &&
							r.body &&
							[phoneA, phoneB].includes((r.body.phone || [])[0]),
					)
					.map((r) => r.body.phone[0]);
			const outcome = await waitFor(
				"the agent's execution finished" +
					(until === 'trigger' ? " or the result in the trigger's workflow" : ''),
				async () => {
					const ex = await client.getExecution(waiting.id);
					if (FINISHED.includes(ex.status)) return { agentEx: ex };
					if (until !== 'trigger') return undefined;
					const all = await client.listExecutions(bridgeWf.id, { includeData: true });
					const item = all
						.filter((e) => !bridgeRuns.has(String(e.id)))
						.flatMap((e) => outputOf(e, 'CIS Trigger'))
						.find((i) => JSON.stringify(i).includes(JSON.stringify(result).slice(1, -1)));
					return item ? { agentEx: ex, triggerItem: item } : undefined;
				},
				120000,
				1000,
			).catch(async (error) => {
				const ex = await client.getExecution(waiting.id).catch(() => ({}));
				const answers = handOvers().map((e) => `${e.status} ${String(e.answer).slice(0, 80)}`);
				assert.fail(
					`${error.message}: execution ${waiting.id} is ${ex.status} (${JSON.stringify(errorOf(ex)).slice(0, 200)}); ${waitedOn} restarted in ${((upAt - t0) / 1000).toFixed(1)} s, its recovery said ${JSON.stringify(recovery)}; hand-overs to /webhook-waiting answered ${JSON.stringify(answers)}`,
				);
			});
			const chats = model.requests.slice(mark).filter((r) => Array.isArray(r.body.messages));
			const results = chats.length
				? chats[chats.length - 1].body.messages
						.filter((m) => m.role === 'tool')
						.map((m) => toolObjects(String(m.content)))
				: [];
			const runs = workerRunsByExecution(cluster)[String(waiting.id)] || [];
			const figure = {
				name,
				execution: waiting.id,
				waitedOn,
				restartMs: upAt - t0,
				recovery,
				handOvers: handOvers().map((e) => e.status),
				resumedOn: runs.slice(1).map((r) => r.worker),
				firstResultAfterUpMs: deliveries().length ? deliveries()[0].at - upAt : null,
			};
			summary.agent.push(figure);
			return { ...outcome, created: created(), results, figure, mark };
		}

		await checks.check(
			`agent wait, workers with ${RECOVERY_MODE}=simple: an AI Agent's tool waits on a worker; that worker is restarted while it waits (the call ends after it is up again); the call's result resumes the agent on a worker and the model reads it; Max Calls per Run (1) still holds after the resume: the next call is refused, one person phoned`,
			async () => {
				const [phoneA, phoneB] = ['79990004401', '79990004402'];
				const { agentEx, created, results, figure } = await waitAcrossRestart('simple', {
					phoneA,
					phoneB,
					result: { queue: 'yes' },
					env: { [RECOVERY_MODE]: 'simple' },
				});
				assert.strictEqual(
					agentEx.status,
					'success',
					`execution ${agentEx.id} ended ${agentEx.status}: ${JSON.stringify(errorOf(agentEx))}`,
				);
				assert.deepStrictEqual(created, [phoneA]);
				assert.strictEqual(results[0][0].outcome, 'answered', JSON.stringify(results));
				assert.deepStrictEqual(results[0][0].result, { queue: 'yes' });
				assert.strictEqual(results[1][0].outcome, 'refused', JSON.stringify(results));
				assert.match(
					results[1][0].message,
					/would go beyond 1 call per agent run .* 1 already started/,
				);
				return `execution ${figure.execution}: waited on ${figure.waitedOn} (restarted in ${(figure.restartMs / 1000).toFixed(1)} s; its recovery: ${figure.recovery.join(' | ') || 'none'}), the result reached n8n ${(figure.firstResultAfterUpMs / 1000).toFixed(1)} s after; hand-overs answered ${figure.handOvers.join(', ')}; resumed on ${figure.resumedOn.join(', ') || '?'}; the model read ${JSON.stringify(results)}`;
			},
		);

		await checks.check(
			`agent wait, n8n's default recovery (${RECOVERY_MODE} unset: extensive): the worker the agent waited on is restarted; its start-up recovery ends the waiting execution with an error, n8n answers the result 409, and the result is not lost: it starts the trigger's own workflow marked notHandedOver; one person phoned; the model never reads it; at Wait at Most n8n resumes the agent's execution and it ends`,
			async () => {
				const [phoneA, phoneB] = ['79990004403', '79990004404'];
				// Wait at Most 2 minutes: what the agent's execution does at its time limit, after the recovery wrote the crash into it.
				const { agentEx, triggerItem, created, results, figure, mark } = await waitAcrossRestart(
					'default recovery',
					{
						phoneA,
						phoneB,
						result: { queueDefault: 'yes' },
						env: { [RECOVERY_MODE]: null },
						until: 'trigger',
						waitAtMost: 2,
					},
				);
				assert.ok(
					triggerItem,
					`the agent's execution ${agentEx.id} ended ${agentEx.status} (${JSON.stringify(errorOf(agentEx)).slice(0, 200)}) and the trigger's workflow got nothing; the model read ${JSON.stringify(results)}`,
				);
				assert.ok(
					JSON.stringify(triggerItem).includes('notHandedOver'),
					`not marked: ${JSON.stringify(triggerItem).slice(0, 300)}`,
				);
				assert.ok(
					figure.recovery.some((l) => /amended execution|Found unfinished executions/.test(l)),
					`the restarted worker's recovery said ${JSON.stringify(figure.recovery)}`,
				);
				assert.ok(
					figure.handOvers.includes(409),
					`hand-overs answered ${figure.handOvers.join(', ')}`,
				);
				assert.deepStrictEqual(created, [phoneA]);
				assert.ok(
					!results.flat().some((r) => r && r.outcome === 'answered'),
					`the model read ${JSON.stringify(results)}`,
				);
				// At Wait at Most n8n resumes the agent's execution.
				const waitedFrom = Date.now();
				const later = await waitFor(
					"the agent's execution after its Wait at Most",
					async () => {
						const ex = await client.getExecution(agentEx.id);
						return FINISHED.includes(ex.status) ? ex : undefined;
					},
					240000,
					2000,
				).catch(async () => client.getExecution(agentEx.id));
				const chats = model.requests.slice(mark).filter((r) => Array.isArray(r.body.messages));
				const read = chats.length
					? chats[chats.length - 1].body.messages
							.filter((m) => m.role === 'tool')
							.map((m) => toolObjects(String(m.content)))
					: [];
				summary.agent[summary.agent.length - 1].atTimeLimit =
					`${later.status} after ${((Date.now() - waitedFrom) / 1000).toFixed(0)} s more; the model read ${JSON.stringify(read).slice(0, 300)}`;
				assert.ok(
					FINISHED.includes(later.status),
					`the agent's execution ${agentEx.id} is still ${later.status} ${((Date.now() - waitedFrom) / 1000).toFixed(0)} s after the result, its Wait at Most 2 minutes`,
				);
				assert.deepStrictEqual(created, [phoneA], 'one person phoned, also after the time limit');
				assert.ok(
					!read.flat().some((r) => r && r.outcome === 'answered'),
					`the model read ${JSON.stringify(read)}`,
				);
				return `execution ${figure.execution}: waited on ${figure.waitedOn} (restarted in ${(figure.restartMs / 1000).toFixed(1)} s; its recovery: ${figure.recovery.join(' | ')}); hand-overs answered ${figure.handOvers.join(', ')}; the agent's execution was ${agentEx.status} (${JSON.stringify(errorOf(agentEx)).slice(0, 120)}); the trigger's workflow got ${JSON.stringify(triggerItem).slice(0, 200)}; at its Wait at Most (2 min) the agent's execution: ${summary.agent[summary.agent.length - 1].atTimeLimit}; ${later.status !== 'waiting' ? JSON.stringify(errorOf(later)).slice(0, 160) : ''}`;
			},
		);
		await checks.check(
			`wait without an agent, n8n's default recovery (${RECOVERY_MODE} unset): Lead → Create and Run and Wait for Result waits on a worker; that worker is restarted (the call ends after it is up again); the call's result resumes it on a worker: Answered, one person phoned`,
			async () => {
				const phone = '79990004405';
				const { agentEx, created, figure } = await waitAcrossRestart('plain, default recovery', {
					phoneA: phone,
					phoneB: phone,
					result: { plain: 'yes' },
					env: { [RECOVERY_MODE]: null },
					plain: true,
				});
				assert.strictEqual(
					agentEx.status,
					'success',
					`execution ${agentEx.id} ended ${agentEx.status}: ${JSON.stringify(errorOf(agentEx))}`,
				);
				const out = outputOf(agentEx, WAIT_NODE);
				assert.strictEqual(out.length, 1, JSON.stringify(out));
				assert.strictEqual(out[0].status, 'Answered', JSON.stringify(out[0]));
				assert.deepStrictEqual(out[0].result, { plain: 'yes' });
				assert.deepStrictEqual(created, [phone]);
				return `execution ${figure.execution}: waited on ${figure.waitedOn} (restarted in ${(figure.restartMs / 1000).toFixed(1)} s; its recovery: ${figure.recovery.join(' | ') || 'none'}); hand-overs answered ${figure.handOvers.join(', ')}; resumed on ${figure.resumedOn.join(', ') || '?'}; ${WAIT_NODE}: ${out[0].status}`;
			},
		);
		await client.deactivate(bridgeWf.id).catch(() => {});
	} finally {
		sim.setDefaultTemplate({ webhookUrls: [] });
		await model.close();
	}
};
