'use strict';
/**
 * n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED=true, n8n 2.x) in a real n8n of its own, as
 * an admin sets it up: the service (a simulator on 127.0.0.2) allowed with
 * N8N_SSRF_ALLOWED_IP_RANGES=127.0.0.2/32; n8n's own address 127.0.0.1 stays in the blocked
 * range 127.0.0.0/8, and n8n is reached by the host name `localhost` (N8N_WEBHOOK_URL), which
 * N8N_SSRF_ALLOWED_HOSTNAMES allows: the narrowest hole, only n8n's own name.
 * Cases: lead → call → wait → CRM ends with the answered result; the service's address blocked
 * (a simulator on 127.0.0.1): the execution's error says n8n's SSRF protection blocked it, names
 * the address and the setting, and not "may have been created". With n8n's own address blocked,
 * publishing the trigger succeeds with one warning in n8n's log and "… and Wait for Result" calls
 * nobody, naming the setting: test/ssrf/ssrfProtection.test.ts checks both through n8n's engine
 * (here it would cost a restart of n8n with other settings, ~2 minutes).
 * n8n 1.x has no SSRF protection: the module says so and runs nothing there.
 */
const assert = require('assert');
const crypto = require('crypto');
const { startN8n, setupOwner, installPackageTarball } = require('../../scripts/lib/n8n-instance');
const { freePort } = require('../../scripts/lib/http');
const { createSimulator } = require('../../simulator');
const { webhookTarget, SIM_TOKEN, SIM_USER } = require('../../scripts/lib/playground');
const suite = require('../lib/suite');
const {
	chain,
	manualTrigger,
	codeNode,
	cisNode,
	outputOf,
	errorOf,
	NO_REDIAL,
	WAIT_NODE: WAIT,
	CRM_NODE: CRM,
	waitBridgeTrigger,
	callAndWaitWorkflow,
	nextExecution,
} = require('./harness');

const SECRET = 'e2e-ssrf-secret-0123456789abcdef';
const ALLOWED_HOST = '127.0.0.2';
const NOT_SURE = /outcome unknown|may have been created/i;

module.exports = async function ssrfChecks(ctx) {
	const { checks, version, tarball } = ctx;
	if (version.startsWith('1.')) {
		checks.note(
			`ssrf: not run on n8n ${version}: n8n 1.x has no SSRF protection (no N8N_SSRF_* settings, no egress filter in its HTTP helpers); nothing to check there`,
		);
		return;
	}
	const sim = await createSimulator({
		port: 0,
		host: ALLOWED_HOST,
		token: SIM_TOKEN,
		users: [SIM_USER],
		timeScale: 0.05,
	});
	const blockedSim = await createSimulator({
		port: 0,
		token: SIM_TOKEN,
		users: [SIM_USER],
		timeScale: 0.05,
	});
	const userFolder = suite.makeTemp(`cis-e2e-ssrf-${version}-`);
	const port = await freePort();
	const env = {
		N8N_SSRF_PROTECTION_ENABLED: 'true',
		N8N_SSRF_ALLOWED_IP_RANGES: `${ALLOWED_HOST}/32`,
		N8N_SSRF_ALLOWED_HOSTNAMES: 'localhost',
		WEBHOOK_URL: null,
		N8N_WEBHOOK_URL: `http://localhost:${port}/`,
	};
	/** @type {any} */
	let n8n = null;
	try {
		/** @type {any} */
		let client = null;
		const started = await checks.check(
			`ssrf: n8n ${version} starts with SSRF protection on (service 127.0.0.2 allowed, n8n's own 127.0.0.1 blocked, its host name localhost allowed)`,
			async () => {
				await installPackageTarball(userFolder, tarball, version);
				n8n = await startN8n({ version, userFolder, port, env });
				client = await setupOwner(n8n.url, undefined, { version });
				return `ready at ${n8n.url}, webhooks at http://localhost:${port}/ in ${suite.secs(n8n.startedInMs)}`;
			},
		);
		if (!started) return;

		const token = await client.createCredential({
			name: 'ssrf token',
			type: 'cisAutoCallApi',
			data: { baseUrl: sim.url, accessToken: SIM_TOKEN },
		});
		const blockedToken = await client.createCredential({
			name: 'ssrf blocked token',
			type: 'cisAutoCallApi',
			data: { baseUrl: blockedSim.url, accessToken: SIM_TOKEN },
		});
		const secretCred = await client.createCredential({
			name: 'ssrf secret',
			type: 'cisAutoCallWebhookSecretApi',
			data: { secret: SECRET },
		});
		for (const c of [token, blockedToken, secretCred]) c.id = String(c.id);

		const triggerWebhookId = crypto.randomUUID();
		const triggerUrl = `http://localhost:${port}/webhook/${triggerWebhookId}/webhook`;
		const triggerWf = await client.createWorkflow(
			chain(`e2e ssrf bridge ${version}`, [
				waitBridgeTrigger('CIS Trigger', triggerWebhookId, secretCred),
			]),
		);
		const leadPath = `e2e-ssrf-lead-${crypto.randomUUID()}`;
		const waitWf = await client.createWorkflow(
			callAndWaitWorkflow(`e2e ssrf wait ${version}`, {
				leadPath,
				credential: token,
				waitAtMost: 10,
				waitUnit: 'minutes',
			}),
		);

		await checks.check(
			"ssrf: lead → call → wait → CRM ends with the answered result (the trigger hands over at n8n's allowed host name)",
			async () => {
				await client.activate(triggerWf.id);
				await client.activate(waitWf.id);
				sim.setDefaultTemplate({
					webhookUrls: [
						webhookTarget(`${triggerUrl}?secret=${SECRET}`, ['CALL_ENDED', 'CANDIDATE_CHANGED']),
					],
					redialStrategyOptions: NO_REDIAL,
				});
				sim.setOutcome('79995559001', { attempts: ['ANSWERED'], result: { interested: 'yes' } });
				const answer = await client.callWebhook(leadPath, { phone: '79995559001', crmId: 'S-1' });
				assert.strictEqual(
					answer.status,
					200,
					`lead webhook answered ${answer.status} ${answer.text}`,
				);
				let ex;
				try {
					ex = await nextExecution(
						client,
						waitWf.id,
						new Set(),
						['success', 'error', 'crashed'],
						40000,
					);
				} catch (error) {
					const deliveries = sim.webhookDeliveries.map((d) => [d.event, d.status]);
					throw new Error(
						`${error.message}; trigger answers ${JSON.stringify(deliveries)}; n8n: ${n8n.logs.slice(-12).join(' | ')}`,
					);
				}
				assert.strictEqual(
					ex.status,
					'success',
					`execution ${ex.id} ended ${ex.status}: ${JSON.stringify(errorOf(ex))}`,
				);
				const [result] = outputOf(ex, WAIT);
				assert.strictEqual(result.status, 'Answered', JSON.stringify(result));
				assert.deepStrictEqual(result.result, { interested: 'yes' });
				assert.deepStrictEqual(result.callbackData, { crmId: 'S-1' });
				assert.strictEqual(outputOf(ex, CRM)[0].status, 'Answered');
				const refused = sim.webhookDeliveries.filter((d) => d.status !== 200);
				assert.strictEqual(
					refused.length,
					0,
					`the trigger answered ${JSON.stringify(refused.map((d) => [d.event, d.status]))}`,
				);
				return `execution ${ex.id}: Answered; ${sim.webhookDeliveries.length} events, all answered 200`;
			},
		);

		await checks.check(
			'ssrf: the service\'s address blocked → the error says n8n\'s SSRF protection blocked it, names 127.0.0.1 and N8N_SSRF_ALLOWED_IP_RANGES, and not "may have been created"; nothing reached the service',
			async () => {
				const create = cisNode(
					'Create and run',
					{
						authentication: 'accessToken',
						resource: 'candidate',
						operation: 'createAndRun',
						botSettingsId: 'bot-1',
						phone: '={{ $json.phone }}',
					},
					blockedToken,
					{ typeVersion: 2 },
				);
				const wf = await client.createWorkflow(
					chain(`e2e ssrf blocked ${version}`, [
						manualTrigger(),
						codeNode('Lead', [{ phone: '79995559002' }]),
						create,
					]),
				);
				const ex = await client.runWorkflowManually(wf.id, { timeoutMs: 60000 });
				const error = errorOf(ex);
				assert.ok(error, `execution ${ex.id} ended ${ex.status} without an error`);
				const words = `${error.message} ${error.description || ''}`;
				assert.match(
					error.message,
					/^Not sent: n8n's SSRF protection blocked the request to 127\.0\.0\.1 /,
					error.message,
				);
				assert.match(words, /add 127\.0\.0\.1\/32 to N8N_SSRF_ALLOWED_IP_RANGES/);
				assert.doesNotMatch(words, NOT_SURE);
				assert.strictEqual(
					blockedSim.requests.length,
					0,
					`${blockedSim.requests.length} requests reached the blocked service`,
				);
				return error.message;
			},
		);
	} finally {
		if (n8n) await n8n.stop();
		await sim.close();
		await blockedSim.close();
		suite.removeTemp(userFolder);
	}
};
