'use strict';
/**
 * Publishing (n8n 1.x: activating) the trigger's default mode (New Call Task, version 2) on an n8n whose webhook URL is
 * not public (this suite's n8n answers on 127.0.0.1): the "not public" refusal comes at once, before
 * any request to the service, also while Name is still empty (n8n's generic "Missing or invalid
 * required parameters" would otherwise come first). Prints how long each refusal took (before the refusal was final, n8n
 * tried 5 times over about 15 s); the pass/fail checks are the message and no request, and test/trigger/publishRefusals.test.ts
 * checks that the refusal is one n8n does not repeat.
 */
const assert = require('assert');
const crypto = require('crypto');
const { TRIGGER_TYPE } = require('../../scripts/lib/playground');
const { chain, noOp, apiRequestsSince } = require('./harness');

const NOT_PUBLIC = 'its webhook URL is not public';

function defaultModeTrigger(parameters, credential) {
	return {
		parameters: { events: ['CALL_ENDED'], ...parameters },
		id: crypto.randomUUID(),
		name: 'CIS Trigger',
		type: TRIGGER_TYPE,
		typeVersion: 2,
		position: [0, 0],
		webhookId: crypto.randomUUID(),
		credentials: { cisAutoCallApi: { id: String(credential.id), name: credential.name } },
	};
}

module.exports = async function publishLocalChecks(ctx) {
	const { client, sim, creds, checks } = ctx;
	const cases = [
		['with Name and Bot Script ID filled in', { name: 'Local campaign', defaultExecData: 'bot-1' }],
		['with Name still empty', { defaultExecData: 'bot-1' }],
	];
	for (const [label, parameters] of cases) {
		await checks.check(
			`publishing New Call Task on a local n8n ${label}: the "not public" refusal, nothing sent`,
			async () => {
				const wf = await client.createWorkflow(
					chain(`e2e local publish ${label}`, [
						defaultModeTrigger(parameters, creds.token),
						noOp(),
					]),
				);
				const mark = sim.requests.length;
				const started = Date.now();
				let failure;
				try {
					await client.activate(wf.id, { timeoutMs: 90000 });
				} catch (error) {
					failure = error;
				}
				const ms = Date.now() - started;
				await client.deactivate(wf.id, { wait: false }).catch(() => {});
				assert.ok(failure, 'publishing succeeded');
				assert.ok(String(failure.message).includes(NOT_PUBLIC), `refused with: ${failure.message}`);
				assert.strictEqual(apiRequestsSince(sim, mark).length, 0, 'requests reached the service');
				return `refused in ${ms} ms`;
			},
		);
	}
};
