'use strict';
/**
 * The call results an agent reads later, shared by chat.e2e.js and mcp.e2e.js: the Data Table
 * `cis_call_results` (created through n8n's REST API, as the editor does) and example 14a (CIS
 * Auto-Call Trigger → Edit Fields → Data Table upsert by call id) published, its URL in the
 * simulator's default template. Set up once per n8n (kept in ctx.resultsSetup); each module points the default
 * template at it again (resultsTeardown empties it).
 */
const { httpRequest } = require('../../../scripts/lib/n8n-instance');
const {
	loadExamples,
	prepareExample,
	triggerUrlOf,
	webhookTarget,
	RESULTS_TABLE,
	RESULTS_TABLE_COLUMNS,
} = require('../../../scripts/lib/playground');
const { NO_REDIAL, waitFor } = require('../harness');

const SECRET = 'e2e-results-table-secret-0123456789';

/** The example as imported: the e2e access-token credential and this module's secret credential. */
function exampleJson(ctx, key, credentials, table) {
	const example = loadExamples().find((e) => e.key === key);
	return prepareExample(example.json, {
		credentialType: 'token',
		credentials: {
			cisAutoCallApi: { id: String(ctx.creds.token.id), name: ctx.creds.token.name },
			...credentials,
		},
		secret: SECRET,
		dataTables: { [table.name]: table.id },
	});
}

/**
 * Example 14a published with its table; the default template's Call Ended goes to it.
 * The examples module (earlier, same n8n) published the same examples: they are unpublished first.
 */
async function resultsSetup(ctx) {
	const { client, sim, n8n } = ctx;
	if (ctx.resultsSetup) {
		sim.setDefaultTemplate({
			webhookUrls: [webhookTarget(ctx.resultsSetup.triggerUrl, ['CALL_ENDED'])],
			redialStrategyOptions: NO_REDIAL,
		});
		return ctx.resultsSetup;
	}
	if (ctx.playground) {
		for (const key of ['14a', '14b', '14c']) {
			const wf = ctx.playground.workflows[key];
			if (wf && wf.activated) await client.deactivate(wf.id);
		}
	}
	const table = await client.ensureDataTable(RESULTS_TABLE, RESULTS_TABLE_COLUMNS);
	const secretCred = await client.createCredential({
		name: 'e2e results secret',
		type: 'cisAutoCallWebhookSecretApi',
		data: { secret: SECRET },
	});
	const json = exampleJson(
		ctx,
		'14a',
		{ cisAutoCallWebhookSecretApi: { id: String(secretCred.id), name: secretCred.name } },
		table,
	);
	const wf = await client.createWorkflow(json);
	await client.activate(wf.id);
	const triggerUrl = `${triggerUrlOf(n8n.url, json)}?secret=${SECRET}`;
	sim.setDefaultTemplate({
		webhookUrls: [webhookTarget(triggerUrl, ['CALL_ENDED'])],
		redialStrategyOptions: NO_REDIAL,
	});
	const rowsOf = async (phone) =>
		(await client.dataTableRows(table)).filter((row) => row.phone === phone);
	ctx.resultsSetup = {
		table,
		workflowId: String(wf.id),
		triggerUrl,
		secret: SECRET,
		rowsOf,
		/** The phone's row, once example 14a wrote it (the simulated call takes well under a second). */
		rowOf: (phone, timeoutMs = 30000) =>
			waitFor(
				`a row of ${phone} in ${RESULTS_TABLE}`,
				async () => (await rowsOf(phone))[0],
				timeoutMs,
			),
		/** The Call Ended the simulator delivered to example 14a for a phone. */
		deliveryOf: (phone) =>
			sim.webhookDeliveries.find(
				(d) =>
					d.url === triggerUrl && d.event === 'CALL_ENDED' && d.body && d.body.callTo === phone,
			),
		/** POSTs an event body (object or text) to example 14a's trigger as the service would send it again. */
		sendAgain: (body) =>
			httpRequest('POST', triggerUrl, { headers: { 'content-type': 'application/json' }, body }),
		exampleJson: (key, credentials) => exampleJson(ctx, key, credentials, table),
	};
	return ctx.resultsSetup;
}

/** The default template without webhooks again (the modules after this one set their own). */
function resultsTeardown(ctx) {
	ctx.sim.setDefaultTemplate({ webhookUrls: [] });
}

module.exports = { resultsSetup, resultsTeardown };
