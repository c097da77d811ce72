'use strict';
/**
 * Shared pieces of the end-to-end suite (test/e2e/run.js): the check recorder, workflow
 * builders, and readers of executions and of the simulator's request log.
 * Plain Node (CommonJS, built-ins only).
 */
const assert = require('assert');
const crypto = require('crypto');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const { ACTION_TYPE, TRIGGER_TYPE, CRM_CONTACTS } = require('../../scripts/lib/playground');

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A fixed wait, only for what no signal announces: that something does NOT happen (no second task,
 * no new execution, no request elsewhere, no second CRM update) or a window that must stay open.
 * `why` says what it waits out; anything that can be awaited uses waitFor() instead.
 */
async function quietFor(ms, why) {
	if (typeof why !== 'string' || why.trim() === '')
		throw new Error('quietFor(ms, why): say what the wait waits out');
	await sleep(ms);
}

/** Polls fn() until it returns a truthy value; rejects with `what` after timeoutMs. */
async function waitFor(what, fn, timeoutMs = 20000, everyMs = 150) {
	const deadline = Date.now() + timeoutMs;
	let last;
	for (;;) {
		try {
			last = await fn();
		} catch (e) {
			last = undefined;
			if (Date.now() > deadline) throw new Error(`${what}: ${e.message}`);
		}
		if (last) return last;
		if (Date.now() > deadline)
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
		await sleep(everyMs);
	}
}

/* ------------------------------------------------------------------ checks */

/**
 * Records named checks of one n8n version. Each check is an async function that throws on
 * failure and may return a short detail line. A failing check never stops the others.
 */
class Checks {
	constructor(label, out = (line) => process.stdout.write(`${line}\n`)) {
		this.label = label;
		this.out = out;
		this.results = [];
	}

	async check(name, fn) {
		const t0 = Date.now();
		try {
			const detail = await fn();
			const ms = Date.now() - t0;
			this.results.push({ name, ok: true, ms, detail });
			this.out(`  ok    ${name}${detail ? `: ${detail}` : ''} (${ms} ms)`);
			return true;
		} catch (err) {
			const ms = Date.now() - t0;
			const message = err && err.message ? err.message : String(err);
			this.results.push({ name, ok: false, ms, error: message });
			this.out(
				`  FAIL  ${name} (${ms} ms)\n        ${message.split('\n').slice(0, 25).join('\n        ')}`,
			);
			return false;
		}
	}

	/** A check that cannot run because an earlier step failed: counted as failed. */
	skip(name, why) {
		this.results.push({ name, ok: false, ms: 0, error: `not run: ${why}` });
		this.out(`  FAIL  ${name}: not run (${why})`);
	}

	note(line) {
		this.out(`        ${line}`);
	}

	get passed() {
		return this.results.filter((r) => r.ok).length;
	}

	get failed() {
		return this.results.filter((r) => !r.ok).length;
	}
}

/* ------------------------------------------------------------------ workflows */

function nodeId() {
	return crypto.randomUUID();
}

const MANUAL = 'Start';

function manualTrigger() {
	return {
		parameters: {},
		id: nodeId(),
		name: MANUAL,
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
	};
}

/** A Code node that outputs the given JSON objects as items. */
function codeNode(name, rows) {
	return {
		parameters: { jsCode: `return ${JSON.stringify(rows.map((json) => ({ json })))};` },
		id: nodeId(),
		name,
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		position: [0, 0],
	};
}

/** The CIS Auto-Call action node with the given parameters and credential reference. */
function cisNode(name, parameters, credential, extra = {}) {
	const credType = parameters.authentication === 'login' ? 'cisAutoCallLoginApi' : 'cisAutoCallApi';
	return {
		parameters: { options: {}, ...parameters },
		id: nodeId(),
		name,
		type: ACTION_TYPE,
		typeVersion: 1,
		position: [0, 0],
		credentials: { [credType]: { id: String(credential.id), name: credential.name } },
		...extra,
	};
}

function triggerNode(name, parameters, credential, webhookId) {
	// The suites' n8n answers on 127.0.0.1, which the simulator reaches: New Call Task may register there.
	const options = parameters.connectTo === 'newTask' ? { allowLocalUrl: true } : {};
	const node = {
		parameters: { options, ...parameters },
		id: nodeId(),
		name,
		type: TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		webhookId,
	};
	if (credential)
		node.credentials = { cisAutoCallApi: { id: String(credential.id), name: credential.name } };
	return node;
}

function noOp(name = 'Done') {
	return {
		parameters: {},
		id: nodeId(),
		name,
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [0, 0],
	};
}

/** A workflow running the nodes one after the other (positions laid out left to right). */
function chain(name, nodes) {
	const connections = {};
	nodes.forEach((n, i) => {
		n.position = [i * 220, 0];
		if (i > 0)
			connections[nodes[i - 1].name] = { main: [[{ node: n.name, type: 'main', index: 0 }]] };
	});
	return { name, nodes, connections, settings: { executionOrder: 'v1' } };
}

/** The JSON of the items a node output in its (last) run, or [] when it did not run. */
function outputOf(execution, nodeName) {
	const runs =
		execution &&
		execution.data &&
		execution.data.resultData &&
		execution.data.resultData.runData[nodeName];
	if (!runs || !runs.length) return [];
	const run = runs[runs.length - 1];
	return ((run.data && run.data.main && run.data.main[0]) || []).map((i) => i.json);
}

function errorOf(execution) {
	const rd = execution && execution.data && execution.data.resultData;
	return rd && rd.error ? rd.error : null;
}

/** Asserts the execution succeeded, with n8n's error message when not. */
function assertSuccess(execution) {
	const err = errorOf(execution);
	assert.strictEqual(
		execution.status,
		'success',
		`execution ${execution.id} ${execution.status}: ${err ? `${err.message}${err.description ? ` (${err.description})` : ''}` : 'no error recorded'}`,
	);
}

/* ------------------------------------------------------------------ simulator */

/** The simulator's log entries of CIS API (and login) requests since index `mark`. */
function apiRequestsSince(sim, mark) {
	return sim.requests
		.slice(mark)
		.filter((r) => r.path.startsWith('/cis/') || r.path.startsWith('/api/v1/auth/'));
}

/** {method, path, query?, body?} of a log entry, for exact comparison. */
function shapeOf(r, { withQuery = false } = {}) {
	const out = { method: r.method, path: r.path };
	if (withQuery || Object.keys(r.query || {}).length) out.query = r.query;
	if (r.body !== undefined) out.body = r.body;
	return out;
}

/** A request to the simulator's CIS API with the static token (as if from the service's own UI/API). */
async function simApi(sim, method, apiPath, body) {
	const res = await httpRequest(method, `${sim.url}/cis/api/v1/${apiPath.replace(/^\//, '')}`, {
		headers: { authorization: `Bearer ${sim.config.token}` },
		body,
	});
	if (res.status !== 200)
		throw new Error(`${method} ${apiPath} on the simulator answered ${res.status}: ${res.text}`);
	return res.body;
}

/** Tasks of the simulator whose webhook targets point at `url` (ignoring the query). */
function tasksPointingAt(sim, url) {
	return [...sim.state.tasks.values()].filter((t) =>
		(t.body.webhookUrls || []).some(
			(w) => String(typeof w === 'string' ? w : w.url).split('?')[0] === url,
		),
	);
}

function secretOfTask(task, url) {
	const target = (task.body.webhookUrls || []).find(
		(w) => String(typeof w === 'string' ? w : w.url).split('?')[0] === url,
	);
	const u = new URL(typeof target === 'string' ? target : target.url);
	return u.searchParams.get('secret');
}

/* ------------------------------------------------------------------ the service's shapes */

/** The events a call task can send to a webhook (spec: webhookUrls[].events). */
const EVENTS = require('../../nodes/shared/events.json').map((event) => event.value);

/** The redial options a call task created without redials carries. */
const { NO_REDIALS: NO_REDIAL } = require('../../simulator');

/** The events map of a webhook target: each event named, `value` true for the chosen ones. */
function eventsMap(chosen) {
	const map = {};
	for (const name of EVENTS) map[name] = { name, value: chosen.includes(name) };
	return map;
}

/**
 * The body Call Task → Create sends for the parameters the suites use (bot queue `botQueue`, no
 * redials), written from the spec; taskComment and webhookUrls only when given.
 * @param {{ name: string, botQueue: string, taskComment?: string, webhookUrls?: unknown[] }} task
 */
function expectedTaskBody({ name, botQueue, taskComment, webhookUrls }) {
	const body = { name };
	if (taskComment !== undefined) body.taskComment = taskComment;
	Object.assign(body, {
		defaultExec: 'robot',
		defaultExecData: botQueue,
		secondExec: 'end',
		cidType: 'default',
		startType: 'manual',
		cps: 1.02,
		additionalOptions: {
			fullListMethod: 'reject',
			fullListTime: 30,
			recordCall: true,
			recTrimLeft: 0,
		},
		redialStrategyOptions: NO_REDIAL,
	});
	if (webhookUrls) body.webhookUrls = webhookUrls;
	return body;
}

/** A CALL_ENDED delivery as the service sends it, for a task; `tag` makes its id and crmId unique. */
function callEndedEvent(taskId, tag, callTo = '79990000199') {
	return {
		event: 'CALL_ENDED',
		type: 'robot',
		id: `${tag}-${crypto.randomUUID()}`,
		taskId,
		candidateId: `cand-${tag}`,
		status: 'ANSWERED',
		callFrom: '74950000000',
		callTo,
		startedAt: new Date().toISOString(),
		variables: {},
		result: {},
		callbackData: { crmId: tag },
	};
}

/* ------------------------------------------------------------------ Create and Run and Wait for Result */

/** The names of the waiting node and of the node after it in callAndWaitWorkflow(). */
const WAIT_NODE = 'Call and wait';
const CRM_NODE = 'CRM update';

/**
 * The trigger that hands the calls' events to waiting executions: version 2, Existing Task or
 * Template, CALL_ENDED and CANDIDATE_CHANGED, checked with a webhook secret credential.
 */
function waitBridgeTrigger(name, webhookId, secretCredential) {
	const trigger = triggerNode(
		name,
		{ connectTo: 'existing', events: ['CALL_ENDED', 'CANDIDATE_CHANGED'] },
		null,
		webhookId,
	);
	trigger.typeVersion = 2;
	trigger.credentials = {
		cisAutoCallWebhookSecretApi: { id: String(secretCredential.id), name: secretCredential.name },
	};
	return trigger;
}

/**
 * The parameters of Candidate → Create and Run and Wait for Result (or, with `addToTask`
 * `{ taskId, forceStart }`, Add to Task and Wait for Result): the phone and the CRM id from `from`
 * (`$json`, or `$json.body` behind a Webhook node), Callback Data `{ crmId }`. Shared by the e2e,
 * queue and engine suites.
 * @param {{ from?: string, botSettingsId?: string, waitAtMost?: number, waitUnit?: string,
 *   addToTask?: { taskId: string, forceStart?: boolean } | null }} [options]
 */
function waitForResultParameters({
	from = '$json',
	botSettingsId = 'bot-wait',
	waitAtMost = 10,
	waitUnit = 'minutes',
	addToTask = null,
} = {}) {
	return {
		authentication: 'accessToken',
		resource: 'candidate',
		...(addToTask
			? {
					operation: 'addToTaskAndWait',
					autoCallId: { __rl: true, mode: 'id', value: addToTask.taskId },
					forceStart: addToTask.forceStart,
				}
			: { operation: 'createAndRunAndWait', botSettingsId }),
		phone: `={{ ${from}.phone }}`,
		candidateFields: { callbackData: `={{ JSON.stringify({ crmId: ${from}.crmId }) }}` },
		waitAtMost,
		waitUnit,
	};
}

/* An AI Agent's (or MCP server's) tool: agentWait.e2e.js, mcp.e2e.js. */
/** The tool node: Candidate → Create and Run and Wait for Result, the phone from the model. */
function waitingTool(
	credential,
	{ waitAtMost = 10, waitUnit = 'minutes', options = {}, name = WAIT_NODE } = {},
) {
	return {
		id: crypto.randomUUID(),
		name,
		type: `${ACTION_TYPE}Tool`,
		typeVersion: 2,
		position: [420, 240],
		credentials: { cisAutoCallApi: { id: String(credential.id), name: credential.name } },
		parameters: {
			authentication: 'accessToken',
			descriptionType: 'manual',
			toolDescription:
				'Phones a real person now and waits until the call ended; answers with what the person said.',
			resource: 'candidate',
			operation: 'createAndRunAndWait',
			botSettingsId: 'bot-agent-wait',
			phone:
				"={{ $fromAI('phone', 'Phone number of the person to call, exactly as the user wrote it', 'string') }}",
			waitAtMost,
			waitUnit,
			options: { allowedNumbers: '7999', ...options },
		},
	};
}

/** The lead's way in: n8n's Webhook node "New lead", POST at `leadPath`, answering at once. */
function leadWebhook(leadPath) {
	return {
		parameters: { httpMethod: 'POST', path: leadPath, responseMode: 'onReceived', options: {} },
		id: nodeId(),
		name: 'New lead',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: crypto.randomUUID(),
	};
}

/**
 * The workflow "New lead (Webhook) → Call and wait → CRM update": a production webhook at
 * `leadPath` whose body is `{ phone, crmId }`, Candidate → Create and Run and Wait for Result
 * (bot settings `bot-wait`, Callback Data `{ crmId }`), then `crm` (a No Op named CRM update unless
 * given). With `leads: true` the body is `{ leads: [{ phone, crmId }, ...] }` and a Code node
 * "Leads" makes one item per lead, so that one execution waits for several people.
 */
function callAndWaitWorkflow(
	name,
	{
		leadPath,
		credential,
		waitAtMost,
		waitUnit,
		crm = noOp(CRM_NODE),
		leads = false,
		botSettingsId = 'bot-wait',
		addToTask = null,
	},
) {
	const lead = leadWebhook(leadPath);
	const split = {
		parameters: {
			jsCode: 'return $input.first().json.body.leads.map((lead) => ({ json: lead }));',
		},
		id: nodeId(),
		name: 'Leads',
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		position: [0, 0],
	};
	const from = leads ? '$json' : '$json.body';
	const wait = cisNode(
		WAIT_NODE,
		waitForResultParameters({ from, botSettingsId, waitAtMost, waitUnit, addToTask }),
		credential,
		{ typeVersion: 2 },
	);
	return chain(name, leads ? [lead, split, wait, crm] : [lead, wait, crm]);
}

/**
 * The one execution of a workflow started after `known` (a Set of ids), once its status is one
 * of `statuses`; throws when a second one started, or after timeoutMs.
 */
/**
 * The workflow's executions, waiting ones included: n8n 1.x's public API leaves waiting executions
 * out (measured with 1.123.81); its editor API lists them.
 */
async function executionsWithWaiting(client, workflowId, { includeData = false } = {}) {
	const all = await client.listExecutions(workflowId, { includeData });
	const editor = await client.rawRest(
		'GET',
		`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`,
	);
	const listed = (editor.body && editor.body.data && editor.body.data.results) || [];
	return [
		...all,
		...listed.filter(
			(e) => e.status === 'waiting' && !all.some((a) => String(a.id) === String(e.id)),
		),
	];
}

async function nextExecution(client, workflowId, known, statuses, timeoutMs = 30000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const all = await executionsWithWaiting(client, workflowId, { includeData: true });
		const fresh = all.filter((e) => !known.has(String(e.id)));
		if (fresh.length > 1) throw new Error(`${fresh.length} executions started, expected 1`);
		if (fresh.length === 1 && statuses.includes(fresh[0].status)) return fresh[0];
		if (Date.now() > deadline)
			throw new Error(
				`no execution with status ${statuses.join('/')} within ${timeoutMs} ms (saw ${fresh.map((e) => e.status).join(', ') || 'none'})`,
			);
		await sleep(200);
	}
}

/** The wait marker the simulator received in the Callback Data of the candidate created for `phone`. */
function waitMarkerOf(sim, phone) {
	const paths = [
		'/cis/api/v1/telephony/autoCallCandidate/single',
		'/cis/api/v1/telephony/autoCallCandidate',
	];
	const sent = sim.requests.find(
		(r) => paths.includes(r.path) && r.body && (r.body.phone || [])[0] === phone,
	);
	return sent && sent.body.callbackData && sent.body.callbackData.n8nCisAutoCallWait;
}

/** The service's API path prefix. */
const API = '/cis/api/v1';

/** Waits until the CRM stub received a POST for every (crmId, event) pair; returns those requests. */
function crmResults(crm, pairs, timeoutMs = 30000) {
	return waitFor(
		`the CRM stub to receive ${pairs.map(([id, ev]) => `${ev} of ${id}`).join(', ')}`,
		() => {
			const found = pairs.map(([crmId, event]) =>
				crm.requests.find(
					(r) =>
						r.method === 'POST' &&
						r.path === `/leads/${crmId}/call-results` &&
						r.body &&
						r.body.event === event &&
						r.body.crmId === crmId,
				),
			);
			return found.every(Boolean) ? found : null;
		},
		timeoutMs,
	);
}

/**
 * POSTs a lead ({name, phone, crmId}) to example 1's webhook on `n8nUrl`; it must answer 200 with
 * the new candidate's id. Returns the answer and the API requests the simulator got meanwhile.
 */
async function postLead({ n8nUrl, sim, lead }) {
	const mark = sim.requests.length;
	const res = await httpRequest('POST', `${n8nUrl}/webhook/cis-lead`, { body: lead });
	assert.strictEqual(res.status, 200, `example 1 answered ${res.status} ${res.text}`);
	assert.ok(res.body && res.body.autoCallCandidateId, `answer: ${res.text}`);
	return { res, sent: apiRequestsSince(sim, mark).map((r) => shapeOf(r)) };
}

/** The one request example 1 sends for a lead (Create and Run with the lead-qualification bot). */
function leadCallRequest(lead) {
	return {
		method: 'POST',
		path: `${API}/telephony/autoCallCandidate/single`,
		body: {
			phone: [lead.phone],
			botSettingsId: 'bot-lead-qualification',
			variables: { name: lead.name },
			callbackData: { crmId: lead.crmId },
		},
	};
}

/**
 * Runs example 5b by hand: it must find the campaign's task by name, add the CRM contacts in one
 * batch request and start the task, nothing else. Returns the execution.
 */
async function feedCampaign({ client, sim, workflowId, campaign, taskId }) {
	const mark = sim.requests.length;
	const execution = await client.runWorkflowManually(workflowId);
	assertSuccess(execution);
	assert.deepStrictEqual(
		apiRequestsSince(sim, mark).map((r) => shapeOf(r)),
		[
			{
				method: 'GET',
				path: `${API}/telephony/autoCall`,
				query: { keyword: campaign, sort: '-createdAt', limit: '1', offset: '0' },
			},
			{
				method: 'POST',
				path: `${API}/telephony/autoCallCandidate/batch`,
				body: {
					batch: CRM_CONTACTS.map((c) => ({
						autoCallId: taskId,
						phone: [c.phone],
						variables: { name: c.name },
						callbackData: { crmId: c.crmId },
						clientExternalId: c.crmId,
					})),
					forceStart: false,
				},
			},
			{ method: 'POST', path: `${API}/telephony/autoCall/${taskId}/play` },
		],
	);
	return execution;
}

module.exports = {
	waitingTool,
	leadWebhook,
	waitForResultParameters,
	API,
	crmResults,
	postLead,
	leadCallRequest,
	feedCampaign,
	EVENTS,
	executionsWithWaiting,
	NO_REDIAL,
	eventsMap,
	expectedTaskBody,
	callEndedEvent,
	sleep,
	quietFor,
	waitFor,
	Checks,
	MANUAL,
	manualTrigger,
	codeNode,
	cisNode,
	triggerNode,
	noOp,
	chain,
	outputOf,
	errorOf,
	assertSuccess,
	apiRequestsSince,
	shapeOf,
	simApi,
	tasksPointingAt,
	secretOfTask,
	WAIT_NODE,
	CRM_NODE,
	waitBridgeTrigger,
	callAndWaitWorkflow,
	waitMarkerOf,
	nextExecution,
};
