'use strict';
/**
 * Scenario 7: leads into their waits, and their results back, Create and Run and Wait for Result
 * against the route a user builds without this package, in one n8n, same leads, same results.
 *
 *   package: Webhook "New lead" → CIS Auto-Call (Create and Run and Wait for Result) → No Op "CRM";
 *            the results reach a published CIS Auto-Call Trigger (Existing Task, secret credential),
 *            which hands each one to its waiting execution.
 *   DIY:     Webhook "New lead" → HTTP Request (4.4, Callback Data { crmId, resumeUrl: $execution.resumeUrl })
 *            → Wait (On Webhook Call, POST) → No Op "CRM"; the results reach a second workflow,
 *            Webhook "Events" → HTTP Request POST of the event to its Callback Data's resumeUrl: the
 *            service sends every event of a task to one address, so a DIY route needs this router.
 *
 * Phase 1: `count` leads POSTed at `leadConcurrency`; the time from the first lead sent until every
 * execution waits. Phase 2: one answered Call Ended per lead, built from the Callback Data the
 * service received for that lead (what the service sends back), POSTed at `resultConcurrency`; the
 * time until every execution finished. Then each execution is read back: it must have finished once,
 * with the result of its own lead (none lost, doubled or mixed).
 */
const { sendAll, SECRET } = require('./trigger');
const { BOT, SINGLE_PATH, httpRequestNode } = require('./workflows');
const {
	chain,
	noOp,
	cisNode,
	leadWebhook,
	outputOf,
	waitForResultParameters,
	waitBridgeTrigger,
} = require('../../e2e/harness');

const LEAD = 'New lead';
const WAIT = 'Call and wait';
const CRM = 'CRM';

/** The package's route: the node at its newest version, the lead's phone and CRM id from the Webhook's body. */
function packageLeadWorkflow(path, credential) {
	const wait = cisNode(
		WAIT,
		waitForResultParameters({
			from: '$json.body',
			botSettingsId: BOT,
			waitAtMost: 60,
			waitUnit: 'minutes',
		}),
		credential,
		{ typeVersion: 3 },
	);
	return chain('bench wait: package', [leadWebhook(path), wait, noOp(CRM)]);
}

/**
 * The DIY route's two nodes: n8n's HTTP Request node sends 4.4 with the execution's resume URL in
 * Callback Data, n8n's Wait node waits (also the queue-mode scale benchmark's, test/queue/scale.js).
 */
function diyCallAndWaitNodes(
	simUrl,
	credential,
	ids = { request: 'n-diy-request', wait: 'n-diy-wait', webhook: 'bench-diy-wait' },
	bot = BOT,
) {
	const request = {
		id: ids.request,
		name: 'Create and run',
		position: [0, 0],
		...httpRequestNode({
			simUrl,
			credential,
			bodyParameters: [
				{ name: 'phone', value: '={{ [$json.body.phone] }}' },
				{ name: 'botSettingsId', value: bot },
				{
					name: 'callbackData',
					value: '={{ { crmId: $json.body.crmId, resumeUrl: $execution.resumeUrl } }}',
				},
			],
		}),
	};
	const wait = {
		id: ids.wait,
		name: WAIT,
		type: 'n8n-nodes-base.wait',
		typeVersion: 1.1,
		position: [0, 0],
		webhookId: ids.webhook,
		parameters: {
			resume: 'webhook',
			httpMethod: 'POST',
			limitWaitTime: true,
			limitType: 'afterTimeInterval',
			resumeAmount: 60,
			resumeUnit: 'minutes',
			options: {},
		},
	};
	return [request, wait];
}

/** The DIY route: a lead's webhook, the call and its wait, the CRM. */
function diyLeadWorkflow(path, simUrl, credential) {
	return chain('bench wait: DIY', [
		leadWebhook(path),
		...diyCallAndWaitNodes(simUrl, credential),
		noOp(CRM),
	]);
}

/** The DIY router: each event POSTed on to the resume URL its Callback Data carries. */
function diyRouterWorkflow(path) {
	const forward = {
		id: 'n-diy-forward',
		name: 'Resume',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [0, 0],
	};
	forward.parameters = {
		method: 'POST',
		url: '={{ $json.body.callbackData.resumeUrl }}',
		sendBody: true,
		contentType: 'json',
		specifyBody: 'json',
		jsonBody: '={{ $json.body }}',
		options: {},
	};
	const events = leadWebhook(path);
	events.name = 'Events';
	return chain('bench wait: DIY router', [events, forward]);
}

/**
 * Creates and publishes the workflows of both routes. Resolves the contenders:
 * [{ id, label, settingsText, leadWorkflowId, resultWorkflowId, leadUrl, resultUrl, resultOf(event) }].
 */
async function setUpWaitContenders(env, sim) {
	const { client, credential } = env;
	const base = env.n8n.url;
	const secretCredential = await client.createCredential({
		name: 'bench wait secret',
		type: 'cisAutoCallWebhookSecretApi',
		data: { secret: SECRET },
	});
	const made = [];
	const publish = async (workflow) => {
		const wf = await client.createWorkflow(workflow);
		await client.activate(wf.id);
		made.push(wf.id);
		return wf.id;
	};
	const packageLeads = await publish(packageLeadWorkflow('bench-wait-lead-package', credential));
	const trigger = await publish(
		chain('bench wait: CIS Auto-Call Trigger', [
			waitBridgeTrigger('CIS Auto-Call Trigger', 'bench-wait-trigger', secretCredential),
		]),
	);
	const diyLeads = await publish(diyLeadWorkflow('bench-wait-lead-diy', sim.url, credential));
	const router = await publish(diyRouterWorkflow('bench-wait-events-diy'));
	return [
		{
			id: 'cis-wait',
			label: 'Create and Run and Wait for Result + CIS Auto-Call Trigger',
			settingsText:
				'node version 3, Wait at Most 60 minutes; trigger Existing Task, secret credential',
			leadWorkflowId: packageLeads,
			resultWorkflowId: trigger,
			leadUrl: `${base}/webhook/bench-wait-lead-package`,
			resultUrl: `${base}/webhook/bench-wait-trigger/webhook?secret=${SECRET}`,
			resultsOf: (execution) => outputOf(execution, WAIT).map((json) => json.result),
		},
		{
			id: 'diy-wait',
			label: 'HTTP Request + Wait node, Webhook + HTTP Request router',
			settingsText: 'defaults; Callback Data carries $execution.resumeUrl',
			leadWorkflowId: diyLeads,
			resultWorkflowId: router,
			leadUrl: `${base}/webhook/bench-wait-lead-diy`,
			resultUrl: `${base}/webhook/bench-wait-events-diy`,
			resultsOf: (execution) =>
				outputOf(execution, WAIT).map((json) => json.body && json.body.result),
		},
	];
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The newest execution's id (0 when none): executions of a round are those after it. */
async function lastExecutionId(client) {
	const res = await client.api('GET', '/executions?limit=1');
	return res.data && res.data[0] ? Number(res.data[0].id) : 0;
}

/**
 * Polls until `count` executions of the workflow started after `afterId` have one of `statuses`;
 * resolves the time that happened and what was seen.
 */
async function untilStatus(
	client,
	workflowId,
	afterId,
	count,
	statuses,
	{ timeoutMs = 20 * 60 * 1000, pollMs = 1000 } = {},
) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const all = (await client.listExecutions(workflowId)).filter((e) => Number(e.id) > afterId);
		const byStatus = {};
		for (const e of all) byStatus[e.status] = (byStatus[e.status] || 0) + 1;
		const reached = statuses.reduce((n, s) => n + (byStatus[s] || 0), 0);
		if (reached >= count) return { at: Date.now(), byStatus };
		const failed = (byStatus.error || 0) + (byStatus.crashed || 0) + (byStatus.canceled || 0);
		if (failed > 0 && reached + failed >= count) return { at: Date.now(), byStatus };
		if (Date.now() > deadline) return { at: null, byStatus };
		await sleep(pollMs);
	}
}

/** The lead of index i: a phone of its own and its CRM id. */
function lead(prefix, i) {
	return { phone: String(79100000000 + prefix * 100000 + i), crmId: `crm-${prefix}-${i}` };
}

/** The answered Call Ended the service sends for a created candidate (its own Callback Data returned). */
function answeredCallEnded(body, i) {
	return {
		event: 'CALL_ENDED',
		type: 'OUTGOING',
		botId: BOT,
		id: `wait-call-${body.phone[0]}`,
		taskId: 'task-bench-wait',
		candidateId: `wait-candidate-${body.phone[0]}`,
		status: 'ANSWERED',
		callFrom: '74950000000',
		callTo: body.phone[0],
		startedAt: '2026-11-22T10:00:00+03:00',
		variables: {},
		result: { crmId: body.callbackData && body.callbackData.crmId, agreed: i % 2 === 0 },
		callbackData: body.callbackData,
	};
}

/**
 * One round of one contender: `count` leads (numbered by `prefix`) into their waits at
 * `leadConcurrency`, then their results at `resultConcurrency`. Resolves the figures and the checks.
 */
async function runWaitRound(
	env,
	sim,
	contender,
	{ count, prefix, leadConcurrency, resultConcurrency },
) {
	const { client } = env;
	const leads = Array.from({ length: count }, (_, i) => lead(prefix, i));
	const phones = new Set(leads.map((l) => l.phone));
	const since = (await sim.control.counts()).requests;
	const afterId = await lastExecutionId(client);

	const sentLeads = await sendAll(contender.leadUrl, leads, leadConcurrency);
	const waiting = await untilStatus(client, contender.leadWorkflowId, afterId, count, ['waiting']);
	const intoWaitMs = waiting.at === null ? null : waiting.at - sentLeads.firstSentAt;

	// What the service received for these leads: their Callback Data comes back in the events.
	const created = (await sim.control.requests(since)).filter(
		(r) =>
			r.method === 'POST' &&
			r.path === SINGLE_PATH &&
			r.status === 200 &&
			r.body &&
			Array.isArray(r.body.phone) &&
			phones.has(r.body.phone[0]),
	);
	const events = created.map((r, i) => answeredCallEnded(r.body, i));
	const sentResults = await sendAll(contender.resultUrl, events, resultConcurrency);
	const finished = await untilStatus(client, contender.leadWorkflowId, afterId, count, ['success']);
	const resumeMs = finished.at === null ? null : finished.at - sentResults.firstSentAt;

	// None lost, doubled or mixed: each lead's execution finished once, with its own lead's result.
	const executions = (
		await client.listExecutions(contender.leadWorkflowId, { includeData: true })
	).filter((e) => {
		if (Number(e.id) <= afterId) return false;
		const body = outputOf(e, LEAD)[0];
		return body && body.body && phones.has(body.body.phone);
	});
	const byCrmId = new Map();
	let mixed = 0;
	let notOnce = 0;
	for (const e of executions) {
		const crmId = outputOf(e, LEAD)[0].body.crmId;
		byCrmId.set(crmId, (byCrmId.get(crmId) || 0) + 1);
		const results = contender.resultsOf(e);
		if (
			e.status === 'success' &&
			(results.length !== 1 || !results[0] || results[0].crmId !== crmId)
		)
			mixed++;
		if (outputOf(e, CRM).length !== 1) notOnce++;
	}
	const succeeded = executions.filter((e) => e.status === 'success').length;
	// the package's trigger starts no execution for a result it handed over; the DIY router one per result
	const resultWorkflowRuns = (await client.listExecutions(contender.resultWorkflowId)).filter(
		(e) => Number(e.id) > afterId,
	).length;
	const createdByPhone = (await sim.control.counts()).createdByPhone || {};
	const dialledTwice = leads.filter((l) => (createdByPhone[l.phone] || 0) > 1).length;
	return {
		id: contender.id,
		label: contender.label,
		settings: contender.settingsText,
		leads: count,
		leadStatuses: sentLeads.statuses,
		resultStatuses: sentResults.statuses,
		candidates: created.length,
		intoWaitMs,
		leadsPerSecond: intoWaitMs ? (count * 1000) / intoWaitMs : null,
		waitingSeen: waiting.byStatus,
		resumeMs,
		resultsPerSecond: resumeMs ? (count * 1000) / resumeMs : null,
		finishedSeen: finished.byStatus,
		succeeded,
		lost: count - succeeded,
		doubled: [...byCrmId.values()].filter((n) => n > 1).length + notOnce + dialledTwice,
		mixed,
		resultWorkflowRuns,
	};
}

module.exports = {
	setUpWaitContenders,
	runWaitRound,
	packageLeadWorkflow,
	diyLeadWorkflow,
	diyCallAndWaitNodes,
	diyRouterWorkflow,
	answeredCallEnded,
};
