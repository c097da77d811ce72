'use strict';
/**
 * Queue mode, issue 40: an AI Agent whose tool is Create and Run and Wait for Result (Max Calls per
 * Run 1) waits on a worker; the worker that ran it is restarted while it waits (its memory gone),
 * the call's result resumes the agent through a webhook process on any worker, and the model reads
 * the answered result; its next call is refused by the cap, which travelled with the execution.
 * The stand-in chat model and the workflow are the e2e suite's (test/e2e/agentWait.e2e.js).
 */
const assert = require('assert');
const crypto = require('crypto');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const { webhookTarget } = require('../../scripts/lib/playground');
const { startScriptedChatModel } = require('../../scripts/lib/standInModel');
const { chain, noOp, waitBridgeTrigger, nextExecution, waitFor, errorOf, NO_REDIAL } = require('../e2e/harness');
const { agentWorkflow, waitingTool, toolObjects, TOOL_NAME } = require('../e2e/agentWait.e2e');
const { workerRunsByExecution } = require('./cluster');

const SECRET = 'queue-agent-wait-secret-0123456789';
const FINISHED = ['success', 'error', 'crashed', 'canceled'];

module.exports = async function agentWaitQueueChecks({ cluster, client, sim, cred, checks }) {
	const model = await startScriptedChatModel();
	try {
		const openAi = await client.createCredential({ name: 'queue stand-in model', type: 'openAiApi', data: { apiKey: 'sk-stand-in', url: `${model.url}/v1`, header: false } });
		const secretCred = await client.createCredential({ name: 'queue agent-wait secret', type: 'cisAutoCallWebhookSecretApi', data: { secret: SECRET } });
		const bridgeId = crypto.randomUUID();
		const bridgeWf = await client.createWorkflow(chain('queue agent-wait bridge', [waitBridgeTrigger('CIS Trigger', bridgeId, secretCred), noOp()]));
		const leadPath = `queue-agent-wait-${crypto.randomUUID()}`;
		const wf = await client.createWorkflow(agentWorkflow('queue agent waits', { leadPath, openAi, tools: [waitingTool(cred, { options: { maxCallsPerRun: 1 } })] }));
		await client.activate(bridgeWf.id, { timeoutMs: 60000 });
		await client.activate(wf.id, { timeoutMs: 60000 });
		const bridgeUrl = `${cluster.balancer.url}/webhook/${bridgeId}/webhook?secret=${SECRET}`;

		await checks.check('agent wait: an AI Agent\'s tool waits on a worker; that worker is restarted while it waits; the call\'s result resumes the agent on a worker and the model reads it; Max Calls per Run (1) still holds after the resume: the next call is refused, one person phoned', async () => {
			const [phoneA, phoneB] = ['79990004401', '79990004402'];
			// A call of 300 s (15 s at the simulator's time scale): time to restart a worker while the agent waits.
			sim.setOutcome(phoneA, { attempts: [{ status: 'ANSWERED', durationSec: 300 }], result: { queue: 'yes' } });
			sim.setDefaultTemplate({ webhookUrls: [webhookTarget(bridgeUrl, ['CALL_ENDED', 'CANDIDATE_CHANGED'])], redialStrategyOptions: NO_REDIAL });
			const mark = model.requests.length;
			const script = [{ tool: TOOL_NAME, args: { phone: phoneA } }, { tool: TOOL_NAME, args: { phone: phoneB } }];
			const res = await httpRequest('POST', `${cluster.balancer.url}/webhook/${leadPath}`, { body: { text: `SCRIPT ${JSON.stringify(script)}` } });
			assert.strictEqual(res.status, 200, `the lead webhook answered ${res.status} ${res.text}`);
			const waiting = await nextExecution(client, wf.id, new Set(), ['waiting'], 60000);
			const firstRuns = await waitFor('the worker run before the wait', () => (workerRunsByExecution(cluster)[String(waiting.id)] || []).filter((r) => r.finished).length >= 1 && workerRunsByExecution(cluster)[String(waiting.id)], 15000);
			const waitedOn = firstRuns[0].worker;
			await cluster.workers[Number(waitedOn.replace(/\D/g, '')) - 1].restart();
			const done = await nextExecution(client, wf.id, new Set(), FINISHED, 120000);
			assert.strictEqual(done.status, 'success', `execution ${done.id} ended ${done.status}: ${JSON.stringify(errorOf(done))}`);
			const created = sim.requests.filter((r) => r.path === '/cis/api/v1/telephony/autoCallCandidate/single' && r.body && [phoneA, phoneB].includes((r.body.phone || [])[0]));
			assert.deepStrictEqual(created.map((r) => r.body.phone[0]), [phoneA]);
			const chats = model.requests.slice(mark).filter((r) => Array.isArray(r.body.messages));
			const results = chats[chats.length - 1].body.messages.filter((m) => m.role === 'tool').map((m) => toolObjects(String(m.content)));
			assert.strictEqual(results[0][0].outcome, 'answered', JSON.stringify(results));
			assert.deepStrictEqual(results[0][0].result, { queue: 'yes' });
			assert.strictEqual(results[1][0].outcome, 'refused', JSON.stringify(results));
			assert.match(results[1][0].message, /would go beyond 1 call per agent run .* 1 already started/);
			const runs = workerRunsByExecution(cluster)[String(done.id)] || [];
			return `execution ${done.id}: waited on ${waitedOn} (restarted), resumed on ${runs.slice(1).map((r) => r.worker).join(', ') || '?'}; the model read ${JSON.stringify(results)}`;
		});
		await client.deactivate(wf.id).catch(() => {});
		await client.deactivate(bridgeWf.id).catch(() => {});
	} finally {
		sim.setDefaultTemplate({ webhookUrls: [] });
		await model.close();
	}
};
