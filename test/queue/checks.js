'use strict';
/**
 * The queue-mode checks (see ./run.js): the action node on workers, n8n's Retry of a failed
 * execution on another worker, the trigger's registration
 * (once, and not again after restarting every process), deliveries through either webhook
 * process, wrong secrets, deactivation, the registration race (two processes registering one task), and de-duplication
 * across webhook processes with the trigger's deliveryId and n8n's Remove Duplicates node; and
 * Candidate → Create and Run and Wait for Result: a waiting execution resumed through a webhook
 * process and finished on a worker, a test run from the editor (manual execution) doing the same on
 * workers as n8n 3 runs it, the call's two last events at the same instant on both webhook
 * processes, and two people of one execution whose events reach different webhook processes.
 */
const assert = require('assert');
const crypto = require('crypto');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const {
	chain,
	cisNode,
	codeNode,
	manualTrigger,
	triggerNode,
	noOp,
	outputOf,
	assertSuccess,
	apiRequestsSince,
	shapeOf,
	tasksPointingAt,
	secretOfTask,
	simApi,
	waitFor,
	sleep,
	quietFor,
	eventsMap,
	expectedTaskBody,
	callEndedEvent,
} = require('../e2e/harness');
const {
	NO_REDIAL,
	WAIT_NODE,
	CRM_NODE,
	waitBridgeTrigger,
	callAndWaitWorkflow,
	waitMarkerOf,
	nextExecution,
	waitForResultParameters,
} = require('../e2e/harness');
const { startCrmStub, webhookTarget } = require('../../scripts/lib/playground');
const { executionsByWorker, workerRunsByExecution } = require('./cluster');

const P = '/cis/api/v1';
const TRIGGER = 'CIS Trigger';
const FINISHED = ['success', 'error', 'crashed', 'canceled'];

/** The body of Call Task → Create for these parameters, written from the spec (as in test/e2e/actions.e2e.js). */
const taskBody = (name, webhookUrls) =>
	expectedTaskBody({ name, botQueue: 'bot-queue', webhookUrls });

/** A CALL_ENDED delivery for a task (another number than the e2e suite's). */
const fakeEvent = (taskId, tag) => callEndedEvent(taskId, tag, '79990000299');

module.exports = async function queueChecks(ctx) {
	const { cluster, client, sim, cred, checks, summary } = ctx;
	const { balancer } = cluster;
	const creates = (mark) =>
		apiRequestsSince(sim, mark).filter(
			(r) => r.method === 'POST' && r.path === `${P}/telephony/autoCall`,
		);

	/** Waits until every execution id has a worker in the workers' logs; returns their workers. */
	async function workersOf(ids) {
		let ranOn = {};
		await waitFor(
			`worker log lines of executions ${ids.join(', ')}`,
			() => {
				ranOn = executionsByWorker(cluster);
				return ids.every((id) => ranOn[id]);
			},
			15000,
		).catch((e) => {
			throw new Error(
				`${e.message}; executions without a worker: ${ids.filter((id) => !ranOn[id]).join(', ')}`,
			);
		});
		return ids.map((id) => ranOn[id]);
	}

	const executionIds = async (wfId) =>
		new Set((await client.listExecutions(wfId)).map((e) => String(e.id)));
	/** Waits for exactly `n` new finished executions (none running); resolves them oldest first. */
	async function newExecutions(wfId, known, n, timeoutMs = 30000) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const fresh = (await client.listExecutions(wfId, { includeData: true })).filter(
				(e) => !known.has(String(e.id)),
			);
			const done = fresh.filter((e) => FINISHED.includes(e.status));
			if (done.length >= n && done.length === fresh.length)
				return done.sort((a, b) => Number(a.id) - Number(b.id));
			if (Date.now() > deadline)
				throw new Error(
					`expected ${n} new execution(s) within ${timeoutMs} ms, saw ${fresh.length} (${fresh.map((e) => e.status).join(', ')})`,
				);
			await sleep(200);
		}
	}
	async function noNewExecution(wfId, known, ms = 2000) {
		await quietFor(ms, 'an execution that must not start would have started by now');
		const fresh = [...(await executionIds(wfId))].filter((id) => !known.has(id));
		assert.strictEqual(fresh.length, 0, `unexpected execution(s) ${fresh.join(', ')}`);
	}

	// ------------------------------------------------------------------ the action node on workers
	await checks.check(
		'the action node runs on workers with correct requests: 4 manual runs of Create → Add to Task → Get, each on a worker, exactly the 3 expected requests each',
		async () => {
			const ran = [];
			for (let run = 1; run <= 4; run++) {
				const name = `Queue task ${run}`;
				const nodes = [
					cisNode(
						'Create task',
						{
							resource: 'callTask',
							operation: 'create',
							name,
							defaultExecData: 'bot-queue',
							callsPerSecond: 2,
						},
						cred,
					),
					cisNode(
						'Add candidate',
						{
							resource: 'candidate',
							operation: 'addToTask',
							autoCallId: { __rl: true, mode: 'id', value: '={{ $json.autoCallId }}' },
							phone: `7999000030${run}`,
							candidateFields: {
								clientExternalId: `q-${run}`,
								callbackData: `{"crmId":"Q-${run}"}`,
							},
						},
						cred,
					),
					cisNode(
						'Get task',
						{
							resource: 'callTask',
							operation: 'get',
							autoCallId: {
								__rl: true,
								mode: 'id',
								value: "={{ $('Create task').item.json.autoCallId }}",
							},
						},
						cred,
					),
				];
				const mark = sim.requests.length;
				const ex = await ctx.run(`queue action ${run}`, nodes);
				assertSuccess(ex);
				const task = [...sim.state.tasks.values()].find((t) => t.name === name);
				assert.ok(task, `run ${run}: no task named "${name}" at the simulator`);
				const sent = apiRequestsSince(sim, mark).map((r) => shapeOf(r));
				assert.deepStrictEqual(
					sent,
					[
						{ method: 'POST', path: `${P}/telephony/autoCall`, body: taskBody(name) },
						{
							method: 'POST',
							path: `${P}/telephony/autoCallCandidate`,
							body: {
								autoCallId: task.id,
								phone: [`7999000030${run}`],
								callbackData: { crmId: `Q-${run}` },
								clientExternalId: `q-${run}`,
								forceStart: false,
							},
						},
						{ method: 'GET', path: `${P}/telephony/autoCall/${task.id}` },
					],
					`run ${run}: requests seen by the simulator:\n${JSON.stringify(sent, null, 1)}`,
				);
				const got = outputOf(ex, 'Get task');
				assert.strictEqual(got.length, 1);
				assert.strictEqual(got[0].autoCallId, task.id);
				ran.push(String(ex.id));
			}
			const workers = await workersOf(ran);
			summary.actionWorkers = workers;
			return `executions ${ran.map((id, i) => `${id}→${workers[i]}`).join(', ')}`;
		},
	);

	for (const [loadWorkflow, first] of /** @type {[boolean, number][]} */ ([
		[false, 10],
		[true, 20],
	]))
		await checks.check(
			`n8n's Retry of a failed execution on a worker (loadWorkflow: ${loadWorkflow}; the failing worker restarted first, its memory gone): Create and Run, 5 rows answered 200, 200, 200, 502; the retry sends row 4 only; 1 candidate per phone`,
			async () => {
				const SINGLE = `${P}/telephony/autoCallCandidate/single`;
				const phones = Array.from({ length: 5 }, (_, index) => `799900003${first + index}`);
				sim.injectFault({
					path: SINGLE,
					status: 502,
					afterHandling: true,
					bodyIncludes: phones[3],
				});
				const mark = sim.requests.length;
				const failed = await ctx.run('queue retry of a failed execution', [
					codeNode(
						'Rows',
						phones.map((phone) => ({ phone })),
					),
					cisNode(
						'Call',
						{
							resource: 'candidate',
							operation: 'createAndRun',
							botSettingsId: 'bot-queue-retry',
							phone: '={{ $json.phone }}',
							options: { concurrency: 1 },
						},
						cred,
					),
				]);
				assert.strictEqual(
					failed.status,
					'error',
					`expected the run to fail on row 3, it ended ${failed.status}`,
				);
				const posted = () =>
					apiRequestsSince(sim, mark)
						.filter((r) => r.path === SINGLE && r.method === 'POST')
						.map((r) => r.body.phone[0]);
				assert.deepStrictEqual(posted(), phones.slice(0, 4));
				const [failedOn] = await workersOf([String(failed.id)]);
				// No process keeps a memory of the failed run: only n8n's database can tell the retry.
				await cluster.workers[Number(String(failedOn).replace(/\D/g, '')) - 1].restart();
				const res = await client.rawRest('POST', `/executions/${failed.id}/retry`, {
					loadWorkflow,
				});
				assert.strictEqual(
					res.status,
					200,
					`POST /rest/executions/${failed.id}/retry answered ${res.status}: ${res.text}`,
				);
				const answer = res.body && res.body.data !== undefined ? res.body.data : res.body;
				const retried = await client.getExecution(answer.id);
				assertSuccess(retried);
				const [retriedOn] = await workersOf([String(retried.id)]);
				assert.deepStrictEqual(posted(), phones, 'the retry must POST row 4 only');
				const created = phones.map(
					(phone) =>
						[...sim.state.candidates.values()].filter((c) => c.phone.includes(phone)).length,
				);
				assert.deepStrictEqual(created, [1, 1, 1, 1, 1], 'candidates per phone');
				const out = outputOf(retried, 'Call');
				assert.deepStrictEqual(
					out.map((item) => item.alreadyDone === true),
					[true, true, true, true, false],
					JSON.stringify(out),
				);
				return `execution ${failed.id} on ${failedOn} (restarted) → retry ${retried.id} on ${retriedOn}; candidates per phone ${created.join(',')}`;
			},
		);

	await checks.check(
		'the same workflow executed twice in queue mode (two new executions on the workers): both send, nobody is left out',
		async () => {
			const SINGLE = `${P}/telephony/autoCallCandidate/single`;
			const phones = ['79990003401', '79990003402'];
			const mark = sim.requests.length;
			const wf = await client.createWorkflow(
				chain('queue executed twice', [
					manualTrigger(),
					codeNode(
						'Rows',
						phones.map((phone) => ({ phone })),
					),
					cisNode(
						'Call',
						{
							resource: 'candidate',
							operation: 'createAndRun',
							botSettingsId: 'bot-queue-twice',
							phone: '={{ $json.phone }}',
						},
						cred,
						{ typeVersion: 2 },
					),
				]),
			);
			const once = await client.runWorkflowManually(wf.id, { timeoutMs: 60000 });
			assertSuccess(once);
			const twice = await client.runWorkflowManually(wf.id, { timeoutMs: 60000 });
			assertSuccess(twice);
			const posted = apiRequestsSince(sim, mark)
				.filter((r) => r.path === SINGLE && r.method === 'POST')
				.map((r) => r.body.phone[0]);
			assert.deepStrictEqual(posted, [...phones, ...phones], 'each execution sends both rows');
			assert.deepStrictEqual(
				outputOf(twice, 'Call').map((item) => item.alreadyDone),
				[undefined, undefined],
			);
			const workers = await workersOf([String(once.id), String(twice.id)]);
			return `executions ${once.id}→${workers[0]}, ${twice.id}→${workers[1]}: ${posted.length} POSTs`;
		},
	);

	// ------------------------------------------------------------------ Create and Run and Wait for Result
	const crm = await startCrmStub();
	try {
		await waitForResultChecks(ctx, { crm, executionIds });
	} finally {
		sim.setDefaultTemplate({ webhookUrls: [] });
		await crm.close();
	}

	// ------------------------------------------------------------------ the trigger
	const webhookId = crypto.randomUUID();
	const hookPath = `webhook/${webhookId}/webhook`;
	const viaBalancer = `${balancer.url}/${hookPath}`;
	const direct = cluster.webhooks.map((w) => `${w.url}/${hookPath}`);
	const onMain = `${cluster.main.url}/${hookPath}`;
	const post = (url, secret, body) =>
		httpRequest(
			'POST',
			secret === undefined ? url : `${url}?secret=${encodeURIComponent(secret)}`,
			{ body },
		);
	const taskName = 'Queue trigger task';
	const triggerParams = (name) => ({
		connectTo: 'newTask',
		authentication: 'accessToken',
		events: ['CALL_ENDED', 'CANDIDATE_CHANGED'],
		name,
		defaultExecData: 'bot-queue',
	});
	const wf = await client.createWorkflow(
		chain('queue trigger', [
			triggerNode(TRIGGER, triggerParams(taskName), cred, webhookId),
			noOp(),
		]),
	);
	const webhookRows = async () =>
		Number(
			(
				await cluster.postgres.query(
					'SELECT count(*) AS n FROM webhook_entity WHERE "workflowId" = $1',
					[wf.id],
				)
			)[0].n,
		);
	/** The task the trigger registered last (newest pointing at its URL) and its secret. */
	const newestTask = () => {
		const task = tasksPointingAt(sim, viaBalancer)
			.sort((a, b) => a.sequence - b.sequence)
			.pop();
		return task ? { task, secret: secretOfTask(task, viaBalancer) } : null;
	};
	summary.tasksCreated = { publish: 0, restart: 0, republishUnchanged: 0, raceRounds: [] };

	let current = null;
	const registered = await checks.check(
		"publishing the trigger registers exactly one call task, at the balancer's URL with ?secret= (main runs create; one webhook row in the database)",
		async () => {
			const mark = sim.requests.length;
			await client.activate(wf.id, { timeoutMs: 60000 });
			await waitFor(
				'the task to be created',
				() => tasksPointingAt(sim, viaBalancer).length >= 1,
				30000,
			);
			await quietFor(1000, 'a second create, if publishing sent one, reaches the simulator');
			const sent = creates(mark);
			summary.tasksCreated.publish = sent.length;
			assert.strictEqual(sent.length, 1, `POST telephony/autoCall sent ${sent.length} times`);
			current = newestTask();
			const target = current.task.body.webhookUrls[0];
			assert.match(
				target.url,
				new RegExp(
					`^${viaBalancer.replace(/[.?*+^$[\]\\(){}|-]/g, '\\$&')}\\?secret=[0-9a-f]{32,}$`,
				),
			);
			assert.deepStrictEqual(target.events, eventsMap(['CALL_ENDED', 'CANDIDATE_CHANGED']));
			assert.strictEqual(await webhookRows(), 1, 'webhook rows of the workflow');
			return `task ${current.task.id} → ${viaBalancer}?secret=<${current.secret.length} hex>`;
		},
	);
	if (!registered) {
		for (const n of [
			'deliveries',
			'JSON answer',
			'wrong secret',
			'restart',
			'deactivation',
			're-publish race',
			'de-duplication',
		])
			checks.skip(`trigger: ${n}`, 'the trigger did not register');
		return;
	}

	await checks.check(
		'events delivered through either webhook process start executions that finish on workers (a played call through the balancer, one event straight to each webhook process); main answers 404 (production webhooks off)',
		async () => {
			const known = await executionIds(wf.id);
			const before = balancer.forwarded;
			const callbackData = { crmId: 'Q-CALL' };
			await simApi(sim, 'POST', 'telephony/autoCallCandidate', {
				autoCallId: current.task.id,
				phone: ['79990000310'],
				callbackData,
				forceStart: true,
			});
			const played = await newExecutions(wf.id, known, 2);
			assert.deepStrictEqual(played.map((e) => outputOf(e, TRIGGER)[0].event).sort(), [
				'CALL_ENDED',
				'CANDIDATE_CHANGED',
			]);
			for (const e of played)
				assert.deepStrictEqual(outputOf(e, TRIGGER)[0].callbackData, callbackData);
			const viaEach = balancer.forwarded.map((n, i) => n - (before[i] || 0));
			assert.ok(
				viaEach.every((n) => n >= 1),
				`the balancer forwarded the simulator's deliveries as ${JSON.stringify(viaEach)}: not through both webhook processes`,
			);

			const known2 = new Set([...known, ...played.map((e) => String(e.id))]);
			for (const [i, url] of direct.entries()) {
				const res = await post(url, current.secret, fakeEvent(current.task.id, `direct-${i + 1}`));
				assert.strictEqual(res.status, 200, `webhook-${i + 1} answered ${res.status} ${res.text}`);
			}
			const sent = await newExecutions(wf.id, known2, 2);
			const tags = sent.map((e) => outputOf(e, TRIGGER)[0].callbackData.crmId).sort();
			assert.deepStrictEqual(tags, ['direct-1', 'direct-2']);
			const all = [...played, ...sent];
			for (const e of all) assertSuccess(e);
			assert.ok(
				all.every((e) => e.mode === 'webhook'),
				`modes ${all.map((e) => e.mode).join(', ')}`,
			);
			const workers = await workersOf(all.map((e) => String(e.id)));
			const onMainRes = await post(onMain, current.secret, fakeEvent(current.task.id, 'main'));
			assert.strictEqual(
				onMainRes.status,
				404,
				`main answered ${onMainRes.status} for a production webhook`,
			);
			summary.triggerWorkers = workers;
			return `played call → 2 executions (balancer sent ${viaEach.join(' + ')}); direct → 2 executions; workers ${workers.join(', ')}; main 404`;
		},
	);

	await checks.check('an accepted delivery is answered with a small JSON body', async () => {
		const res = await post(viaBalancer, current.secret, fakeEvent(current.task.id, 'json-answer'));
		assert.strictEqual(res.status, 200, `answered ${res.status} ${res.text}`);
		assert.match(
			String(res.headers['content-type']),
			/application\/json/,
			`content-type ${res.headers['content-type']}, body ${JSON.stringify(res.text.slice(0, 200))}`,
		);
		assert.ok(
			res.body && typeof res.body === 'object' && !Array.isArray(res.body),
			`body ${JSON.stringify(res.text.slice(0, 200))}`,
		);
		assert.ok(res.text.length <= 300, `${res.text.length} bytes`);
		assert.ok(!res.text.includes(current.secret), 'the answer carries the secret');
		return res.text;
	});

	await checks.check(
		'a wrong or missing secret gets 401 from both webhook processes, and no execution',
		async () => {
			const known = await executionIds(wf.id);
			const answers = [];
			for (const url of direct) {
				answers.push((await post(url, '0'.repeat(48), fakeEvent(current.task.id, 'wrong'))).status);
				answers.push((await post(url, undefined, fakeEvent(current.task.id, 'missing'))).status);
			}
			assert.deepStrictEqual(answers, [401, 401, 401, 401]);
			await noNewExecution(wf.id, known, 2000);
			return `answers ${answers.join(', ')}`;
		},
	);

	await checks.check(
		'restarting every process (main, 2 workers, 2 webhook processes) registers no second task; the registered secret still starts executions',
		async () => {
			const mark = sim.requests.length;
			const ms = await cluster.restartAll();
			await client.waitForPublication(wf.id, 'published', 60000);
			await quietFor(2000, 'a create that a restarted process sends late reaches the simulator');
			const sent = creates(mark);
			summary.tasksCreated.restart = sent.length;
			summary.restartMs = ms;
			assert.strictEqual(
				sent.length,
				0,
				`POST telephony/autoCall sent ${sent.length} time(s) after the restart`,
			);
			assert.strictEqual(await webhookRows(), 1, 'webhook rows of the workflow');
			const known = await executionIds(wf.id);
			const answers = [];
			for (const url of direct)
				answers.push(
					(
						await post(
							url,
							current.secret,
							fakeEvent(current.task.id, `after-restart-${answers.length}`),
						)
					).status,
				);
			assert.deepStrictEqual(answers, [200, 200]);
			const exs = await newExecutions(wf.id, known, 2);
			for (const e of exs) assertSuccess(e);
			await workersOf(exs.map((e) => String(e.id)));
			return `all 5 processes restarted in ${(ms / 1000).toFixed(1)} s; 0 tasks created; deliveries → 200, 200 and 2 executions on workers`;
		},
	);

	await checks.check(
		'deactivation removes the registration: no webhook row, 404 from both webhook processes and the balancer, no task created',
		async () => {
			const mark = sim.requests.length;
			await client.deactivate(wf.id, { timeoutMs: 60000 });
			assert.strictEqual(await webhookRows(), 0, 'webhook rows of the workflow');
			const answers = [];
			for (const url of [...direct, viaBalancer])
				answers.push(
					(await post(url, current.secret, fakeEvent(current.task.id, 'inactive'))).status,
				);
			assert.deepStrictEqual(answers, [404, 404, 404]);
			assert.strictEqual(creates(mark).length, 0);
			const other = apiRequestsSince(sim, mark).map((r) => `${r.method} ${r.path}`);
			// published again with unchanged settings: the same task is taken back (checkExists / parked registration)
			const mark2 = sim.requests.length;
			await client.activate(wf.id, { timeoutMs: 60000 });
			await quietFor(
				1000,
				'a create of the re-published trigger, if it sends one, reaches the simulator',
			);
			summary.tasksCreated.republishUnchanged = creates(mark2).length;
			assert.strictEqual(
				summary.tasksCreated.republishUnchanged,
				0,
				're-publishing with unchanged settings created a task',
			);
			assert.strictEqual(await webhookRows(), 1);
			return `answers ${answers.join(', ')}; requests to the service at deactivation: ${other.join(', ') || 'none'}; re-published unchanged: same task, 0 created`;
		},
	);

	// ------------------------------------------------------------------ the registration race: two processes, one task
	const rounds = ctx.raceRounds;
	const raceResults = [];
	await checks.check(
		`re-publishing with changed settings while repeated deliveries arrive keeps the new registration (${rounds} rounds, both webhook processes flooded with a repeated delivery)`,
		async () => {
			const repeated = fakeEvent(current.task.id, 'repeat');
			for (let round = 1; round <= rounds; round++) {
				const old = newestTask();
				const answers = {};
				let stop = false;
				let sentCount = 0;
				const flood = async (lane) => {
					while (!stop) {
						const url = direct[(lane + sentCount) % direct.length];
						sentCount += 1;
						const res = await post(url, old.secret, repeated).catch((e) => ({
							status: e.code || 'error',
						}));
						answers[res.status] = (answers[res.status] || 0) + 1;
					}
				};
				const lanes = [0, 1, 2, 3].map(flood);
				const mark = sim.requests.length;
				await quietFor(500, 'the flood of repeated deliveries is under way before the re-publish');
				try {
					const stored = await client.getWorkflow(wf.id);
					const nodes = stored.nodes.map((n) =>
						n.name === TRIGGER
							? { ...n, parameters: { ...n.parameters, name: `${taskName} (round ${round})` } }
							: n,
					);
					// a PUT of a published workflow publishes the new version at once (n8n 2.x public API)
					await client.api('PUT', `/workflows/${wf.id}`, {
						name: stored.name,
						nodes,
						connections: stored.connections,
						settings: { executionOrder: 'v1' },
					});
					await waitFor('the new task', () => creates(mark).length >= 1, 30000);
					await client.waitForPublication(wf.id, 'published', 60000);
					await quietFor(
						1500,
						'the flood goes on after the new registration, as a chance to overwrite it',
					);
				} finally {
					stop = true;
					await Promise.all(lanes);
				}
				const made = creates(mark).length;
				const fresh = newestTask();
				const stored = (
					await cluster.postgres.query(
						'SELECT "staticData" AS s FROM workflow_entity WHERE id = $1',
						[wf.id],
					)
				)[0].s;
				const registration =
					stored && stored[`node:${TRIGGER}`] && stored[`node:${TRIGGER}`].registration;
				const storedIsNew = Boolean(registration && registration.autoCallId === fresh.task.id);
				const newAnswers = [];
				for (const url of direct)
					newAnswers.push(
						(await post(url, fresh.secret, fakeEvent(fresh.task.id, `round-${round}`))).status,
					);
				const oldAnswers = [];
				for (const url of direct)
					oldAnswers.push(
						(await post(url, old.secret, fakeEvent(old.task.id, `old-${round}`))).status,
					);
				raceResults.push({
					round,
					made,
					flood: sentCount,
					answers,
					newAnswers,
					oldAnswers,
					storedIsNew,
				});
				summary.tasksCreated.raceRounds.push(made);
				checks.note(
					`round ${round}: ${sentCount} repeated deliveries during the re-publish (${Object.entries(
						answers,
					)
						.map(([s, n]) => `${n}×${s}`)
						.join(
							', ',
						)}); tasks created ${made}; new secret → ${newAnswers.join(', ')}; old secret → ${oldAnswers.join(', ')}; stored registration is the new one: ${storedIsNew}`,
				);
				current = fresh;
			}
			summary.race = raceResults;
			const lost = raceResults.filter(
				(r) =>
					r.made !== 1 ||
					!r.storedIsNew ||
					r.newAnswers.some((s) => s !== 200) ||
					r.oldAnswers.some((s) => s !== 401),
			);
			assert.strictEqual(
				lost.length,
				0,
				`the new registration was lost (or a task count was wrong) in round(s) ${lost.map((r) => r.round).join(', ')} of ${rounds}`,
			);
			return `${rounds} of ${rounds} rounds kept the new registration`;
		},
	);

	// ------------------------------------------------------------------ de-duplication across processes
	await checks.check(
		'the same delivery sent to both webhook processes leads to ONE downstream run (deliveryId + Remove Duplicates, memory in the database)',
		async () => {
			const dedupHookId = crypto.randomUUID();
			const dedupPath = `webhook/${dedupHookId}/webhook`;
			const dedupDirect = cluster.webhooks.map((w) => `${w.url}/${dedupPath}`);
			const dedupBalancer = `${balancer.url}/${dedupPath}`;
			const dedupWf = await client.createWorkflow(
				chain('queue dedup', [
					triggerNode(TRIGGER, triggerParams('Queue dedup task'), cred, dedupHookId),
					{
						parameters: {
							operation: 'removeItemsSeenInPreviousExecutions',
							logic: 'removeItemsWithAlreadySeenKeyValues',
							dedupeValue: '={{ $json.deliveryId }}',
							options: { scope: 'workflow' },
						},
						id: crypto.randomUUID(),
						name: 'Remove Duplicates',
						type: 'n8n-nodes-base.removeDuplicates',
						typeVersion: 2,
						position: [0, 0],
					},
					noOp('Downstream'),
				]),
			);
			await client.activate(dedupWf.id, { timeoutMs: 60000 });
			await waitFor('the dedup task', () => tasksPointingAt(sim, dedupBalancer).length >= 1, 30000);
			const dedupTask = tasksPointingAt(sim, dedupBalancer)[0];
			const secret = secretOfTask(dedupTask, dedupBalancer);
			const downstreamRuns = (exs) =>
				exs.filter((e) => outputOf(e, 'Downstream').length > 0).length;

			const delivery = fakeEvent(dedupTask.id, 'dedup');
			const first = await post(dedupDirect[0], secret, delivery);
			assert.strictEqual(first.status, 200, `webhook-1 answered ${first.status} ${first.text}`);
			const [ex1] = await newExecutions(dedupWf.id, new Set(), 1);
			assertSuccess(ex1);
			const deliveryId = outputOf(ex1, TRIGGER)[0].deliveryId;
			assert.ok(
				typeof deliveryId === 'string' && deliveryId.length >= 8,
				`the trigger's item has no deliveryId (${JSON.stringify(deliveryId)})`,
			);
			// the service re-sends until it gets a 200: here the copy reaches the other webhook process
			const second = await post(dedupDirect[1], secret, delivery);
			assert.strictEqual(second.status, 200, `webhook-2 answered ${second.status} ${second.text}`);
			const [ex2] = await newExecutions(dedupWf.id, new Set([String(ex1.id)]), 1);
			assertSuccess(ex2);
			assert.strictEqual(
				outputOf(ex2, TRIGGER)[0].deliveryId,
				deliveryId,
				'the two processes derived different deliveryIds',
			);
			// and four more copies through the balancer (each process also remembers it itself)
			const known = new Set([String(ex1.id), String(ex2.id)]);
			const more = [];
			for (let i = 0; i < 4; i++) more.push((await post(dedupBalancer, secret, delivery)).status);
			assert.deepStrictEqual(more, [200, 200, 200, 200]);
			await quietFor(
				2000,
				'an execution that one of the 4 repeats would start reaches the database',
			);
			const all = await client.listExecutions(dedupWf.id, { includeData: true });
			const finished = all.filter((e) => FINISHED.includes(e.status));
			assert.strictEqual(finished.length, all.length, 'executions still running');
			for (const e of finished) assertSuccess(e);
			const runs = downstreamRuns(finished);
			summary.dedup = {
				executions: finished.length,
				downstreamRuns: runs,
				repeatsStartingExecutions: finished.filter((e) => !known.has(String(e.id))).length,
			};
			assert.strictEqual(runs, 1, `${runs} downstream runs from ${finished.length} executions`);
			// a figure, not a check: copies arriving at the same instant (the service re-sends only after a
			// failed delivery, so it does not do this). Remove Duplicates reads, then writes its memory.
			const simultaneous = [];
			for (let i = 0; i < ctx.simultaneousTrials; i++) {
				const copy = fakeEvent(dedupTask.id, `same-instant-${i}`);
				const before = new Set((await client.listExecutions(dedupWf.id)).map((e) => String(e.id)));
				await Promise.all(dedupDirect.map((url) => post(url, secret, copy)));
				simultaneous.push(downstreamRuns(await newExecutions(dedupWf.id, before, 2)));
			}
			summary.dedup.simultaneous = simultaneous;
			if (simultaneous.length)
				checks.note(
					`figure: the same delivery sent to both webhook processes at the same instant, ${simultaneous.length} times → downstream runs ${simultaneous.join(', ')}`,
				);
			await client.deactivate(dedupWf.id, { timeoutMs: 60000 });
			return `6 copies (1 → webhook-1, 1 → webhook-2, 4 → balancer) → ${finished.length} executions → 1 downstream run (deliveryId ${deliveryId.slice(0, 12)}…)`;
		},
	);
};

/* ------------------------------------------------------------------ Create and Run and Wait for Result */

const WAIT_SECRET = 'queue-wait-secret-0123456789abcdef';
const WAIT_EVENTS = ['CALL_ENDED', 'CANDIDATE_CHANGED'];

/**
 * The waiting operation in queue mode: "New lead (Webhook) → Call and wait → CRM update" published,
 * its lead posted through the balancer (so a webhook process starts it and a worker runs it), a
 * published bridge trigger (Existing Task or Template) in the simulator's default template. CRM
 * update is an HTTP Request to a CRM stub, so that each run of the rest of the workflow is counted
 * where it lands, whatever the execution record says. For the checks that decide where and when
 * each event arrives, the template points at the stub instead (`/held-events`, answered 200 at
 * once): the test then sends the recorded events to the webhook processes itself.
 */
async function waitForResultChecks(ctx, { crm, executionIds }) {
	const { cluster, client, sim, cred, checks, summary } = ctx;
	const { balancer } = cluster;
	summary.wait = {};

	const secretCred = await client.createCredential({
		name: 'queue wait secret',
		type: 'cisAutoCallWebhookSecretApi',
		data: { secret: WAIT_SECRET },
	});
	const bridgeId = crypto.randomUUID();
	const bridgePath = `/webhook/${bridgeId}/webhook`;
	const bridgeViaBalancer = `${balancer.url}${bridgePath}`;
	const bridgeDirect = cluster.webhooks.map((w) => `${w.url}${bridgePath}`);
	const bridgeWf = await client.createWorkflow(
		chain('queue wait bridge', [waitBridgeTrigger(TRIGGER, bridgeId, secretCred), noOp()]),
	);
	const crmUpdate = () => ({
		parameters: {
			method: 'POST',
			url: `=${crm.url}/wait-results/{{ $execution.id }}`,
			sendBody: true,
			specifyBody: 'json',
			jsonBody:
				'={{ JSON.stringify({ status: $json.status, outcome: $json.outcome, callbackData: $json.callbackData, crmId: $json.crmId, phone: $json.phone }) }}',
			options: {},
		},
		id: crypto.randomUUID(),
		name: CRM_NODE,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [0, 0],
	});
	const oneLeadPath = `queue-wait-lead-${crypto.randomUUID()}`;
	const oneWf = await client.createWorkflow(
		callAndWaitWorkflow('queue wait: one lead', {
			leadPath: oneLeadPath,
			credential: cred,
			waitAtMost: 10,
			waitUnit: 'minutes',
			crm: crmUpdate(),
		}),
	);
	const twoLeadsPath = `queue-wait-leads-${crypto.randomUUID()}`;
	const twoWf = await client.createWorkflow(
		callAndWaitWorkflow('queue wait: two leads', {
			leadPath: twoLeadsPath,
			credential: cred,
			waitAtMost: 1,
			waitUnit: 'minutes',
			crm: crmUpdate(),
			leads: true,
		}),
	);

	const sendEventsTo = (url) =>
		sim.setDefaultTemplate({
			webhookUrls: [webhookTarget(`${url}?secret=${WAIT_SECRET}`, WAIT_EVENTS)],
			redialStrategyOptions: NO_REDIAL,
		});
	const postLead = (leadPath, body) =>
		httpRequest('POST', `${balancer.url}/webhook/${leadPath}`, { body });
	/** What the CRM stub received from the CRM update node of an execution. */
	const crmPostsOf = (executionId) =>
		crm.requests.filter((r) => r.path === `/wait-results/${executionId}`);
	/** The events the simulator sent to the stub for the candidate with this crmId, by event name. */
	const heldEvents = (crmId) => {
		const found = {};
		for (const r of crm.requests)
			if (
				r.path === '/held-events' &&
				r.body &&
				r.body.callbackData &&
				r.body.callbackData.crmId === crmId
			)
				found[r.body.event] = r.body;
		return found;
	};
	const heldPair = (crmId) =>
		waitFor(
			`CALL_ENDED and CANDIDATE_CHANGED of ${crmId} at the stub`,
			() => {
				const found = heldEvents(crmId);
				return found.CALL_ENDED && found.CANDIDATE_CHANGED ? found : null;
			},
			30000,
		);
	/**
	 * Sends an event as the service does: first to the webhook process `url` (to choose which one gets
	 * it), then again until it gets a 200, through the balancer (the service re-sends to the public
	 * address, so a re-send may reach the other process). Resolves the statuses.
	 */
	const deliver = async (url, body) => {
		const statuses = [];
		for (let attempt = 1; attempt <= 8; attempt++) {
			const target = attempt === 1 ? url : bridgeViaBalancer;
			const res = await httpRequest('POST', `${target}?secret=${WAIT_SECRET}`, { body }).catch(
				(e) => ({ status: e.code || 'error' }),
			);
			statuses.push(res.status);
			if (res.status === 200) break;
			await sleep(Math.min(4000, 250 * 2 ** (attempt - 1)));
		}
		return statuses;
	};
	const via = (entry) => `webhook-${entry.backend + 1}`;
	/** n8n's answers to the resumes of an execution (its waiting webhook) in the balancer's log since `mark`. */
	const resumesOf = (executionId, mark) =>
		balancer.log
			.slice(mark)
			.filter((e) => e.path.startsWith(`/webhook-waiting/${executionId}/`))
			.map(
				(e) =>
					`${via(e)} → ${e.status} ${e.answer.split(',"stacktrace"')[0]}${e.answer.includes(',"stacktrace"') ? '}' : ''}`,
			);
	/** The worker runs of an execution, once `n` of them have finished. */
	const finishedRuns = async (executionId, n) => {
		let runs = [];
		await waitFor(
			`${n} finished worker run(s) of execution ${executionId}`,
			() => {
				runs = workerRunsByExecution(cluster)[executionId] || [];
				return runs.length >= n && runs.every((r) => r.finished);
			},
			15000,
		).catch(() => {});
		return runs;
	};
	const runsText = (runs) =>
		runs
			.map((r) => `${r.worker} (job ${r.job}${r.finished ? '' : ', not finished'})`)
			.join(' then ');

	const ready = await checks.check(
		'wait: the bridge trigger (Existing Task or Template) and "New lead (Webhook) → Call and wait → CRM update (HTTP Request to a CRM stub)" are published in queue mode',
		async () => {
			await client.activate(bridgeWf.id, { timeoutMs: 60000 });
			await client.activate(oneWf.id, { timeoutMs: 60000 });
			await client.activate(twoWf.id, { timeoutMs: 60000 });
			return `bridge ${bridgeWf.id}, one lead ${oneWf.id}, two leads ${twoWf.id}`;
		},
	);
	if (!ready) {
		for (const n of [
			'one lead',
			'a test run from the editor on a worker',
			"the call's last two events at once",
			'two leads',
		])
			checks.skip(`wait: ${n}`, 'the workflows were not published');
		return;
	}

	await checks.check(
		'wait: one lead answered → started by a webhook process, waits, the call\'s events reach the trigger through the webhook processes, the trigger resumes it through a webhook process and a worker finishes it; CRM update ran once with status "Answered" and the Callback Data without the marker',
		async () => {
			sendEventsTo(bridgeViaBalancer);
			const phone = '79990004001';
			const crmId = 'QW-1';
			// a call of 40 s (2 s at the simulator's time scale): the execution is saved as waiting before it ends
			sim.setOutcome(phone, {
				attempts: [{ status: 'ANSWERED', durationSec: 40 }],
				result: { interested: 'yes' },
			});
			const known = await executionIds(oneWf.id);
			const mark = balancer.log.length;
			const lead = await postLead(oneLeadPath, { phone, crmId });
			assert.strictEqual(lead.status, 200, `the lead webhook answered ${lead.status} ${lead.text}`);
			const ex = await nextExecution(client, oneWf.id, known, FINISHED, 90000);
			assertSuccess(ex);
			const out = outputOf(ex, WAIT_NODE);
			assert.strictEqual(out.length, 1, JSON.stringify(out));
			assert.strictEqual(out[0].status, 'Answered', JSON.stringify(out[0]));
			assert.deepStrictEqual(out[0].callbackData, { crmId });
			assert.deepStrictEqual(out[0].result, { interested: 'yes' });
			const marker = waitMarkerOf(sim, phone);
			assert.ok(
				marker && /^[0-9a-f]{64}$/.test(marker.key),
				'the candidate carried no wait marker',
			);
			assert.ok(
				!JSON.stringify(ex.data).includes(marker.key),
				'the wait key is in the execution data',
			);
			const runs = await finishedRuns(String(ex.id), 2);
			assert.strictEqual(
				runs.length,
				2,
				`worker runs of execution ${ex.id}: ${runsText(runs) || 'none'} (expected one until the wait, one after the resume)`,
			);
			assert.ok(
				runs.every((r) => r.finished),
				`worker runs: ${runsText(runs)}`,
			);
			await quietFor(
				2000,
				'a second CRM update, if the rest of the workflow ran twice, reaches the fake CRM',
			);
			const posted = crmPostsOf(ex.id);
			assert.strictEqual(
				posted.length,
				1,
				`CRM update ran ${posted.length} times: ${JSON.stringify(posted.map((p) => p.body))}`,
			);
			assert.strictEqual(posted[0].body.status, 'Answered', JSON.stringify(posted[0].body));
			assert.deepStrictEqual(
				posted[0].body.callbackData,
				{ crmId },
				'the Callback Data the CRM got',
			);
			assert.strictEqual(sim.createdByPhone()[phone], 1, 'candidates created for the phone');
			const seen = balancer.log.slice(mark);
			const leadVia = seen.filter((e) => e.path === `/webhook/${oneLeadPath}`).map(via);
			const eventsVia = seen
				.filter((e) => e.path === bridgePath)
				.map((e) => `${via(e)} ${e.status}`);
			const deliveries = sim.webhookDeliveries
				.filter(
					(d) =>
						d.url.startsWith(bridgeViaBalancer) &&
						d.body.callbackData &&
						d.body.callbackData.crmId === crmId,
				)
				.map((d) => `${d.event} ${d.status}`);
			const resumes = resumesOf(ex.id, mark);
			assert.ok(
				eventsVia.length >= 2,
				`the trigger's deliveries through the balancer: ${eventsVia.join(', ')}`,
			);
			assert.ok(
				resumes.some((r) => / → 200 .*"resumed":true/.test(r)),
				`resumes through the balancer: ${resumes.join('; ') || 'none'}`,
			);
			summary.wait.one = {
				execution: ex.id,
				runs: runs.map((r) => r.worker),
				finishedOn: runs[runs.length - 1].worker,
			};
			checks.note(
				`execution ${ex.id}: lead via ${leadVia.join(', ')}; ran on ${runsText(runs)}; the simulator's deliveries ${deliveries.join(', ')} went via ${eventsVia.join(', ')}; resume ${resumes.join('; ')}`,
			);
			return `execution ${ex.id} finished on ${runs[runs.length - 1].worker} (waited on ${runs[0].worker}); CRM got ${JSON.stringify(posted[0].body)}`;
		},
	);

	await checks.check(
		'wait: a test run from the editor (a manual execution, as n8n 3 runs it in queue mode: OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true) of Manual Trigger → Lead → Call and wait → CRM update runs on a worker, waits, is resumed through a webhook process and a worker continues it with the answered result; CRM update ran once',
		async () => {
			sendEventsTo(bridgeViaBalancer);
			const phone = '79990004301';
			const crmId = 'QW-M1';
			// a call of 40 s (2 s at the simulator's time scale): the execution is saved as waiting before it ends
			sim.setOutcome(phone, {
				attempts: [{ status: 'ANSWERED', durationSec: 40 }],
				result: { manual: true },
			});
			const manualWf = await client.createWorkflow(
				chain('queue wait: test run from the editor', [
					manualTrigger(),
					codeNode('Lead', [{ phone, crmId }]),
					cisNode(WAIT_NODE, waitForResultParameters(), cred, { typeVersion: 2 }),
					crmUpdate(),
				]),
			);
			const mark = balancer.log.length;
			// the editor's "Execute workflow": POST /rest/workflows/:id/run on main, then the execution is polled until it ends
			const ex = await client.runWorkflowManually(manualWf.id, {
				timeoutMs: 90000,
				untilNode: WAIT_NODE,
			});
			assertSuccess(ex);
			assert.strictEqual(ex.mode, 'manual', `the execution's mode is ${ex.mode}`);
			const out = outputOf(ex, WAIT_NODE);
			assert.deepStrictEqual(
				out.map((i) => [i.status, i.result, i.callbackData]),
				[['Answered', { manual: true }, { crmId }]],
				JSON.stringify(out),
			);
			// where it ran: the workers' own log lines ("Worker started/finished execution <id> (job <n>)");
			// main logs none of them, so two finished worker runs mean both halves ran on workers
			const runs = await finishedRuns(String(ex.id), 2);
			assert.strictEqual(
				runs.length,
				2,
				`worker runs of execution ${ex.id}: ${runsText(runs) || 'none'} (expected one until the wait, one after the resume)`,
			);
			assert.ok(
				runs.every((r) => r.finished),
				`worker runs: ${runsText(runs)}`,
			);
			const onMain = cluster.main.logs.filter((l) =>
				new RegExp(`Worker (started|finished) execution ${ex.id} `).test(l),
			);
			assert.strictEqual(onMain.length, 0, `main logged worker runs: ${onMain.join('; ')}`);
			const resumes = resumesOf(ex.id, mark);
			assert.ok(
				resumes.some((r) => / → 200 .*"resumed":true/.test(r)),
				`resumes through the balancer: ${resumes.join('; ') || 'none'}`,
			);
			await quietFor(
				2000,
				'a second CRM update, if the rest of the workflow ran twice, reaches the fake CRM',
			);
			const posted = crmPostsOf(ex.id);
			assert.strictEqual(
				posted.length,
				1,
				`CRM update ran ${posted.length} times: ${JSON.stringify(posted.map((p) => p.body))}`,
			);
			assert.strictEqual(posted[0].body.status, 'Answered', JSON.stringify(posted[0].body));
			assert.strictEqual(sim.createdByPhone()[phone], 1, 'candidates created for the phone');
			summary.wait.manual = { execution: ex.id, runs: runs.map((r) => r.worker) };
			return `manual execution ${ex.id}: ran on ${runsText(runs)}; resume ${resumes.join('; ')}; CRM got ${JSON.stringify(posted[0].body)}`;
		},
	);

	const rounds = ctx.waitRounds;
	await checks.check(
		`wait: the answered CALL_ENDED and the CANDIDATE_CHANGED that follows it delivered at the same instant to the two webhook processes → the rest of the workflow runs exactly once (${rounds} rounds)`,
		async () => {
			sendEventsTo(`${crm.url}/held-events`);
			const results = [];
			for (let round = 1; round <= rounds; round++) {
				const phone = `799900041${String(round).padStart(2, '0')}`;
				const crmId = `QW-S${round}`;
				sim.setOutcome(phone, { attempts: ['ANSWERED'], result: { round } });
				const known = await executionIds(oneWf.id);
				const lead = await postLead(oneLeadPath, { phone, crmId });
				assert.strictEqual(
					lead.status,
					200,
					`round ${round}: the lead webhook answered ${lead.status} ${lead.text}`,
				);
				const waiting = await nextExecution(client, oneWf.id, known, ['waiting'], 60000);
				const held = await heldPair(crmId);
				assert.strictEqual(held.CALL_ENDED.status, 'ANSWERED');
				const mark = balancer.log.length;
				// alternate which webhook process gets which event
				const [endedTo, changedTo] = round % 2 ? [0, 1] : [1, 0];
				const [endedAnswers, changedAnswers] = await Promise.all([
					deliver(bridgeDirect[endedTo], held.CALL_ENDED),
					deliver(bridgeDirect[changedTo], held.CANDIDATE_CHANGED),
				]);
				const ex = await nextExecution(client, oneWf.id, known, FINISHED, 60000);
				const runs = await finishedRuns(String(ex.id), 2);
				await quietFor(
					3000,
					'a second CRM update of this round, if the two webhook processes both resumed, reaches the fake CRM',
				);
				const posted = crmPostsOf(ex.id);
				const result = {
					round,
					execution: String(ex.id),
					status: ex.status,
					crmRuns: posted.length,
					crmStatuses: posted.map((p) => p.body.status),
					workerRuns: (workerRunsByExecution(cluster)[String(ex.id)] || runs).length,
					ended: `CALL_ENDED → webhook-${endedTo + 1}: ${endedAnswers.join('/')}`,
					changed: `CANDIDATE_CHANGED → webhook-${changedTo + 1}: ${changedAnswers.join('/')}`,
					resumes: resumesOf(ex.id, mark),
				};
				assert.strictEqual(String(waiting.id), result.execution);
				results.push(result);
				checks.note(
					`round ${round}: execution ${result.execution} ${result.status}; ${result.ended}; ${result.changed}; n8n answered the resumes: ${result.resumes.join('; ') || 'none seen'}; worker runs ${result.workerRuns}; CRM update ran ${result.crmRuns}× (${result.crmStatuses.join(', ')})`,
				);
			}
			summary.wait.simultaneous = results.map((r) => ({
				crmRuns: r.crmRuns,
				statuses: r.crmStatuses,
			}));
			checks.note(
				`figure: rest of the workflow ran ${results.map((r) => r.crmRuns).join(', ')} time(s) in ${rounds} rounds; CRM statuses ${results.map((r) => r.crmStatuses.join('+') || '-').join(', ')}`,
			);
			// Every call here was answered. When CANDIDATE_CHANGED's resume wins, the process that sent it
			// never saw the answered CALL_ENDED (the trigger remembers calls per process): "Not reached".
			const wrong = results.filter(
				(r) =>
					r.crmRuns !== 1 ||
					r.status !== 'success' ||
					r.workerRuns !== 2 ||
					r.crmStatuses[0] !== 'Answered',
			);
			assert.strictEqual(
				wrong.length,
				0,
				`round(s) ${wrong.map((r) => `${r.round} (execution ${r.execution} ${r.status}, CRM update ran ${r.crmRuns}× with ${r.crmStatuses.join('+') || 'nothing'}, ${r.workerRuns} worker runs)`).join(', ')} of ${rounds}`,
			);
			return `${rounds} of ${rounds} rounds ran the rest once, with "Answered"`;
		},
	);

	await checks.check(
		"wait: two leads in one execution, each lead's events reaching another webhook process → the service's re-sends bring both results together and the execution goes on once with both",
		async () => {
			sendEventsTo(`${crm.url}/held-events`);
			const leads = [
				{ phone: '79990004201', crmId: 'QW-T1' },
				{ phone: '79990004202', crmId: 'QW-T2' },
			];
			for (const l of leads)
				sim.setOutcome(l.phone, { attempts: ['ANSWERED'], result: { crmId: l.crmId } });
			const known = await executionIds(twoWf.id);
			const lead = await postLead(twoLeadsPath, { leads });
			assert.strictEqual(lead.status, 200, `the lead webhook answered ${lead.status} ${lead.text}`);
			const waiting = await nextExecution(client, twoWf.id, known, ['waiting'], 60000);
			const started = Date.parse(waiting.startedAt) || Date.now();
			const held = await Promise.all(leads.map((l) => heldPair(l.crmId)));
			const mark = balancer.log.length;
			// lead 1's events to webhook-1, lead 2's to webhook-2, each in the service's order
			const answers = await Promise.all(
				held.map(async (pair, i) => {
					const got = [];
					for (const event of WAIT_EVENTS)
						got.push(`${event} ${(await deliver(bridgeDirect[i], pair[event])).join('/')}`);
					return `webhook-${i + 1}: ${got.join(', ')}`;
				}),
			);
			// measured: the execution completes with both results, or it still waits
			const deliveredAt = Date.now();
			let ex = null;
			while (!ex && Date.now() - deliveredAt < 20000) {
				const e = await client.getExecution(waiting.id);
				if (FINISHED.includes(e.status)) ex = e;
				else await sleep(500);
			}
			const resumes = resumesOf(waiting.id, mark);
			const completed = Boolean(ex);
			let ending;
			if (!ex) {
				// it waits for Wait at Most (1 minute): n8n then goes on with the input items unchanged
				ex = await nextExecution(client, twoWf.id, known, FINISHED, 180000);
				ending = `went on after Wait at Most, ${Math.round((Date.now() - started) / 1000)} s after it started`;
			} else
				ending = `completed ${((Date.now() - deliveredAt) / 1000).toFixed(1)} s after the deliveries`;
			assertSuccess(ex);
			await quietFor(
				2000,
				'a second CRM update, if the rest of the workflow ran twice, reaches the fake CRM',
			);
			const out = outputOf(ex, WAIT_NODE);
			const posted = crmPostsOf(ex.id);
			const figure = {
				completed,
				resumes,
				ending,
				statuses: out.map((i) => i.status || `no outcome (${i.crmId})`),
				crmRuns: posted.length,
			};
			summary.wait.twoLeads = figure;
			checks.note(
				`figure: events ${answers.join('; ')}; n8n answered the resumes: ${resumes.join('; ') || 'none seen'}; completed with both results within 20 s: ${completed ? 'yes' : 'NO'}; ${ending}; Call and wait output ${JSON.stringify(figure.statuses)}; CRM update got ${posted.length} item(s)`,
			);
			// what must hold either way: both people called once; the CRM got one item per lead, from one run
			assert.deepStrictEqual(
				leads.map((l) => sim.createdByPhone()[l.phone]),
				[1, 1],
				'candidates created per phone',
			);
			assert.strictEqual(
				posted.length,
				2,
				`CRM update got ${posted.length} items: ${JSON.stringify(posted.map((p) => p.body))}`,
			);
			// a resume completes only with a result for every lead, never with part of them; going on after Wait at Most
			// instead would give the input items unchanged (no status), whatever the time it took (the figure above)
			assert.deepStrictEqual(
				out.map((i) => [i.status, i.callbackData]),
				leads.map((l) => ['Answered', { crmId: l.crmId }]),
				`the execution did not go on with both results (${ending}); events ${answers.join('; ')}; resumes ${resumes.join('; ')}`,
			);
			assert.strictEqual(
				resumes.filter((r) => /"resumed":true/.test(r)).length,
				1,
				`resumes: ${resumes.join('; ')}`,
			);
			return `completed with both results (${ending}); events ${answers.join('; ')}`;
		},
	);

	await client.deactivate(twoWf.id).catch(() => {});
	await client.deactivate(oneWf.id).catch(() => {});
	await client.deactivate(bridgeWf.id).catch(() => {});
}
