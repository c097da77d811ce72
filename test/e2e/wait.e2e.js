'use strict';
/**
 * Create and Run and Wait for Result in a real n8n: one workflow "lead (Webhook) → call and wait →
 * CRM update" and a published CIS Auto-Call Trigger (Existing Task or Template, its URL in the
 * default template of the simulator) that hands the call's events to the waiting execution.
 * Cases: answered on the first attempt; a POST straight to the waiting address without the
 * package's key resumes nothing (with n8n 2.x's token too); the trigger workflow does not run for
 * the waiting call (option off); no answer then answered on a redial; never reached (attempts run
 * out); two leads waiting at once; forged events (no secret; authenticated but naming another
 * execution or address); the answered CALL_ENDED and the CANDIDATE_CHANGED at the same moment; a
 * repeated delivery; the time limit. On n8n 1.x and 2.x alike.
 */
const assert = require('assert');
const crypto = require('crypto');
const http = require('http');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const { webhookTarget } = require('../../scripts/lib/playground');
const {
	chain,
	noOp,
	manualTrigger,
	codeNode,
	cisNode,
	outputOf,
	errorOf,
	assertSuccess,
	sleep,
	quietFor,
	waitFor,
	NO_REDIAL,
	WAIT_NODE: WAIT,
	CRM_NODE: CRM,
	waitBridgeTrigger,
	callAndWaitWorkflow,
	waitMarkerOf,
	nextExecution,
	executionsWithWaiting,
	waitForResultParameters,
} = require('./harness');

const SECRET = 'e2e-wait-secret-0123456789abcdef';
const TRIGGER = 'CIS Trigger';
const LEAD = 'New lead';
const EVENTS = ['CALL_ENDED', 'CANDIDATE_CHANGED'];
/** The bot of the workflow whose call task redials (its task is made while the template redials). */
const REDIAL_BOT = 'bot-wait-redial';
/** No answer → 2 redials, 60 simulated seconds apart (3 s at the suite's time scale). */
const REDIALS = {
	...NO_REDIAL,
	redialStrategyEn: true,
	noAnswer: { redial: true, count: 2, time: 60 },
};

/**
 * A tiny HTTP listener on 127.0.0.1 that records what it receives and answers 200: "elsewhere"
 * (an address that must never be called) or a catcher of what the simulator sends.
 */
function listener() {
	const requests = [];
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			let body;
			try {
				body = JSON.parse(text);
			} catch {
				body = undefined;
			}
			requests.push({ method: req.method, url: req.url, headers: req.headers, text, body });
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{}');
		});
	});
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = /** @type {import('net').AddressInfo} */ (server.address());
			resolve({
				port,
				host: `127.0.0.1:${port}`,
				url: `http://127.0.0.1:${port}`,
				requests,
				close: () => new Promise((done) => server.close(() => done())),
			});
		});
	});
}

module.exports = async function waitChecks(ctx) {
	const { client, sim, creds, checks, version, n8n } = ctx;
	const secretCred = await client.createCredential({
		name: 'e2e wait secret',
		type: 'cisAutoCallWebhookSecretApi',
		data: { secret: SECRET },
	});
	const triggerWebhookId = crypto.randomUUID();
	const triggerUrl = `${n8n.url}/webhook/${triggerWebhookId}/webhook`;
	const triggerWf = await client.createWorkflow(
		chain(`e2e wait bridge ${version}`, [
			waitBridgeTrigger(TRIGGER, triggerWebhookId, secretCred),
			noOp(),
		]),
	);

	/** The workflow "New lead (Webhook) → Call and wait → CRM update". */
	const waitWorkflow = (name, leadPath, waitAtMost, waitUnit, botSettingsId = 'bot-wait') =>
		client.createWorkflow(
			callAndWaitWorkflow(name, {
				leadPath,
				credential: creds.token,
				waitAtMost,
				waitUnit,
				botSettingsId,
			}),
		);
	const leadPath = `e2e-wait-lead-${crypto.randomUUID()}`;
	const waitWf = await waitWorkflow(`e2e wait ${version}`, leadPath, 10, 'minutes');
	const shortPath = `e2e-wait-short-${crypto.randomUUID()}`;
	const shortWf = await waitWorkflow(`e2e wait 1 minute ${version}`, shortPath, 1, 'minutes');
	const redialPath = `e2e-wait-redial-${crypto.randomUUID()}`;
	const redialWf = await waitWorkflow(
		`e2e wait with redials ${version}`,
		redialPath,
		10,
		'minutes',
		REDIAL_BOT,
	);
	const triggerTarget = webhookTarget(`${triggerUrl}?secret=${SECRET}`, EVENTS);

	const ready = await checks.check(
		'wait: the trigger (Existing Task or Template) and the workflow lead → call and wait → CRM update are published',
		async () => {
			await client.activate(triggerWf.id);
			await client.activate(waitWf.id);
			await client.activate(shortWf.id);
			await client.activate(redialWf.id);
			sim.setDefaultTemplate({ webhookUrls: [triggerTarget], redialStrategyOptions: NO_REDIAL });
			return `trigger ${triggerWf.id}, workflow ${waitWf.id}`;
		},
	);
	if (!ready) return;

	const cleanUp = async () => {
		for (const wf of [redialWf, shortWf, waitWf, triggerWf])
			await client.deactivate(wf.id).catch(() => {});
		sim.setDefaultTemplate({ webhookUrls: [] });
	};

	/** The one execution of the wait workflow started after `known`, once its status is one of `statuses`. */
	const executionOf = (known, statuses, timeoutMs = 30000, workflowId = waitWf.id) =>
		nextExecution(client, workflowId, known, statuses, timeoutMs);
	const ids = async (workflowId = waitWf.id) =>
		new Set((await executionsWithWaiting(client, workflowId)).map((e) => String(e.id)));
	const markerOf = (phone) => waitMarkerOf(sim, phone);

	await checks.check(
		'wait: a lead answered on the first attempt → the execution waits, then continues once with the result, its own Callback Data and no key',
		async () => {
			const known = await ids();
			const triggerRuns = (await client.listExecutions(triggerWf.id)).length;
			sim.setOutcome('79995550001', { attempts: ['ANSWERED'], result: { interested: 'yes' } });
			const answer = await client.callWebhook(leadPath, { phone: '79995550001', crmId: 'W-1' });
			assert.strictEqual(
				answer.status,
				200,
				`lead webhook answered ${answer.status} ${answer.text}`,
			);
			let ex;
			try {
				ex = await executionOf(known, ['success', 'error', 'crashed']);
			} catch (error) {
				// What the trigger and the waiting node answered, to tell where the hand-over stopped.
				const deliveries = sim.webhookDeliveries
					.filter((d) => d.url.startsWith(triggerUrl))
					.map((d) => [d.event, d.status]);
				const editorList0 = await client.rawRest(
					'GET',
					`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: waitWf.id }))}`,
				);
				const waitingNow = (
					(editorList0.body && editorList0.body.data && editorList0.body.data.results) ||
					[]
				)
					.filter((e) => e.status === 'waiting')
					.map((e) => e.id);
				const marker = markerOf('79995550001');
				let knock = 'no execution waiting';
				if (waitingNow.length && marker) {
					const url = new URL(`${n8n.url}/webhook-waiting/${waitingNow[0]}/${marker.node}`);
					if (marker.token) url.searchParams.set('signature', marker.token);
					const r = await httpRequest('POST', url.toString(), {
						body: { cisAutoCallResume: { key: marker.key, results: {} } },
					});
					const r2 = await httpRequest('POST', url.toString(), {
						body: { cisAutoCallResume: { key: 'e'.repeat(64), results: {} } },
					});
					knock = `${r.status} ${r.text}; a wrong key → ${r2.status} ${r2.text}; marker ${JSON.stringify({ ...marker, key: '…' })}`;
				}
				const editorList = await client.rawRest(
					'GET',
					`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: waitWf.id }))}`,
				);
				const listed = (
					(editorList.body && editorList.body.data && editorList.body.data.results) ||
					[]
				).map((e) => [e.id, e.status, e.finished]);
				throw new Error(
					`${error.message}; editor list ${JSON.stringify(listed)} (${editorList.status}); deliveries ${JSON.stringify(deliveries)}; waiting ${JSON.stringify(waitingNow)}; the key with no results → ${knock}; n8n: ${n8n.logs.slice(-15).join(' | ')}`,
				);
			}
			assert.strictEqual(
				ex.status,
				'success',
				`execution ${ex.id} ended ${ex.status}: ${JSON.stringify(errorOf(ex))}`,
			);
			const [result] = outputOf(ex, WAIT);
			assert.strictEqual(outputOf(ex, WAIT).length, 1);
			assert.strictEqual(result.status, 'Answered', JSON.stringify(result));
			assert.deepStrictEqual(result.callbackData, { crmId: 'W-1' });
			assert.deepStrictEqual(result.result, { interested: 'yes' });
			assert.strictEqual(outputOf(ex, CRM)[0].status, 'Answered');
			const marker = markerOf('79995550001');
			assert.ok(marker && /^[0-9a-f]{64}$/.test(marker.key), 'the candidate carried no wait key');
			assert.ok(!JSON.stringify(ex.data).includes(marker.key), 'the key is in the execution data');
			if (version.startsWith('2.'))
				assert.ok(marker.token, 'n8n 2.x: the resume token was not carried');
			await quietFor(
				1000,
				'a run of the trigger workflow for the waiting call, if the trigger started one, reaches n8n',
			);
			assert.strictEqual(
				(await client.listExecutions(triggerWf.id)).length,
				triggerRuns,
				'the trigger workflow ran for the waiting call',
			);
			assert.strictEqual(sim.createdByPhone()['79995550001'], 1);
			return `execution ${ex.id}: ${JSON.stringify({ status: result.status, callId: result.callId, callbackData: result.callbackData })}`;
		},
	);

	await checks.check(
		'wait: a test run from the editor (Execute workflow) waits and continues with the result as a production run does',
		async () => {
			const wait = cisNode(WAIT, waitForResultParameters(), creds.token, { typeVersion: 2 });
			const manualWf = await client.createWorkflow(
				chain(`e2e wait test run ${version}`, [
					manualTrigger(),
					codeNode('Lead', [{ phone: '79995550071', crmId: 'M-1' }]),
					wait,
					noOp(CRM),
				]),
			);
			sim.setOutcome('79995550071', { attempts: ['ANSWERED'], result: { manual: true } });
			const ex = await client.runWorkflowManually(manualWf.id, {
				timeoutMs: 60000,
				untilNode: CRM,
			});
			assert.strictEqual(
				ex.status,
				'success',
				`execution ${ex.id} ended ${ex.status}: ${JSON.stringify(errorOf(ex))}`,
			);
			assert.strictEqual(ex.mode, 'manual');
			assert.deepStrictEqual(
				outputOf(ex, CRM).map((i) => [i.status, i.result, i.callbackData]),
				[['Answered', { manual: true }, { crmId: 'M-1' }]],
			);
			assert.strictEqual(sim.createdByPhone()['79995550071'], 1);
			return `manual execution ${ex.id}: waited, then Answered`;
		},
	);

	await checks.check(
		'wait: Add to Task and Wait for Result → the lead is added to a call task whose events reach the trigger, the task starts, the execution waits and continues once with the result',
		async () => {
			const task = sim.state.createTask({
				body: sim.state.taskBodyFromTemplate(
					sim.state.defaultTemplate,
					'bot-wait-task',
					'e2e add and wait',
				),
				source: 'autoCall',
			});
			sim.setTaskWebhooks(task.id, [triggerTarget]);
			const addPath = `e2e-wait-add-${crypto.randomUUID()}`;
			const addWf = await client.createWorkflow(
				callAndWaitWorkflow(`e2e add to task and wait ${version}`, {
					leadPath: addPath,
					credential: creds.token,
					waitAtMost: 10,
					waitUnit: 'minutes',
					addToTask: { taskId: String(task.id), forceStart: true },
				}),
			);
			await client.activate(addWf.id);
			try {
				sim.setOutcome('79995550061', { attempts: ['ANSWERED'], result: { added: true } });
				const answer = await client.callWebhook(addPath, { phone: '79995550061', crmId: 'A-1' });
				assert.strictEqual(
					answer.status,
					200,
					`lead webhook answered ${answer.status} ${answer.text}`,
				);
				const ex = await nextExecution(
					client,
					addWf.id,
					new Set(),
					['success', 'error', 'crashed'],
					40000,
				);
				assert.strictEqual(
					ex.status,
					'success',
					`execution ${ex.id} ended ${ex.status}: ${JSON.stringify(errorOf(ex))}`,
				);
				assert.deepStrictEqual(
					outputOf(ex, WAIT).map((i) => [i.status, i.taskId, i.result, i.callbackData]),
					[['Answered', String(task.id), { added: true }, { crmId: 'A-1' }]],
				);
				assert.strictEqual(outputOf(ex, CRM).length, 1);
				const added = sim.requests.filter(
					(r) =>
						r.path === '/cis/api/v1/telephony/autoCallCandidate' &&
						r.method === 'POST' &&
						r.body &&
						(r.body.phone || [])[0] === '79995550061',
				);
				assert.strictEqual(added.length, 1, `${added.length} Add to Task requests`);
				assert.ok(
					!JSON.stringify(ex.data).includes(added[0].body.callbackData.n8nCisAutoCallWait.key),
					'the key is in the execution data',
				);
				return `execution ${ex.id}: Answered, task ${task.id}`;
			} finally {
				await client.deactivate(addWf.id).catch(() => {});
			}
		},
	);

	await checks.check(
		"wait: a POST straight to /webhook-waiting/<id>/<node> without the package's key resumes nothing; the call's result still does",
		async () => {
			const known = await ids();
			// A long call: time to knock on the waiting address while the execution waits.
			sim.setOutcome('79995550002', {
				attempts: [{ status: 'ANSWERED', durationSec: 160 }],
				result: { late: true },
			});
			const answer = await client.callWebhook(leadPath, { phone: '79995550002', crmId: 'W-2' });
			assert.strictEqual(answer.status, 200);
			const waiting = await executionOf(known, ['waiting'], 20000);
			const marker = markerOf('79995550002');
			const url = new URL(`${n8n.url}/webhook-waiting/${waiting.id}/${marker.node}`);
			if (marker.token) url.searchParams.set('signature', marker.token);
			const forged = await httpRequest('POST', url.toString(), {
				body: { cisAutoCallResume: { results: { 0: { outcome: 'answered' } } } },
			});
			const noToken = await httpRequest(
				'POST',
				`${n8n.url}/webhook-waiting/${waiting.id}/${marker.node}`,
				{ body: { cisAutoCallResume: { key: 'f'.repeat(64) } } },
			);
			assert.strictEqual(forged.status, 401, `without the key: ${forged.status} ${forged.text}`);
			assert.ok(
				[401, 404].includes(noToken.status) || version.startsWith('1.'),
				`without the token: ${noToken.status}`,
			);
			assert.ok(
				noToken.status !== 200 || !/Workflow was started|resumed":true/.test(noToken.text),
				`a wrong key resumed: ${noToken.text}`,
			);
			const still = await client.getExecution(waiting.id);
			assert.strictEqual(
				still.status,
				'waiting',
				`after the forged resumes the execution is ${still.status}`,
			);
			const ex = await executionOf(known, ['success', 'error', 'crashed'], 40000);
			assert.strictEqual(ex.status, 'success');
			assert.deepStrictEqual(
				outputOf(ex, WAIT).map((i) => [i.status, i.callbackData]),
				[['Answered', { crmId: 'W-2' }]],
			);
			return `forged → ${forged.status}, wrong key without token → ${noToken.status}; execution ${ex.id} continued with the call's result`;
		},
	);

	/* ---------------------------------------------------------------- more cases */

	const FINISHED = ['success', 'error', 'crashed', 'canceled'];
	/** The `n` executions of a workflow started after `known`, once each has one of `statuses` (oldest first). */
	async function executionsOf(known, n, statuses, timeoutMs = 30000, workflowId = waitWf.id) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const all = await executionsWithWaiting(client, workflowId, { includeData: true });
			const fresh = all.filter((e) => !known.has(String(e.id)));
			if (fresh.length > n) throw new Error(`${fresh.length} executions started, expected ${n}`);
			if (fresh.length === n && fresh.every((e) => statuses.includes(e.status)))
				return fresh.sort((a, b) => Number(a.id) - Number(b.id));
			if (Date.now() > deadline)
				throw new Error(
					`not ${n} executions with status ${statuses.join('/')} within ${timeoutMs} ms (saw ${fresh.map((e) => `${e.id} ${e.status}`).join(', ') || 'none'})`,
				);
			await sleep(200);
		}
	}
	/** How many times a node ran in an execution. */
	const runsOf = (ex, name) =>
		((ex.data && ex.data.resultData && ex.data.resultData.runData[name]) || []).length;
	/** The CALL_ENDED events the simulator produced for a phone, in order. */
	const callsOf = (phone) =>
		sim.events
			.filter((e) => e.event === 'CALL_ENDED' && e.payload.callTo === phone)
			.map((e) => e.payload);
	/** The events of one kind the simulator produced for the candidate(s) of a phone. */
	const candidateEventsOf = (phone, event) => {
		const candidates = new Set(callsOf(phone).map((c) => c.candidateId));
		return sim.events
			.filter((e) => e.event === event && candidates.has(e.payload.candidateId))
			.map((e) => e.payload);
	};
	/** A POST to the trigger's production URL, with the trigger's secret unless told otherwise (`secret: null`: no ?secret= at all). */
	const deliver = (body, { secret = SECRET, headers = {} } = {}) =>
		httpRequest(
			'POST',
			secret === null ? triggerUrl : `${triggerUrl}?secret=${encodeURIComponent(secret)}`,
			{ body, headers },
		);
	/** id → "status stoppedAt" of every execution of a workflow: what a resume would change. */
	const statesOf = async (workflowId) =>
		Object.fromEntries(
			(await executionsWithWaiting(client, workflowId)).map((e) => [
				String(e.id),
				`${e.status} ${e.stoppedAt || ''}`,
			]),
		);
	/** Until the simulator has nothing left to send (at most `ms`). */
	const settle = (ms = 15000) => Promise.race([sim.idle(), sleep(ms)]);
	const randomKey = () => crypto.randomBytes(32).toString('hex');
	const resultOf = (ex) =>
		outputOf(ex, WAIT).map((i) => ({
			status: i.status,
			callStatus: i.callStatus,
			callId: i.callId,
			result: i.result,
			callbackData: i.callbackData,
			endedBy: i.endedBy,
		}));

	/** A lead of the workflow whose call task redials: the template redials while that task is made, and only then. */
	async function redialLead(phone, crmId) {
		sim.setDefaultTemplate({ redialStrategyOptions: REDIALS });
		try {
			const answer = await client.callWebhook(redialPath, { phone, crmId });
			assert.strictEqual(
				answer.status,
				200,
				`lead webhook answered ${answer.status} ${answer.text}`,
			);
			await waitFor(`the candidate of ${phone}`, () => markerOf(phone), 20000);
		} finally {
			sim.setDefaultTemplate({ redialStrategyOptions: NO_REDIAL });
		}
		const task = [...sim.state.tasks.values()].find((t) => t.body.defaultExecData === REDIAL_BOT);
		assert.ok(
			task && task.body.redialStrategyOptions.redialStrategyEn,
			'the call task of the redial bot does not redial',
		);
	}

	/**
	 * A lead of the wait workflow whose call's events the simulator sends to a catcher instead of the
	 * trigger: its waiting execution and the CALL_ENDED and CANDIDATE_CHANGED exactly as sent.
	 */
	async function waitingWithCapturedEvents(phone, crmId, script) {
		const known = await ids();
		const catcher = await listener();
		sim.setDefaultTemplate({ webhookUrls: [webhookTarget(`${catcher.url}/events`, EVENTS)] });
		try {
			sim.setOutcome(phone, script);
			const answer = await client.callWebhook(leadPath, { phone, crmId });
			assert.strictEqual(
				answer.status,
				200,
				`lead webhook answered ${answer.status} ${answer.text}`,
			);
			const waiting = await executionOf(known, ['waiting'], 20000);
			const sent = (event) =>
				catcher.requests.find(
					(r) =>
						r.body &&
						r.body.event === event &&
						r.body.callbackData &&
						r.body.callbackData.crmId === crmId,
				);
			await waitFor(
				'the simulator sent CALL_ENDED and CANDIDATE_CHANGED',
				() => sent('CALL_ENDED') && sent('CANDIDATE_CHANGED'),
				20000,
			);
			return {
				known,
				waiting,
				callEnded: sent('CALL_ENDED'),
				candidateChanged: sent('CANDIDATE_CHANGED'),
			};
		} finally {
			sim.setDefaultTemplate({ webhookUrls: [triggerTarget] });
			await catcher.close();
		}
	}

	await checks.check(
		'wait: no answer, then answered on a redial → one resume, with the answered call (status "Answered"); CRM update runs once',
		async () => {
			const phone = '79995550011';
			const known = await ids(redialWf.id);
			sim.setOutcome(phone, {
				attempts: ['NOANSWER', 'ANSWERED'],
				result: { interested: 'later' },
			});
			await redialLead(phone, 'R-1');
			// The unanswered call reached the trigger while the person is still to be redialled: answered 503,
			// so that the service keeps it until the wait is over (it decides "Not reached" and its status).
			await waitFor('the unanswered call reached the trigger', () =>
				sim.webhookDeliveries.some(
					(d) =>
						d.url.startsWith(triggerUrl) &&
						d.event === 'CALL_ENDED' &&
						d.body.callTo === phone &&
						d.body.status === 'NOANSWER' &&
						d.status === 503,
				),
			);
			const between = await executionOf(known, ['waiting', ...FINISHED], 5000, redialWf.id);
			assert.strictEqual(
				between.status,
				'waiting',
				`after the unanswered call the execution is ${between.status}: ${JSON.stringify(resultOf(between))}`,
			);
			const ex = await executionOf(known, FINISHED, 40000, redialWf.id);
			assertSuccess(ex);
			await settle();
			const calls = callsOf(phone);
			assert.deepStrictEqual(
				calls.map((c) => c.status),
				['NOANSWER', 'ANSWERED'],
				'the calls the simulator played',
			);
			const final = await client.getExecution(ex.id);
			assert.deepStrictEqual(resultOf(final), [
				{
					status: 'Answered',
					callStatus: 'ANSWERED',
					callId: calls[1].id,
					result: { interested: 'later' },
					callbackData: { crmId: 'R-1' },
					endedBy: 'CALL_ENDED',
				},
			]);
			assert.strictEqual(runsOf(final, CRM), 1, 'CRM update runs');
			assert.deepStrictEqual(
				outputOf(final, CRM).map((i) => i.status),
				['Answered'],
			);
			assert.strictEqual(
				final.stoppedAt,
				ex.stoppedAt,
				'the execution ran again after it finished',
			);
			assert.strictEqual(
				(await ids(redialWf.id)).size,
				known.size + 1,
				'executions of the workflow',
			);
			assert.strictEqual(sim.createdByPhone()[phone], 1, 'candidates created');
			return `execution ${ex.id} still waiting after the NOANSWER, then continued once with call ${calls[1].id}; CRM update ran ${runsOf(final, CRM)} time`;
		},
	);

	await checks.check(
		'wait: never reached (no answer on every attempt, the person is finished) → the wait ends with "Not reached (last call: No answer)" before the time limit',
		async () => {
			const phone = '79995550012';
			const known = await ids(redialWf.id);
			sim.setOutcome(phone, { attempts: ['NOANSWER'] });
			const started = Date.now();
			await redialLead(phone, 'R-2');
			const ex = await executionOf(known, FINISHED, 60000, redialWf.id);
			const tookMs = Date.now() - started;
			assertSuccess(ex);
			await settle();
			const calls = callsOf(phone);
			assert.deepStrictEqual(
				calls.map((c) => c.status),
				['NOANSWER', 'NOANSWER', 'NOANSWER'],
				'the calls (1 + 2 redials)',
			);
			assert.deepStrictEqual(
				candidateEventsOf(phone, 'CANDIDATE_CHANGED').map((e) => e.status),
				['FAILED'],
			);
			// A time limit would give the input items unchanged (no outcome): a result shows the wait ended on the person being done.
			assert.deepStrictEqual(resultOf(ex), [
				{
					status: 'Not reached (last call: No answer)',
					callStatus: 'NOANSWER',
					callId: calls[2].id,
					result: {},
					callbackData: { crmId: 'R-2' },
					endedBy: 'CANDIDATE_CHANGED',
				},
			]);
			assert.strictEqual(outputOf(ex, WAIT)[0].outcome, 'notReached');
			assert.strictEqual(runsOf(await client.getExecution(ex.id), CRM), 1, 'CRM update runs');
			return `execution ${ex.id}: "${outputOf(ex, WAIT)[0].status}" after ${calls.length} calls, ${(tookMs / 1000).toFixed(1)} s after the lead (Wait at Most: 10 minutes)`;
		},
	);

	await checks.check(
		'wait: two leads waiting at once (two executions) → each gets its own result with its own Callback Data',
		async () => {
			const [phoneA, phoneB] = ['79995550021', '79995550022'];
			const known = await ids();
			sim.setOutcome(phoneA, {
				attempts: [{ status: 'ANSWERED', durationSec: 60 }],
				result: { lead: 'A' },
			});
			sim.setOutcome(phoneB, { attempts: [{ status: 'BUSY', durationSec: 60 }] });
			const answers = await Promise.all([
				client.callWebhook(leadPath, { phone: phoneA, crmId: 'C-A' }),
				client.callWebhook(leadPath, { phone: phoneB, crmId: 'C-B' }),
			]);
			assert.deepStrictEqual(
				answers.map((a) => a.status),
				[200, 200],
			);
			const waitingBoth = await executionsOf(known, 2, ['waiting'], 20000);
			const done = await executionsOf(known, 2, FINISHED, 40000);
			await settle();
			const byLead = {};
			for (const ex of done) {
				assertSuccess(ex);
				byLead[outputOf(ex, LEAD)[0].body.crmId] = await client.getExecution(ex.id);
			}
			assert.deepStrictEqual(Object.keys(byLead).sort(), ['C-A', 'C-B']);
			const [a, b] = [byLead['C-A'], byLead['C-B']];
			assert.strictEqual(
				markerOf(phoneA).execution,
				String(a.id),
				'the marker of A names another execution',
			);
			assert.strictEqual(
				markerOf(phoneB).execution,
				String(b.id),
				'the marker of B names another execution',
			);
			const [callA] = callsOf(phoneA);
			const [callB] = callsOf(phoneB);
			assert.deepStrictEqual(resultOf(a), [
				{
					status: 'Answered',
					callStatus: 'ANSWERED',
					callId: callA.id,
					result: { lead: 'A' },
					callbackData: { crmId: 'C-A' },
					endedBy: 'CALL_ENDED',
				},
			]);
			assert.deepStrictEqual(resultOf(b), [
				{
					status: 'Not reached (last call: Busy)',
					callStatus: 'BUSY',
					callId: callB.id,
					result: {},
					callbackData: { crmId: 'C-B' },
					endedBy: 'CANDIDATE_CHANGED',
				},
			]);
			assert.deepStrictEqual(
				[runsOf(a, CRM), runsOf(b, CRM)],
				[1, 1],
				'CRM update runs per execution',
			);
			return `waiting at once: ${waitingBoth.map((e) => e.id).join(' and ')}; ${a.id} → Answered (C-A), ${b.id} → Not reached (last call: Busy) (C-B)`;
		},
	);

	// Forged events. One execution waits (a call of 15 s) while they arrive; "elsewhere" is an
	// address that must never be called.
	const forgedPhone = '79995550031';
	let forged = null;
	const elsewhere = await listener();
	try {
		await checks.check(
			"wait: a forged event from someone who does not know the trigger's secret is refused (401) and resumes nothing",
			async () => {
				const known = await ids();
				// A call of 30 s at the time scale: the forged events below (three of them now start the
				// trigger's workflow, marked notHandedOver) take their time on a busy machine.
				sim.setOutcome(forgedPhone, {
					attempts: [{ status: 'ANSWERED', durationSec: 600 }],
					result: { real: true },
				});
				const answer = await client.callWebhook(leadPath, { phone: forgedPhone, crmId: 'D-1' });
				assert.strictEqual(answer.status, 200);
				const waiting = await executionOf(known, ['waiting'], 20000);
				const marker = markerOf(forgedPhone);
				forged = { known, waiting, marker };
				const before = {
					wait: await statesOf(waitWf.id),
					redial: await statesOf(redialWf.id),
					trigger: (await ids(triggerWf.id)).size,
				};
				// The forger even knows the marker, key included: only the trigger's secret is missing.
				const event = {
					event: 'CALL_ENDED',
					type: 'OUTGOING',
					id: `forged-${crypto.randomUUID()}`,
					taskId: 'forged-task',
					candidateId: 'forged-candidate',
					status: 'ANSWERED',
					callTo: forgedPhone,
					result: { forged: true },
					callbackData: { crmId: 'D-1', n8nCisAutoCallWait: marker },
					resumeUrl: `${elsewhere.url}/resume`,
				};
				const answers = {
					'no secret': await deliver(event, { secret: null }),
					'a wrong secret': await deliver(event, { secret: 'not-the-secret-0123456789abcdef' }),
					'an empty secret': await deliver(event, { secret: '' }),
					"the secret's first half": await deliver(event, { secret: SECRET.slice(0, 16) }),
				};
				for (const [what, res] of Object.entries(answers))
					assert.strictEqual(res.status, 401, `${what}: ${res.status} ${res.text}`);
				await quietFor(
					1500,
					'a hand-over that a refused delivery might send reaches the server elsewhere',
				);
				assert.strictEqual(
					elsewhere.requests.length,
					0,
					`elsewhere received ${JSON.stringify(elsewhere.requests.map((r) => [r.method, r.url]))}`,
				);
				assert.strictEqual((await client.getExecution(waiting.id)).status, 'waiting');
				assert.deepStrictEqual(
					{
						wait: await statesOf(waitWf.id),
						redial: await statesOf(redialWf.id),
						trigger: (await ids(triggerWf.id)).size,
					},
					before,
					'an execution changed or started',
				);
				return `${Object.entries(answers)
					.map(([what, res]) => `${what} → ${res.status}`)
					.join(', ')}; execution ${waiting.id} still waiting; elsewhere: 0 requests`;
			},
		);

		await checks.check(
			'wait: an authenticated event whose marker names an execution that does not exist, or that tries to point the resume at another address, calls nothing outside this n8n and resumes nothing',
			async () => {
				if (!forged) throw new Error('no waiting execution (the previous check failed)');
				const { waiting, marker } = forged;
				const before = { wait: await statesOf(waitWf.id), redial: await statesOf(redialWf.id) };
				const finishedId = Object.keys(before.wait).find((id) =>
					before.wait[id].startsWith('success'),
				);
				const away = `${elsewhere.url}/webhook-waiting/${waiting.id}/${marker.node}`;
				const pointers = {
					url: away,
					resumeUrl: away,
					webhookUrl: away,
					callbackUrl: away,
					host: elsewhere.host,
					baseUrl: elsewhere.url,
				};
				const event = (tag, markerFields, extra = {}) => ({
					event: 'CALL_ENDED',
					type: 'OUTGOING',
					id: `forged-${tag}-${crypto.randomUUID()}`,
					taskId: 'forged-task',
					candidateId: `forged-${tag}`,
					status: 'ANSWERED',
					callTo: forgedPhone,
					result: { forged: tag },
					callbackData: { crmId: 'D-1', n8nCisAutoCallWait: markerFields },
					...extra,
				});
				const tries = [
					[
						'an execution that does not exist',
						event('none', { ...marker, execution: '987654321', key: randomKey() }),
					],
					[
						"an execution that does not exist, with the waiting one's key",
						event('none-key', { ...marker, execution: '987654322' }),
					],
					[
						'a finished execution',
						event('finished', { ...marker, execution: String(finishedId), key: randomKey() }),
					],
					[
						'the waiting execution with another key, url/resumeUrl/host fields pointing elsewhere',
						event('redirect', { ...marker, key: randomKey(), ...pointers }, pointers),
					],
					[
						"hosts in the marker's fields",
						event(
							'host',
							{
								...marker,
								execution: elsewhere.host,
								node: away,
								token: elsewhere.host,
								key: randomKey(),
							},
							pointers,
						),
					],
					[
						'Host / X-Forwarded-Host / Forwarded headers naming elsewhere',
						event('headers', { ...marker, execution: '987654323', key: randomKey() }),
						{
							host: elsewhere.host,
							'x-forwarded-host': elsewhere.host,
							'x-forwarded-proto': 'http',
							forwarded: `host=${elsewhere.host};proto=http`,
						},
					],
				];
				const answers = [];
				for (const [what, body, headers] of tries) {
					const res = await deliver(body, { headers });
					answers.push([
						what,
						res.status,
						res.body &&
							(res.body.handedOver
								? 'handed over'
								: res.body.ignored || res.body.error || (res.body.received ? 'received' : '')),
					]);
				}
				await quietFor(
					2000,
					'a hand-over that one of these deliveries might send reaches the server elsewhere',
				);
				assert.strictEqual(
					elsewhere.requests.length,
					0,
					`elsewhere received ${JSON.stringify(elsewhere.requests.map((r) => [r.method, r.url, r.text.slice(0, 200)]))}`,
				);
				assert.strictEqual(
					(await client.getExecution(waiting.id)).status,
					'waiting',
					'the waiting execution',
				);
				assert.deepStrictEqual(
					{ wait: await statesOf(waitWf.id), redial: await statesOf(redialWf.id) },
					before,
					'an execution changed or started',
				);
				for (const [what, status] of answers) assert.ok(status < 500, `${what}: ${status}`);
				return `${answers.map(([what, status, said]) => `${what} → ${status}${said ? ` (${said})` : ''}`).join('; ')}; elsewhere: 0 requests; execution ${waiting.id} still waiting`;
			},
		);
	} finally {
		await elsewhere.close();
	}

	await checks.check(
		"wait: after the forged events the waiting lead still continues, once, with its own call's result",
		async () => {
			if (!forged) throw new Error('no waiting execution (an earlier check failed)');
			const ex = await executionOf(forged.known, FINISHED, 60000);
			assertSuccess(ex);
			await settle();
			const final = await client.getExecution(ex.id);
			const [call] = callsOf(forgedPhone);
			assert.deepStrictEqual(resultOf(final), [
				{
					status: 'Answered',
					callStatus: 'ANSWERED',
					callId: call.id,
					result: { real: true },
					callbackData: { crmId: 'D-1' },
					endedBy: 'CALL_ENDED',
				},
			]);
			assert.strictEqual(runsOf(final, CRM), 1, 'CRM update runs');
			return `execution ${ex.id} → Answered with call ${call.id}`;
		},
	);

	await checks.check(
		'wait: the answered CALL_ENDED and the CANDIDATE_CHANGED that follows, delivered at the same moment to the trigger URL → the rest of the workflow runs once',
		async () => {
			const phone = '79995550041';
			const { known, waiting, callEnded, candidateChanged } = await waitingWithCapturedEvents(
				phone,
				'E-1',
				{ attempts: ['ANSWERED'], result: { sameMoment: true } },
			);
			assert.strictEqual(callEnded.body.status, 'ANSWERED');
			assert.strictEqual(candidateChanged.body.status, 'SUCCESS');
			const triggerRuns = (await ids(triggerWf.id)).size;
			// Both bodies exactly as the simulator sent them, at once. A Person Done handled before the
			// Call Ended of its last call is answered 503 (send again): the Call Ended decides the result.
			const answers = await Promise.all([deliver(callEnded.text), deliver(candidateChanged.text)]);
			assert.strictEqual(answers[0].status, 200, answers.map((a) => a.text).join(' | '));
			assert.ok([200, 503].includes(answers[1].status), answers.map((a) => a.text).join(' | '));
			// The service's re-send of an event answered 503.
			if (answers[1].status === 503) answers.push(await deliver(candidateChanged.text));
			const ex = await executionOf(known, FINISHED, 20000);
			assert.strictEqual(String(ex.id), String(waiting.id));
			assertSuccess(ex);
			await quietFor(1500, 'a second resume, if one got through, runs the CRM node again');
			const final = await client.getExecution(ex.id);
			assert.strictEqual(runsOf(final, CRM), 1, 'CRM update runs');
			assert.strictEqual(
				final.stoppedAt,
				ex.stoppedAt,
				'the execution ran again after it finished',
			);
			assert.strictEqual((await ids()).size, known.size + 1, 'executions of the workflow');
			assert.strictEqual((await ids(triggerWf.id)).size, triggerRuns, 'the trigger workflow ran');
			assert.deepStrictEqual(
				resultOf(final),
				[
					{
						status: 'Answered',
						callStatus: 'ANSWERED',
						callId: callEnded.body.id,
						result: { sameMoment: true },
						callbackData: { crmId: 'E-1' },
						endedBy: 'CALL_ENDED',
					},
				],
				`the workflow ran once, but not with the answered call ${callEnded.body.id}: ${JSON.stringify(resultOf(final))}`,
			);
			return `answers ${answers.map((a) => `${a.status} ${a.text}`).join(' | ')}; execution ${ex.id}: CRM update ran once, ${final.data.resultData.runData[CRM].length} run`;
		},
	);

	await checks.check(
		'wait: a repeated delivery of the same event resumes nothing twice',
		async () => {
			const phone = '79995550051';
			const { known, waiting, callEnded, candidateChanged } = await waitingWithCapturedEvents(
				phone,
				'F-1',
				{ attempts: ['ANSWERED'], result: { repeated: true } },
			);
			const triggerRuns = (await ids(triggerWf.id)).size;
			// The same CALL_ENDED three times at once (re-sends that cross each other).
			const atOnce = await Promise.all([1, 2, 3].map(() => deliver(callEnded.text)));
			const ex = await executionOf(known, FINISHED, 20000);
			assert.strictEqual(String(ex.id), String(waiting.id));
			assertSuccess(ex);
			// Again after the execution went on, and the CANDIDATE_CHANGED twice.
			const later = [];
			for (const body of [
				callEnded.text,
				candidateChanged.text,
				candidateChanged.text,
				callEnded.text,
			])
				later.push(await deliver(body));
			await quietFor(
				1500,
				'a resume by the late re-sends, if one got through, runs the CRM node again',
			);
			// One of those at once hands the result over; a copy that arrives meanwhile is told to come
			// again (503: what comes of it is not known yet), one after it is a repeat (200).
			assert.strictEqual(
				atOnce.filter((a) => a.status === 200 && a.body && a.body.handedOver).length,
				1,
				atOnce.map((a) => a.text).join(' | '),
			);
			for (const a of atOnce) assert.ok([200, 503].includes(a.status), a.text);
			for (const a of later) assert.strictEqual(a.status, 200, a.text);
			const final = await client.getExecution(ex.id);
			assert.strictEqual(runsOf(final, CRM), 1, 'CRM update runs');
			assert.strictEqual(
				final.stoppedAt,
				ex.stoppedAt,
				'the execution ran again after it finished',
			);
			assert.strictEqual((await ids()).size, known.size + 1, 'executions of the workflow');
			assert.strictEqual((await ids(triggerWf.id)).size, triggerRuns, 'the trigger workflow ran');
			assert.deepStrictEqual(
				resultOf(final).map((r) => [r.status, r.callId, r.callbackData]),
				[['Answered', callEnded.body.id, { crmId: 'F-1' }]],
			);
			const said = (a) =>
				(a.body && (a.body.handedOver ? 'handed over' : a.body.ignored)) || a.status;
			return `3 at once → ${atOnce.map(said).join(', ')}; then → ${later.map(said).join(', ')}; execution ${ex.id}: CRM update ran once`;
		},
	);

	await checks.check(
		'wait: no result within Wait at Most (1 minute) → n8n goes on with the input items unchanged (no "outcome" field)',
		async () => {
			const known = new Set(
				(await executionsWithWaiting(client, shortWf.id)).map((e) => String(e.id)),
			);
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
		},
	);

	await cleanUp();
};
