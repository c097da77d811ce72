'use strict';
/**
 * Scenario 5: events per second that become executions, the CIS Auto-Call Trigger (Existing Task
 * mode, webhook secret credential) against n8n's own Webhook node, in one n8n, same events.
 *
 * Each contender is an active workflow holding only its trigger node. A round POSTs `count`
 * CALL_ENDED events (all different, so repeat detection lets every one through) at `concurrency`
 * over keep-alive connections, then waits until every execution has finished. The figure is
 * count / (time of the last execution's stop − time the first event was sent).
 */
const http = require('http');
const { PACKAGE } = require('./workflows');

const TRIGGER_TYPE = `${PACKAGE}.cisAutoCallTrigger`;
const SECRET = 'bench-webhook-secret-0123456789';

function callEnded(index) {
	return {
		event: 'CALL_ENDED',
		type: 'OUTGOING',
		botId: 'bench-bot',
		id: `call-${index}`,
		taskId: 'task-bench',
		candidateId: `cand-${index}`,
		status: 'ANSWERED',
		callFrom: '74950000000',
		callTo: String(79000000000 + index),
		startedAt: '2026-11-22T10:00:00+03:00',
		variables: { name: `Client ${index}` },
		result: { agreed: true, comment: 'call me back next week' },
		callbackData: { crmId: `crm-${index}` },
	};
}

function webhookWorkflow(webhookId) {
	return {
		name: 'bench trigger: Webhook node',
		nodes: [
			{
				id: 'n-webhook',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId,
				parameters: {
					httpMethod: 'POST',
					path: webhookId,
					responseMode: 'onReceived',
					options: {},
				},
			},
		],
		connections: {},
	};
}

/**
 * typeVersion: the node's version (default its newest); legacySecret: the secret typed into the
 * node as versions before the credential did (no credential is loaded per delivery).
 */
function cisTriggerWorkflow(
	webhookId,
	credential,
	{ options = {}, typeVersion = 1.1, legacySecret = false } = {},
) {
	const parameters = {
		connectTo: 'existing',
		events: ['CALL_ENDED', 'CANDIDATE_CHANGED'],
		options,
	};
	if (legacySecret) parameters.secret = SECRET;
	return {
		name: `bench trigger: CIS Auto-Call Trigger ${webhookId}`,
		nodes: [
			{
				id: 'n-cis-trigger',
				name: 'CIS Auto-Call Trigger',
				type: TRIGGER_TYPE,
				typeVersion,
				position: [0, 0],
				webhookId,
				parameters,
				credentials: legacySecret
					? {}
					: { cisAutoCallWebhookSecretApi: { id: credential.id, name: credential.name } },
			},
		],
		connections: {},
	};
}

/** POSTs every body to url at `concurrency`, keep-alive. Resolves { firstSentAt, statuses, ms }. */
async function sendAll(url, bodies, concurrency, contentType = 'application/json') {
	const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
	const target = new URL(url);
	const statuses = {};
	let next = 0;
	const post = (body) =>
		new Promise((resolve) => {
			const data = Buffer.from(JSON.stringify(body));
			const req = http.request(
				{
					agent,
					host: target.hostname,
					port: target.port,
					path: `${target.pathname}${target.search}`,
					method: 'POST',
					headers: { 'content-type': contentType, 'content-length': data.length },
				},
				(res) => {
					res.resume();
					res.on('end', () => resolve(res.statusCode));
				},
			);
			req.on('error', (/** @type {NodeJS.ErrnoException} */ error) =>
				resolve(error.code || 'error'),
			);
			req.end(data);
		});
	const firstSentAt = Date.now();
	const worker = async () => {
		while (next < bodies.length) {
			const status = await post(bodies[next++]);
			statuses[status] = (statuses[status] || 0) + 1;
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, bodies.length) }, worker));
	agent.destroy();
	return { firstSentAt, statuses, ms: Date.now() - firstSentAt };
}

/** Waits until `count` executions of the workflow have finished since `sinceId`; resolves them. */
async function waitForFinished(
	client,
	workflowId,
	count,
	{ afterId = 0, timeoutMs = 10 * 60 * 1000 } = {},
) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const all = await client.listExecutions(workflowId);
		const mine = all.filter((e) => Number(e.id) > afterId);
		const done = mine.filter((e) => e.stoppedAt && e.status !== 'running' && e.status !== 'new');
		if (done.length >= count) return done;
		if (Date.now() > deadline)
			throw new Error(
				`workflow ${workflowId}: ${done.length} of ${count} executions finished in time`,
			);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

async function lastExecutionId(client) {
	const res = await client.api('GET', '/executions?limit=1');
	return res.data && res.data[0] ? Number(res.data[0].id) : 0;
}

/**
 * Creates the credential and both workflows and activates them. Resolves the contenders:
 * [{ id, label, settingsText, workflowId, url }].
 */
/** The contenders of scenario 5; `variants` adds the trigger's other settings (profiling). */
const TRIGGER_VARIANTS = {
	'cis-trigger': {
		label: 'CIS Auto-Call Trigger',
		settingsText: 'Existing Task mode, secret credential, repeat detection on',
		workflow: {},
	},
	'cis-trigger-norepeat': {
		label: 'CIS Auto-Call Trigger',
		settingsText: 'Existing Task mode, secret credential, repeat detection off',
		workflow: { options: { ignoreRepeats: false } },
	},
	'cis-trigger-v1': {
		label: 'CIS Auto-Call Trigger',
		settingsText: 'version 1 of the node, secret credential',
		workflow: { typeVersion: 1 },
	},
	'cis-trigger-legacy': {
		label: 'CIS Auto-Call Trigger',
		settingsText: 'secret typed into the node (no credential)',
		workflow: { legacySecret: true },
	},
	'cis-trigger-v1-legacy': {
		label: 'CIS Auto-Call Trigger',
		settingsText: 'version 1, secret typed into the node',
		workflow: { typeVersion: 1, legacySecret: true },
	},
};

/**
 * Creates the credential and the workflows and activates them. Resolves the contenders:
 * [{ id, label, settingsText, workflowId, url }].
 */
async function setUpTriggerContenders(env, { variants = ['cis-trigger'] } = {}) {
	const { client } = env;
	const credential = await client.createCredential({
		name: 'bench webhook secret',
		type: 'cisAutoCallWebhookSecretApi',
		data: { secret: SECRET },
	});
	const base = env.n8n.url;
	const webhookId = 'bench-webhook-node';
	const plain = await client.createWorkflow(webhookWorkflow(webhookId));
	await client.activate(plain.id);
	const contenders = [
		{
			id: 'webhook-node',
			label: 'Webhook node',
			settingsText: 'n8n-nodes-base.webhook v2, POST, respond immediately',
			workflowId: plain.id,
			url: `${base}/webhook/${webhookId}`,
		},
	];
	for (const id of variants) {
		const variant = TRIGGER_VARIANTS[id];
		const triggerId = `bench-${id}`;
		const wf = await client.createWorkflow(
			cisTriggerWorkflow(triggerId, credential, variant.workflow),
		);
		await client.activate(wf.id);
		contenders.push({
			id,
			label: variant.label,
			settingsText: variant.settingsText,
			workflowId: wf.id,
			url: `${base}/webhook/${triggerId}/webhook?secret=${SECRET}`,
		});
	}
	return contenders;
}

/** One round of one contender: `count` new events (numbered from `offset`). */
async function runTriggerRound(env, contender, { count, concurrency, offset }) {
	const afterId = await lastExecutionId(env.client);
	const bodies = Array.from({ length: count }, (_, i) => callEnded(offset + i));
	const sent = await sendAll(contender.url, bodies, concurrency);
	const accepted = sent.statuses[200] || 0;
	const executions = accepted
		? await waitForFinished(env.client, contender.workflowId, accepted, { afterId })
		: [];
	const lastStop = Math.max(...executions.map((e) => Date.parse(e.stoppedAt)));
	const ms = executions.length ? lastStop - sent.firstSentAt : null;
	return {
		id: contender.id,
		label: contender.label,
		settings: contender.settingsText,
		events: count,
		concurrency,
		statuses: sent.statuses,
		answeredMs: sent.ms,
		executions: executions.length,
		succeeded: executions.filter((e) => e.status === 'success').length,
		ms,
		perSecond: ms ? (executions.length * 1000) / ms : null,
	};
}

/**
 * One event sent as application/octet-stream, a body n8n leaves unread for version 1.1 of the
 * trigger (the node reads it itself). Resolves { status, executions }.
 */
async function sendUnparsedBody(env, contender, offset) {
	const afterId = await lastExecutionId(env.client);
	const sent = await sendAll(contender.url, [callEnded(offset)], 1, 'application/octet-stream');
	const status = Number(Object.keys(sent.statuses)[0]);
	const executions =
		status === 200
			? await waitForFinished(env.client, contender.workflowId, 1, { afterId, timeoutMs: 30000 })
			: [];
	return { status, executions: executions.length };
}

module.exports = {
	TRIGGER_VARIANTS,
	setUpTriggerContenders,
	runTriggerRound,
	sendUnparsedBody,
	callEnded,
	webhookWorkflow,
	cisTriggerWorkflow,
	sendAll,
	SECRET,
	TRIGGER_TYPE,
};
