'use strict';
/**
 * Create and Run and Wait for Result in a real n8n: one workflow "lead (Webhook) → call and wait →
 * CRM update" and a published CIS Auto-Call Trigger (Existing Task or Template, its URL in the
 * default template of the simulator) that hands the call's events to the waiting execution.
 * Cases: answered on the first attempt; a POST straight to the waiting address without the
 * package's key resumes nothing (with n8n 2.x's token too); the trigger workflow does not run for
 * the waiting call (option off).
 */
const assert = require('assert');
const crypto = require('crypto');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const { webhookTarget } = require('../../scripts/lib/playground');
const { chain, noOp, outputOf, errorOf, sleep, NO_REDIAL, WAIT_NODE: WAIT, CRM_NODE: CRM, waitBridgeTrigger, callAndWaitWorkflow, waitMarkerOf, nextExecution, executionsWithWaiting } = require('./harness');

const SECRET = 'e2e-wait-secret-0123456789abcdef';
const TRIGGER = 'CIS Trigger';

module.exports = async function waitChecks(ctx) {
	const { client, sim, creds, checks, version, n8n } = ctx;
	const secretCred = await client.createCredential({ name: 'e2e wait secret', type: 'cisAutoCallWebhookSecretApi', data: { secret: SECRET } });
	const triggerWebhookId = crypto.randomUUID();
	const triggerUrl = `${n8n.url}/webhook/${triggerWebhookId}/webhook`;
	const triggerWf = await client.createWorkflow(chain(`e2e wait bridge ${version}`, [waitBridgeTrigger(TRIGGER, triggerWebhookId, secretCred), noOp()]));

	/** The workflow "New lead (Webhook) → Call and wait → CRM update". */
	const waitWorkflow = (name, leadPath, waitAtMost, waitUnit) =>
		client.createWorkflow(callAndWaitWorkflow(name, { leadPath, credential: creds.token, waitAtMost, waitUnit }));
	const leadPath = `e2e-wait-lead-${crypto.randomUUID()}`;
	const waitWf = await waitWorkflow(`e2e wait ${version}`, leadPath, 10, 'minutes');
	const shortPath = `e2e-wait-short-${crypto.randomUUID()}`;
	const shortWf = await waitWorkflow(`e2e wait 1 minute ${version}`, shortPath, 1, 'minutes');

	const ready = await checks.check('wait: the trigger (Existing Task or Template) and the workflow lead → call and wait → CRM update are published', async () => {
		await client.activate(triggerWf.id);
		await client.activate(waitWf.id);
		await client.activate(shortWf.id);
		sim.setDefaultTemplate({ webhookUrls: [webhookTarget(`${triggerUrl}?secret=${SECRET}`, ['CALL_ENDED', 'CANDIDATE_CHANGED'])], redialStrategyOptions: NO_REDIAL });
		return `trigger ${triggerWf.id}, workflow ${waitWf.id}`;
	});
	if (!ready) return;

	/** The one execution of the wait workflow started after `known`, once its status is one of `statuses`. */
	const executionOf = (known, statuses, timeoutMs = 30000, workflowId = waitWf.id) => nextExecution(client, workflowId, known, statuses, timeoutMs);
	const ids = async () => new Set((await executionsWithWaiting(client, waitWf.id)).map((e) => String(e.id)));
	const markerOf = (phone) => waitMarkerOf(sim, phone);

	await checks.check('wait: a lead answered on the first attempt → the execution waits, then continues once with the result, its own Callback Data and no key', async () => {
		const known = await ids();
		const triggerRuns = (await client.listExecutions(triggerWf.id)).length;
		sim.setOutcome('79995550001', { attempts: ['ANSWERED'], result: { interested: 'yes' } });
		const answer = await client.callWebhook(leadPath, { phone: '79995550001', crmId: 'W-1' });
		assert.strictEqual(answer.status, 200, `lead webhook answered ${answer.status} ${answer.text}`);
		let ex;
		try {
			ex = await executionOf(known, ['success', 'error', 'crashed']);
		} catch (error) {
			// What the trigger and the waiting node answered, to tell where the hand-over stopped.
			const deliveries = sim.webhookDeliveries.filter((d) => d.url.startsWith(triggerUrl)).map((d) => [d.event, d.status]);
			const editorList0 = await client.rawRest('GET', `/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: waitWf.id }))}`);
			const waitingNow = ((editorList0.body && editorList0.body.data && editorList0.body.data.results) || []).filter((e) => e.status === 'waiting').map((e) => e.id);
			const marker = markerOf('79995550001');
			let knock = 'no execution waiting';
			if (waitingNow.length && marker) {
				const url = new URL(`${n8n.url}/webhook-waiting/${waitingNow[0]}/${marker.node}`);
				if (marker.token) url.searchParams.set('signature', marker.token);
				const r = await httpRequest('POST', url.toString(), { body: { cisAutoCallResume: { key: marker.key, results: {} } } });
				const r2 = await httpRequest('POST', url.toString(), { body: { cisAutoCallResume: { key: 'e'.repeat(64), results: {} } } });
				knock = `${r.status} ${r.text}; a wrong key → ${r2.status} ${r2.text}; marker ${JSON.stringify({ ...marker, key: '…' })}`;
			}
			const editorList = await client.rawRest('GET', `/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: waitWf.id }))}`);
			const listed = ((editorList.body && editorList.body.data && editorList.body.data.results) || []).map((e) => [e.id, e.status, e.finished]);
			throw new Error(`${error.message}; editor list ${JSON.stringify(listed)} (${editorList.status}); deliveries ${JSON.stringify(deliveries)}; waiting ${JSON.stringify(waitingNow)}; the key with no results → ${knock}; n8n: ${n8n.logs.slice(-15).join(' | ')}`);
		}
		assert.strictEqual(ex.status, 'success', `execution ${ex.id} ended ${ex.status}: ${JSON.stringify(errorOf(ex))}`);
		const [result] = outputOf(ex, WAIT);
		assert.strictEqual(outputOf(ex, WAIT).length, 1);
		assert.strictEqual(result.status, 'Answered', JSON.stringify(result));
		assert.deepStrictEqual(result.callbackData, { crmId: 'W-1' });
		assert.deepStrictEqual(result.result, { interested: 'yes' });
		assert.strictEqual(outputOf(ex, CRM)[0].status, 'Answered');
		const marker = markerOf('79995550001');
		assert.ok(marker && /^[0-9a-f]{64}$/.test(marker.key), 'the candidate carried no wait key');
		assert.ok(!JSON.stringify(ex.data).includes(marker.key), 'the key is in the execution data');
		if (version.startsWith('2.')) assert.ok(marker.token, 'n8n 2.x: the resume token was not carried');
		await sleep(1000);
		assert.strictEqual((await client.listExecutions(triggerWf.id)).length, triggerRuns, 'the trigger workflow ran for the waiting call');
		assert.strictEqual(sim.createdByPhone()['79995550001'], 1);
		return `execution ${ex.id}: ${JSON.stringify({ status: result.status, callId: result.callId, callbackData: result.callbackData })}`;
	});

	await checks.check('wait: a POST straight to /webhook-waiting/<id>/<node> without the package\'s key resumes nothing; the call\'s result still does', async () => {
		const known = await ids();
		// A long call: time to knock on the waiting address while the execution waits.
		sim.setOutcome('79995550002', { attempts: [{ status: 'ANSWERED', durationSec: 160 }], result: { late: true } });
		const answer = await client.callWebhook(leadPath, { phone: '79995550002', crmId: 'W-2' });
		assert.strictEqual(answer.status, 200);
		const waiting = await executionOf(known, ['waiting'], 20000);
		const marker = markerOf('79995550002');
		const url = new URL(`${n8n.url}/webhook-waiting/${waiting.id}/${marker.node}`);
		if (marker.token) url.searchParams.set('signature', marker.token);
		const forged = await httpRequest('POST', url.toString(), { body: { cisAutoCallResume: { results: { 0: { outcome: 'answered' } } } } });
		const noToken = await httpRequest('POST', `${n8n.url}/webhook-waiting/${waiting.id}/${marker.node}`, { body: { cisAutoCallResume: { key: 'f'.repeat(64) } } });
		assert.strictEqual(forged.status, 401, `without the key: ${forged.status} ${forged.text}`);
		assert.ok([401, 404].includes(noToken.status) || version.startsWith('1.'), `without the token: ${noToken.status}`);
		assert.ok(noToken.status !== 200 || !/Workflow was started|resumed":true/.test(noToken.text), `a wrong key resumed: ${noToken.text}`);
		const still = await client.getExecution(waiting.id);
		assert.strictEqual(still.status, 'waiting', `after the forged resumes the execution is ${still.status}`);
		const ex = await executionOf(known, ['success', 'error', 'crashed'], 40000);
		assert.strictEqual(ex.status, 'success');
		assert.deepStrictEqual(outputOf(ex, WAIT).map((i) => [i.status, i.callbackData]), [['Answered', { crmId: 'W-2' }]]);
		return `forged → ${forged.status}, wrong key without token → ${noToken.status}; execution ${ex.id} continued with the call's result`;
	});

	await checks.check('wait: no result within Wait at Most (1 minute) → n8n goes on with the input items unchanged (no "outcome" field)', async () => {
		const known = new Set((await executionsWithWaiting(client, shortWf.id)).map((e) => String(e.id)));
		// A call far longer than the limit.
		sim.setOutcome('79995550003', { attempts: [{ status: 'ANSWERED', durationSec: 4000 }] });
		const answer = await client.callWebhook(shortPath, { phone: '79995550003', crmId: 'W-3' });
		assert.strictEqual(answer.status, 200);
		await executionOf(known, ['waiting'], 20000, shortWf.id);
		const started = Date.now();
		const ex = await executionOf(known, ['success', 'error', 'crashed'], 150000, shortWf.id);
		assert.strictEqual(ex.status, 'success');
		const [item] = outputOf(ex, WAIT);
		assert.strictEqual(item.outcome, undefined, JSON.stringify(item));
		assert.deepStrictEqual(item.body, { phone: '79995550003', crmId: 'W-3' });
		assert.strictEqual(outputOf(ex, CRM)[0].outcome, undefined);
		return `execution ${ex.id} went on after ${Math.round((Date.now() - started) / 1000)} s of polling with the lead as it came in`;
	});

	await client.deactivate(shortWf.id).catch(() => {});
	await client.deactivate(waitWf.id).catch(() => {});
	await client.deactivate(triggerWf.id).catch(() => {});
	sim.setDefaultTemplate({ webhookUrls: [] });
};
