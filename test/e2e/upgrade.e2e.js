'use strict';
/**
 * Upgrade safety: workflows saved with release 0.1.0 import and run unchanged on the current package.
 * The fixtures in fixtures/0.1.0/ are what 0.1.0 users saved: its example workflows (01-05c, byte for
 * byte the files of the 0.1.0 tag) and two written with 0.1.0's parameter names and node versions:
 * every-operation.json (each operation of the action node, one manual run) and trigger-parameters.json
 * (the trigger in both modes, with the old `secret` parameter and the login credential).
 * They are imported through n8n's REST API as `npm start` imports the examples (the playground's
 * prepareExample: credentials, CRM URL and secret replaced, nothing else), activated and run against
 * the simulator. Checked: the import keeps every node's typeVersion and parameters (n8n does not
 * migrate them), the executions succeed, and the simulator received the requests 0.1.0 sent
 * (operations in order, each person created once).
 */
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const {
	setupPlayground,
	loadExamples,
	prepareExample,
	ACTIVATED_EXAMPLES,
	CRM_CONTACTS,
	ACTION_TYPE,
	TRIGGER_TYPE,
	SIM_TOKEN,
} = require('../../scripts/lib/playground');
const {
	apiRequestsSince,
	shapeOf,
	outputOf,
	assertSuccess,
	waitFor,
	tasksPointingAt,
	secretOfTask,
	callEndedEvent,
	eventsMap,
	sleep,
	crmResults,
	postLead,
	leadCallRequest,
	feedCampaign,
} = require('./harness');

const P = '/cis/api/v1';
const FIXTURES = path.join(__dirname, 'fixtures', '0.1.0');
const OWN_TYPES = [ACTION_TYPE, TRIGGER_TYPE];
const CAMPAIGN = 'Spring campaign';

/** The fixtures written for this test (not examples of 0.1.0), by key. */
const WRITTEN = { every: 'every-operation.json', trigger: 'trigger-parameters.json' };

function readFixture(file) {
	return JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8'));
}

/** name → { typeVersion, parameters } of the package's nodes in a workflow. */
function ownNodes(wf) {
	const map = {};
	for (const n of wf.nodes)
		if (OWN_TYPES.includes(n.type))
			map[n.name] = { type: n.type, typeVersion: n.typeVersion, parameters: n.parameters };
	return map;
}

/** Whether a request carried a token issued by the simulator's login (not the static access token). */
function sentWithLoginToken(request) {
	const auth = String(request.headers.authorization || '');
	return auth.startsWith('Bearer ') && auth !== `Bearer ${SIM_TOKEN}`;
}

/** How many candidates the simulator holds for each phone. */
function createdPerPhone(sim, phones) {
	return Object.fromEntries(
		phones.map((phone) => [
			phone,
			[...sim.state.candidates.values()].filter((c) => c.phone.includes(phone)).length,
		]),
	);
}

module.exports = async function upgradeChecks(ctx) {
	const { client, sim, crm, checks } = ctx;
	const n8nUrl = ctx.n8n.url;
	const examples = loadExamples(FIXTURES);
	const saved = {}; // key → the prepared JSON that was imported
	const wfs = {}; // key → { id, json, triggerUrl? }
	const tasksBefore = new Set(sim.state.tasks.keys());

	const imported = await checks.check(
		"0.1.0 workflows import through the REST API (7 examples, every operation, the trigger's parameters); the 0.1.0 examples activate as npm start set them up",
		async () => {
			// The examples module (earlier in the same n8n) listens on the same webhook paths: free them.
			if (ctx.playground) {
				for (const wf of Object.values(ctx.playground.workflows))
					if (wf.activated) await client.deactivate(wf.id);
			}
			const setup = await setupPlayground({
				client,
				n8nUrl,
				simUrl: sim.url,
				crmUrl: crm.url,
				examples,
			});
			ctx.upgrade = setup;
			assert.deepStrictEqual(Object.keys(setup.workflows), [
				'01',
				'02',
				'03',
				'04',
				'05a',
				'05b',
				'05c',
			]);
			for (const [key, wf] of Object.entries(setup.workflows)) {
				saved[key] = wf.json;
				wfs[key] = wf;
			}
			for (const [key, file] of Object.entries(WRITTEN)) {
				const json = prepareExample(readFixture(file), {
					crmUrl: crm.url,
					credentials: setup.credentials,
					secret: setup.secret,
				});
				const wf = await client.createWorkflow(json);
				saved[key] = json;
				wfs[key] = { id: String(wf.id), json };
			}
			const activated = ACTIVATED_EXAMPLES.filter((key) => wfs[key]);
			for (const key of activated)
				assert.ok(
					(await client.getWorkflow(wfs[key].id)).active,
					`0.1.0 example ${key} is not active`,
				);
			return `${Object.keys(wfs).length} workflows; ${activated.join(', ')} active`;
		},
	);
	if (!imported) {
		checks.skip('0.1.0 workflows run', 'import failed');
		return;
	}

	/** Every package node of every imported workflow as n8n stores it now, against what was saved. */
	async function assertUnchanged() {
		let count = 0;
		const versions = new Set();
		for (const [key, json] of Object.entries(saved)) {
			const stored = ownNodes(await client.getWorkflow(wfs[key].id));
			const want = ownNodes(json);
			assert.deepStrictEqual(
				Object.keys(stored).sort(),
				Object.keys(want).sort(),
				`workflow ${key}: package nodes`,
			);
			for (const [name, node] of Object.entries(want)) {
				assert.strictEqual(
					stored[name].typeVersion,
					node.typeVersion,
					`workflow ${key}, node "${name}": typeVersion ${stored[name].typeVersion}, saved ${node.typeVersion}`,
				);
				assert.deepStrictEqual(
					stored[name].parameters,
					node.parameters,
					`workflow ${key}, node "${name}": parameters changed`,
				);
				versions.add(`${node.type.split('.').pop()} v${node.typeVersion}`);
				count += 1;
			}
		}
		return `${count} nodes (${[...versions].sort().join(', ')})`;
	}

	await checks.check(
		"after import n8n keeps each package node's typeVersion and parameters as 0.1.0 saved them",
		assertUnchanged,
	);

	let callId = null;
	await checks.check(
		'0.1.0 examples 1 + 2: a lead POSTed to example 1 is called once; its results reach the CRM through example 2 (old `secret` parameter)',
		async () => {
			const lead = { name: 'Olga Old', phone: '79990006001', crmId: 'CRM-010' };
			const { res, sent } = await postLead({ n8nUrl, sim, lead });
			assert.deepStrictEqual(sent, [leadCallRequest(lead)]);
			const [ended, changed] = await crmResults(crm, [
				[lead.crmId, 'CALL_ENDED'],
				[lead.crmId, 'CANDIDATE_CHANGED'],
			]);
			assert.strictEqual(ended.body.status, 'ANSWERED');
			assert.strictEqual(ended.body.candidateId, res.body.autoCallCandidateId);
			assert.strictEqual(changed.body.status, 'SUCCESS');
			callId = ended.body.callId;
			const exs = await client.waitForExecutions(wfs['02'].id, 2, 20000);
			for (const e of exs) assertSuccess(e);
			assert.deepStrictEqual(createdPerPhone(sim, [lead.phone]), { [lead.phone]: 1 });
			return `candidate ${res.body.autoCallCandidateId} (created once); ${exs.length} executions of example 2; CRM got CALL_ENDED and CANDIDATE_CHANGED`;
		},
	);

	await checks.check(
		'0.1.0 example 3 (no "callTasks" parameter): the rows become one campaign in one request; every row reaches the CRM',
		async () => {
			const mark = sim.requests.length;
			const ex = await client.runWorkflowManually(wfs['03'].id);
			assertSuccess(ex);
			const sent = apiRequestsSince(sim, mark).map((r) => shapeOf(r));
			const rows = outputOf(ex, 'Rows to call');
			assert.deepStrictEqual(sent, [
				{
					method: 'POST',
					path: `${P}/telephony/autoCallCandidate/single/batch`,
					body: {
						batch: rows.map((r) => ({
							phone: [r.phone],
							variables: { name: r.name },
							callbackData: { crmId: r.crmId },
							clientExternalId: r.crmId,
							botSettingsId: 'bot-lead-qualification',
						})),
					},
				},
			]);
			await crmResults(
				crm,
				rows.flatMap((r) => [
					[r.crmId, 'CALL_ENDED'],
					[r.crmId, 'CANDIDATE_CHANGED'],
				]),
			);
			return `${rows.length} rows → 1 request; CRM got ${rows.length * 2} results`;
		},
	);

	if (!callId) checks.skip('0.1.0 example 4', 'no call id from examples 1 + 2');
	else {
		await checks.check(
			'0.1.0 example 4: depersonalize a call keeping its recording, then delete the recording',
			async () => {
				const url = `${n8nUrl}/webhook/cis-privacy`;
				const r1 = await httpRequest('POST', url, {
					body: { callId, action: 'depersonalize', keepRecording: true },
				});
				assert.strictEqual(r1.status, 200, `answered ${r1.status} ${r1.text}`);
				let call = sim.state.calls.get(callId);
				assert.strictEqual(call.depersonalized, true);
				assert.ok(call.record, 'the recording was deleted although keepRecording was true');
				const r2 = await httpRequest('POST', url, { body: { callId, action: 'deleteRecording' } });
				assert.strictEqual(r2.status, 200, `answered ${r2.status} ${r2.text}`);
				call = sim.state.calls.get(callId);
				assert.strictEqual(call.record, null);
				const exs = await client.waitForExecutions(wfs['04'].id, 2, 20000);
				for (const e of exs) assertSuccess(e);
				return `call ${callId}: depersonalized (recording kept), then recording deleted; 2 executions`;
			},
		);
	}

	await checks.check(
		'0.1.0 examples 5a/5b/5c: activating 5a (trigger v1, New Call Task, 127.0.0.1 URL) created one task; 5b feeds and starts it; the calls reach 5a and the CRM; 5c stops it',
		async () => {
			const triggerUrl = wfs['05a'].triggerUrl;
			const mine = tasksPointingAt(sim, triggerUrl).filter((t) => !tasksBefore.has(t.id));
			assert.strictEqual(mine.length, 1, `tasks created for 0.1.0 example 5a: ${mine.length}`);
			const task = mine[0];
			assert.strictEqual(task.name, CAMPAIGN);
			await feedCampaign({
				client,
				sim,
				workflowId: wfs['05b'].id,
				campaign: CAMPAIGN,
				taskId: task.id,
			});
			const exs = await client.waitForExecutions(wfs['05a'].id, CRM_CONTACTS.length * 2, 30000);
			for (const e of exs) assertSuccess(e);
			await waitFor(
				'the CRM results of the 0.1.0 campaign',
				() =>
					CRM_CONTACTS.every((c) =>
						['CALL_ENDED', 'CANDIDATE_CHANGED'].every((ev) =>
							crm.requests.some(
								(r) =>
									r.path === `/leads/${c.crmId}/call-results` &&
									r.body.event === ev &&
									r.body.campaign === CAMPAIGN &&
									r.body.taskId === task.id,
							),
						),
					),
				20000,
			);
			const mark = sim.requests.length;
			assertSuccess(await client.runWorkflowManually(wfs['05c'].id));
			const stop = apiRequestsSince(sim, mark).map((r) => `${r.method} ${r.path}`);
			assert.deepStrictEqual(stop, [
				`GET ${P}/telephony/autoCall`,
				`POST ${P}/telephony/autoCall/${task.id}/halted`,
			]);
			assert.strictEqual(sim.state.tasks.get(task.id).status, 'HALTED');
			return `task ${task.id}: ${CRM_CONTACTS.length} contacts in 1 request, started, ${exs.length} executions of 5a, stopped (HALTED)`;
		},
	);

	await checks.check(
		"every operation with 0.1.0's parameters (one manual run): 14 operations, one request each in order, each phone created once",
		async () => {
			const calls = [
				sim.addCall({ id: 'upgrade-0.1.0-call-1', callTo: '79990007011' }),
				sim.addCall({ id: 'upgrade-0.1.0-call-2', callTo: '79990007012' }),
			];
			const hook = `${crm.url}/hooks/upgrade-task`;
			const mark = sim.requests.length;
			const ex = await client.runWorkflowManually(wfs.every.id);
			assertSuccess(ex);
			const sent = apiRequestsSince(sim, mark).filter((r) => !r.path.startsWith('/api/v1/auth/'));
			const logins = apiRequestsSince(sim, mark).length - sent.length;
			const ran = Object.keys(ex.data.resultData.runData);
			const what = `nodes run: ${ran.join(', ')}; requests: ${sent.map((r) => `${r.method} ${r.path}`).join(', ')}`;
			assert.strictEqual(ran.length, saved.every.nodes.length, what);
			const taskId = outputOf(ex, 'Create task')[0].autoCallId;
			const candidateId = outputOf(ex, 'Call one person')[0].autoCallCandidateId;
			assert.ok(
				taskId && sim.state.tasks.has(taskId),
				`Create task output: ${JSON.stringify(outputOf(ex, 'Create task'))}`,
			);
			assert.ok(
				candidateId && sim.state.candidates.has(candidateId),
				`Call one person output: ${JSON.stringify(outputOf(ex, 'Call one person'))}`,
			);
			assert.deepStrictEqual(
				sent.map((r) => `${r.method} ${r.path}`),
				[
					`POST ${P}/telephony/autoCall`, // Call Task → Create
					`GET ${P}/telephony/autoCall/${taskId}`, // Call Task → Get (login credential)
					`GET ${P}/telephony/autoCall`, // Call Task → Get Many
					`POST ${P}/telephony/autoCallCandidate`, // Candidate → Add to Task
					`POST ${P}/telephony/autoCallCandidate/cancel`, // Candidate → Cancel
					`POST ${P}/telephony/autoCallCandidate/batch`, // Candidate → Add Many to Task
					`POST ${P}/telephony/autoCall/${taskId}/play`, // Call Task → Start
					`POST ${P}/telephony/autoCall/${taskId}/pause`, // Call Task → Pause
					`POST ${P}/telephony/autoCallCandidate/single`, // Candidate → Create and Run
					`POST ${P}/telephony/autoCallCandidate/${candidateId}/depersonalization`, // Candidate → Depersonalize
					`POST ${P}/calls/${calls[0].id}/depersonalization`, // Call → Depersonalize
					`DELETE ${P}/calls/${calls[1].id}/record`, // Call → Delete Recording
					`POST ${P}/telephony/autoCallCandidate/single/batch`, // Candidate → Create Batch From Template
					`POST ${P}/telephony/autoCall/${taskId}/halted`, // Call Task → Stop
				],
			);
			// the values 0.1.0's parameters carry arrive as they did
			const [create, , list, add, cancel, addMany, , , single, forget, forgetCall, , batch] = sent;
			assert.strictEqual(create.body.name, 'Upgrade 0.1.0 task');
			assert.strictEqual(create.body.defaultExecData, 'bot-upgrade');
			assert.strictEqual(create.body.taskComment, 'saved with 0.1.0');
			assert.strictEqual(
				create.body.cps,
				0.98,
				`cps for one call every 2 s (the API's 1 - N/100): ${create.body.cps}`,
			);
			assert.ok(
				sentWithLoginToken(sent[1]),
				`Get task (authentication: login) sent ${sent[1].headers.authorization ? 'the access token' : 'no token'}`,
			);
			assert.strictEqual(
				create.headers.authorization,
				`Bearer ${SIM_TOKEN}`,
				'Create task (authentication: accessToken) did not send the access token',
			);
			assert.deepStrictEqual(create.body.redialStrategyOptions.busy, {
				redial: true,
				time: 600,
				count: 2,
			});
			assert.deepStrictEqual(create.body.redialStrategyOptions.noAnswer, { redial: false });
			assert.deepStrictEqual(create.body.webhookUrls, [
				{
					url: hook,
					partialResults: false,
					delay: 0,
					events: eventsMap(['CALL_ENDED', 'CANDIDATE_CHANGED']),
				},
			]);
			assert.deepStrictEqual(
				{ keyword: list.query.keyword, sort: list.query.sort, limit: list.query.limit },
				{ keyword: 'Upgrade 0.1.0 task', sort: '-createdAt', limit: '1' },
			);
			assert.deepStrictEqual(
				{
					phone: add.body.phone,
					variables: add.body.variables,
					callbackData: add.body.callbackData,
					clientExternalId: add.body.clientExternalId,
					forceStart: add.body.forceStart,
				},
				{
					phone: ['79990007001'],
					variables: { name: 'Uma' },
					callbackData: { crmId: 'U-1' },
					clientExternalId: 'U-1',
					forceStart: false,
				},
			);
			assert.deepStrictEqual(cancel.query, { autoCallId: taskId, phone: '79990007001' });
			assert.deepStrictEqual(addMany.body, {
				batch: [
					['U-2', 'Boris', '79990007002'],
					['U-3', 'Vera', '79990007003'],
				].map(([crmId, name, phone]) => ({
					autoCallId: taskId,
					phone: [phone],
					variables: { name },
					callbackData: { crmId },
					clientExternalId: crmId,
				})),
				forceStart: false,
			});
			assert.deepStrictEqual(single.body, {
				phone: ['79990007004'],
				botSettingsId: 'bot-upgrade-single',
				variables: { name: 'Ivan' },
				callbackData: { crmId: 'U-4' },
			});
			assert.deepStrictEqual(forget.body, { skipDeleteRecord: true });
			assert.deepStrictEqual(forgetCall.body, { skipDeleteRecord: false });
			assert.deepStrictEqual(
				batch.body.batch.map((b) => [b.phone[0], b.botSettingsId, b.clientExternalId]),
				[
					['79990007005', 'bot-upgrade-batch', 'U-5'],
					['79990007006', 'bot-upgrade-batch', 'U-6'],
				],
			);
			// what the service holds afterwards
			const phones = [
				'79990007001',
				'79990007002',
				'79990007003',
				'79990007004',
				'79990007005',
				'79990007006',
			];
			const perPhone = createdPerPhone(sim, phones);
			assert.deepStrictEqual(
				perPhone,
				Object.fromEntries(phones.map((p) => [p, 1])),
				`candidates per phone: ${JSON.stringify(perPhone)}`,
			);
			assert.strictEqual(
				[...sim.state.candidates.values()].find(
					(c) => c.taskId === taskId && c.phone[0] === '79990007001',
				).status,
				'CANCELLED',
			);
			assert.strictEqual(sim.state.candidates.get(candidateId).depersonalized, true);
			assert.strictEqual(sim.state.calls.get(calls[0].id).depersonalized, true);
			assert.strictEqual(sim.state.calls.get(calls[0].id).record, null);
			assert.strictEqual(sim.state.calls.get(calls[1].id).record, null);
			assert.strictEqual(sim.state.tasks.get(taskId).status, 'HALTED');
			assert.strictEqual(outputOf(ex, 'Create campaign').length, 2);
			return `14 requests (+${logins} login), 6 phones created once each, task ${taskId} HALTED`;
		},
	);

	await checks.check(
		'the 0.1.0 trigger in both modes: New Call Task with the login credential registers its 127.0.0.1 URL; the old `secret` parameter lets events in (401 without it); both start the workflow',
		async () => {
			const json = saved.trigger;
			const [existing, newTask] = json.nodes.filter((n) => n.type === TRIGGER_TYPE);
			const urlOf = (node) => `${n8nUrl}/webhook/${node.webhookId}/webhook`;
			const mark = sim.requests.length;
			await client.activate(wfs.trigger.id);
			const tasks = await waitFor(
				"the trigger's task",
				() => {
					const found = tasksPointingAt(sim, urlOf(newTask));
					return found.length ? found : null;
				},
				20000,
			);
			await sleep(300);
			assert.strictEqual(
				tasks.length,
				1,
				`tasks pointing at the New Call Task trigger: ${tasks.length}`,
			);
			const task = tasks[0];
			const creates = apiRequestsSince(sim, mark).filter(
				(r) => r.method === 'POST' && r.path === `${P}/telephony/autoCall`,
			);
			assert.strictEqual(creates.length, 1, `POST telephony/autoCall sent ${creates.length} times`);
			const body = creates[0].body;
			assert.strictEqual(body.name, 'Upgrade 0.1.0 trigger task');
			assert.strictEqual(body.defaultExecData, 'bot-upgrade-trigger');
			assert.strictEqual(body.taskComment, 'trigger saved with 0.1.0');
			const target = body.webhookUrls.find((w) => String(w.url).startsWith(urlOf(newTask)));
			assert.ok(target, `no webhook target for the trigger: ${JSON.stringify(body.webhookUrls)}`);
			assert.deepStrictEqual(
				{ partialResults: target.partialResults, delay: target.delay, events: target.events },
				{ partialResults: true, delay: 0, events: eventsMap(['CALL_ENDED', 'CANDIDATE_CHANGED']) },
			);
			assert.ok(
				sentWithLoginToken(creates[0]),
				"the task was not created with the login credential's token",
			);
			const post = (url, secret, event) =>
				httpRequest(
					'POST',
					`${url}${secret === undefined ? '' : `?secret=${encodeURIComponent(secret)}`}`,
					{ body: event },
				);
			const without = await post(
				urlOf(existing),
				undefined,
				callEndedEvent('task-from-template', 'U-T0'),
			);
			assert.strictEqual(
				without.status,
				401,
				`Existing mode without the secret answered ${without.status} ${without.text}`,
			);
			const r1 = await post(
				urlOf(existing),
				ctx.upgrade.secret,
				callEndedEvent('task-from-template', 'U-T1'),
			);
			assert.strictEqual(
				r1.status,
				200,
				`Existing mode with the secret answered ${r1.status} ${r1.text}`,
			);
			const r2 = await post(
				urlOf(newTask),
				secretOfTask(task, urlOf(newTask)),
				callEndedEvent(task.id, 'U-T2'),
			);
			assert.strictEqual(
				r2.status,
				200,
				`New Call Task mode with the task's secret answered ${r2.status} ${r2.text}`,
			);
			const exs = await client.waitForExecutions(wfs.trigger.id, 2, 20000);
			assert.strictEqual(exs.length, 2, `executions: ${exs.length}`);
			for (const e of exs) assertSuccess(e);
			const crmIds = exs.map((e) => outputOf(e, 'Received')[0].callbackData.crmId).sort();
			assert.deepStrictEqual(crmIds, ['U-T1', 'U-T2']);
			return `task ${task.id} (1 created with the login credential's token); Existing: 401 without secret, 200 with it; 2 executions`;
		},
	);

	await checks.check(
		'after activating and running, n8n still holds each package node with its 0.1.0 typeVersion and parameters',
		assertUnchanged,
	);
};
