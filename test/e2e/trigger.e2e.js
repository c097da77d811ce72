'use strict';
/**
 * The CIS Auto-Call Trigger (New Call Task) in a real n8n against the simulator:
 * registration on activation (no secret in the exported workflow), a call played by the
 * simulator, forged events, repeated deliveries (deliveryId), bodies n8n or the node refuse,
 * and deactivate (task paused) → re-activate (taken back, resumed) → restart → changed settings.
 */
const assert = require('assert');
const crypto = require('crypto');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const { webhookTarget } = require('../../scripts/lib/playground');
const {
	chain,
	triggerNode,
	noOp,
	outputOf,
	apiRequestsSince,
	simApi,
	tasksPointingAt,
	secretOfTask,
	waitFor,
	sleep,
	callEndedEvent,
} = require('./harness');

const TRIGGER = 'CIS Trigger';

module.exports = async function triggerChecks(ctx) {
	const { client, sim, creds, checks, version } = ctx;
	const webhookId = crypto.randomUUID();
	const triggerUrl = `${ctx.n8n.url}/webhook/${webhookId}/webhook`;
	const taskName = `E2E trigger task ${version}`;
	const wf = await client.createWorkflow(
		chain(`e2e trigger ${version}`, [
			triggerNode(
				TRIGGER,
				{
					connectTo: 'newTask',
					authentication: 'accessToken',
					events: ['CALL_ENDED', 'CANDIDATE_CHANGED'],
					name: taskName,
					defaultExecData: 'bot-trigger',
				},
				creds.token,
				webhookId,
			),
			noOp(),
		]),
	);
	const created = { activation: 0, reactivation: 0, restart: 0, change: 0 };
	const createsSince = (mark) =>
		apiRequestsSince(sim, mark).filter(
			(r) => r.method === 'POST' && r.path === '/cis/api/v1/telephony/autoCall',
		).length;
	const executionIds = async () =>
		new Set((await client.listExecutions(wf.id)).map((e) => String(e.id)));
	/** Waits for `n` executions not in `known`; resolves them (finished, with data, oldest first). */
	async function newExecutions(known, n, timeoutMs = 30000) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const all = await client.listExecutions(wf.id, { includeData: true });
			const fresh = all.filter((e) => !known.has(String(e.id)));
			const done = fresh.filter((e) =>
				['success', 'error', 'crashed', 'canceled'].includes(e.status),
			);
			if (done.length >= n && done.length === fresh.length)
				return done.sort((a, b) => Number(a.id) - Number(b.id));
			if (Date.now() > deadline)
				throw new Error(
					`expected ${n} new execution(s) within ${timeoutMs} ms, saw ${fresh.length} (${fresh.map((e) => e.status).join(', ')})`,
				);
			await sleep(200);
		}
	}
	/** Asserts no execution beyond `known` appears within `ms`. */
	async function noNewExecution(known, ms = 2000) {
		await sleep(ms);
		const fresh = [...(await executionIds())].filter((id) => !known.has(id));
		assert.strictEqual(fresh.length, 0, `unexpected execution(s) ${fresh.join(', ')}`);
	}
	const post = (secret, body) =>
		httpRequest(
			'POST',
			secret === undefined ? triggerUrl : `${triggerUrl}?secret=${encodeURIComponent(secret)}`,
			{ body },
		);
	const fakeEvent = callEndedEvent;

	let task = null;
	let secret = null;
	const ok = await checks.check(
		'trigger activation creates exactly one call task whose webhook is the trigger URL with ?secret=',
		async () => {
			const mark = sim.requests.length;
			await client.activate(wf.id);
			await waitFor(
				'the task to be created',
				() => tasksPointingAt(sim, triggerUrl).length >= 1,
				30000,
			);
			await sleep(500);
			created.activation = createsSince(mark);
			const tasks = tasksPointingAt(sim, triggerUrl);
			assert.strictEqual(
				created.activation,
				1,
				`POST telephony/autoCall sent ${created.activation} times`,
			);
			assert.strictEqual(tasks.length, 1);
			task = tasks[0];
			const [target] = task.body.webhookUrls;
			secret = secretOfTask(task, triggerUrl);
			assert.match(
				target.url,
				new RegExp(
					`^${triggerUrl.replace(/[.?*+^$[\]\\(){}|-]/g, '\\$&')}\\?secret=[0-9a-f]{32,}$`,
				),
			);
			assert.deepStrictEqual(
				target.events,
				webhookTarget('x', ['CALL_ENDED', 'CANDIDATE_CHANGED']).events,
			);
			assert.strictEqual(task.name, taskName);
			return `task ${task.id} → ${triggerUrl}?secret=<${secret.length} hex>`;
		},
	);
	if (!ok) {
		for (const n of [
			'call played',
			'forged events',
			'repeated delivery',
			'older state is news',
			'deactivate/re-activate/restart',
		])
			checks.skip(`trigger: ${n}`, 'activation failed');
		return;
	}

	await checks.check(
		'the workflow as the public API exports it (with its static data) holds no webhook secret',
		async () => {
			const exported = JSON.stringify(await client.getWorkflow(wf.id));
			assert.ok(exported.includes(task.id), 'the export does not show the registration at all');
			assert.ok(!exported.includes(secret), 'the generated secret is in the exported workflow');
			return `${exported.length} characters, registration of task ${task.id} present, secret absent`;
		},
	);

	await checks.check(
		'a call played by the simulator on that task → one execution per event, callbackData intact',
		async () => {
			const known = await executionIds();
			const callbackData = { crmId: 'T-100', nested: { list: [1, 2], flag: true } };
			await simApi(sim, 'POST', 'telephony/autoCallCandidate', {
				autoCallId: task.id,
				phone: ['79990000100'],
				callbackData,
				forceStart: true,
			});
			const exs = await newExecutions(known, 2);
			const items = exs.map((e) => outputOf(e, TRIGGER)[0]);
			assert.deepStrictEqual(items.map((i) => i.event).sort(), ['CALL_ENDED', 'CANDIDATE_CHANGED']);
			for (const i of items)
				assert.deepStrictEqual(
					i.callbackData,
					callbackData,
					`callbackData of ${i.event}: ${JSON.stringify(i.callbackData)}`,
				);
			for (const i of items)
				assert.match(
					String(i.deliveryId),
					/^[0-9a-f]{32}$/,
					`deliveryId of ${i.event}: ${i.deliveryId}`,
				);
			const ended = items.find((i) => i.event === 'CALL_ENDED');
			assert.strictEqual(ended.callTo, '79990000100');
			assert.strictEqual(ended.taskId, task.id);
			const deliveries = sim.webhookDeliveries.filter((d) => d.url.startsWith(triggerUrl));
			assert.ok(
				deliveries.length >= 2 && deliveries.every((d) => d.status === 200),
				`deliveries: ${JSON.stringify(deliveries.map((d) => [d.event, d.status]))}`,
			);
			await noNewExecution(new Set([...known, ...exs.map((e) => String(e.id))]), 1000);
			return `executions ${exs.map((e) => `${e.id}:${outputOf(e, TRIGGER)[0].event}`).join(', ')}`;
		},
	);

	await checks.check(
		'forged events: wrong secret → 401, no secret → 401, and no execution',
		async () => {
			const known = await executionIds();
			const wrong = await post('0'.repeat(48), fakeEvent(task.id, 'forged-wrong'));
			const missing = await post(undefined, fakeEvent(task.id, 'forged-missing'));
			assert.strictEqual(wrong.status, 401, `wrong secret answered ${wrong.status} ${wrong.text}`);
			assert.strictEqual(
				missing.status,
				401,
				`missing secret answered ${missing.status} ${missing.text}`,
			);
			await noNewExecution(known, 1500);
			return `401 ${JSON.stringify(wrong.body)}; 401 ${JSON.stringify(missing.body)}`;
		},
	);

	await checks.check(
		'repeated delivery: the same event POSTed twice (second after the first execution ended) → one execution',
		async () => {
			const known = await executionIds();
			const event = fakeEvent(task.id, 'dup');
			const first = await post(secret, event);
			assert.strictEqual(
				first.status,
				200,
				`first delivery answered ${first.status} ${first.text}`,
			);
			// n8n answers with the node's small JSON body (not the text "firstEntryJson")
			assert.deepStrictEqual(
				Object.keys(first.body || {}).sort(),
				['deliveryId', 'received'],
				`first answer: ${first.text}`,
			);
			const [ex] = await newExecutions(known, 1);
			assert.strictEqual(ex.status, 'success');
			assert.strictEqual(outputOf(ex, TRIGGER)[0].deliveryId, first.body.deliveryId);
			const second = await post(secret, event);
			assert.strictEqual(second.status, 200, `repeat answered ${second.status} ${second.text}`);
			assert.deepStrictEqual(second.body, {
				received: true,
				deliveryId: first.body.deliveryId,
				ignored: 'repeated delivery',
			});
			await noNewExecution(new Set([...known, String(ex.id)]), 2000);
			return `1st → ${first.text}, execution ${ex.id}; 2nd → 200 ${second.text}, no execution`;
		},
	);

	await checks.check(
		'an older state coming back is news: CANDIDATE_CHANGED with status A, B, A → 3 executions; A again → still 3',
		async () => {
			const known = await executionIds();
			const candidateId = `cand-flip-${crypto.randomUUID()}`;
			const change = (status) => ({
				event: 'CANDIDATE_CHANGED',
				taskId: task.id,
				candidateId,
				status,
				callbackData: { crmId: 'T-flip' },
			});
			const answers = [];
			for (const status of ['PROCESS', 'PAUSED', 'PROCESS']) {
				answers.push(await post(secret, change(status)));
				// one at a time, as the service sends them
				await newExecutions(known, answers.length);
			}
			for (const a of answers)
				assert.deepStrictEqual(
					Object.keys(a.body || {}).sort(),
					['deliveryId', 'received'],
					`answer: ${a.text}`,
				);
			const exs = await newExecutions(known, 3);
			assert.deepStrictEqual(
				exs.map((e) => outputOf(e, TRIGGER)[0].status),
				['PROCESS', 'PAUSED', 'PROCESS'],
			);
			const again = await post(secret, change('PROCESS'));
			assert.deepStrictEqual(again.body, {
				received: true,
				deliveryId: answers[2].body.deliveryId,
				ignored: 'repeated delivery',
			});
			await noNewExecution(new Set([...known, ...exs.map((e) => String(e.id))]), 2000);
			return `executions ${exs.map((e) => e.id).join(', ')}; the last again → ${again.text}`;
		},
	);

	await checks.check(
		'bodies refused: broken JSON → 422 from n8n before the node; nested 20,000 levels → 400 from the node; no execution',
		async () => {
			const known = await executionIds();
			const broken = await post(secret, '{"event": "CALL_ENDED", ');
			assert.strictEqual(
				broken.status,
				422,
				`broken JSON answered ${broken.status} ${broken.text}`,
			);
			const deep = await post(
				secret,
				`{"event":"CALL_ENDED","data":${'['.repeat(20000)}${']'.repeat(20000)}}`,
			);
			assert.strictEqual(deep.status, 400, `deep body answered ${deep.status} ${deep.text}`);
			await noNewExecution(known, 1500);
			return `422 ${broken.text}; 400 ${deep.text}`;
		},
	);

	// ---- deactivate → re-activate → restart
	const secrets = [secret];
	await checks.check(
		'deactivate: the trigger URL is gone (404) and the running task is paused ("Old Task" default)',
		async () => {
			assert.strictEqual(
				sim.state.tasks.get(task.id).status,
				'PROCESS',
				'the task should be running before',
			);
			const mark = sim.requests.length;
			await client.deactivate(wf.id);
			await waitFor(
				'the task to be paused',
				() => sim.state.tasks.get(task.id).status === 'PAUSED',
				15000,
			);
			const res = await post(secret, fakeEvent(task.id, 'inactive'));
			assert.strictEqual(res.status, 404, `answered ${res.status}`);
			const sent = apiRequestsSince(sim, mark).map((r) => `${r.method} ${r.path}`);
			assert.deepStrictEqual(sent, [
				`GET /cis/api/v1/telephony/autoCall/${task.id}`,
				`POST /cis/api/v1/telephony/autoCall/${task.id}/pause`,
			]);
			return `404; task ${task.id} PAUSED (${sent.join(', ')})`;
		},
	);

	await checks.check(
		're-activate with unchanged settings: the same task is taken back and resumed, none created',
		async () => {
			const mark = sim.requests.length;
			await client.activate(wf.id);
			await waitFor(
				'the task to be resumed',
				() => sim.state.tasks.get(task.id).status === 'PROCESS',
				15000,
			);
			await sleep(500);
			created.reactivation = createsSince(mark);
			for (const t of tasksPointingAt(sim, triggerUrl)) {
				const s = secretOfTask(t, triggerUrl);
				if (!secrets.includes(s)) secrets.push(s);
			}
			assert.strictEqual(
				created.reactivation,
				0,
				`POST telephony/autoCall sent ${created.reactivation} time(s)`,
			);
			return `task ${task.id} PROCESS again; 0 tasks created`;
		},
	);

	await checks.check(
		'restart of n8n with the workflow active creates no task (checkExists finds its registration)',
		async () => {
			const mark = sim.requests.length;
			const t0 = Date.now();
			await ctx.n8n.restart();
			await client.waitForPublication(wf.id, 'published', 60000);
			await sleep(1500);
			created.restart = createsSince(mark);
			for (const t of tasksPointingAt(sim, triggerUrl)) {
				const s = secretOfTask(t, triggerUrl);
				if (!secrets.includes(s)) secrets.push(s);
			}
			assert.strictEqual(
				created.restart,
				0,
				`POST telephony/autoCall sent ${created.restart} time(s) at start-up`,
			);
			return `restarted in ${Date.now() - t0} ms; 0 tasks created`;
		},
	);

	await checks.check(
		'changed settings (task name) and re-activation → one new task with a new secret',
		async () => {
			await client.deactivate(wf.id);
			const stored = await client.getWorkflow(wf.id);
			const nodes = stored.nodes.map((n) =>
				n.name === TRIGGER
					? { ...n, parameters: { ...n.parameters, name: `${taskName} (renamed)` } }
					: n,
			);
			await client.api('PUT', `/workflows/${wf.id}`, {
				name: stored.name,
				nodes,
				connections: stored.connections,
				settings: { executionOrder: 'v1' },
			});
			const mark = sim.requests.length;
			await client.activate(wf.id);
			await waitFor('the new task', () => createsSince(mark) >= 1, 30000);
			await sleep(500);
			created.change = createsSince(mark);
			for (const t of tasksPointingAt(sim, triggerUrl)) {
				const s = secretOfTask(t, triggerUrl);
				if (!secrets.includes(s)) secrets.push(s);
			}
			assert.strictEqual(
				created.change,
				1,
				`POST telephony/autoCall sent ${created.change} time(s)`,
			);
			const newest = tasksPointingAt(sim, triggerUrl)
				.sort((a, b) => a.sequence - b.sequence)
				.pop();
			assert.strictEqual(newest.name, `${taskName} (renamed)`);
			assert.strictEqual(
				sim.state.tasks.get(task.id).status,
				'PAUSED',
				'the replaced task should stay paused',
			);
			return `new task ${newest.id}; the old task ${task.id} stays PAUSED`;
		},
	);

	await checks.check(
		'after deactivate/re-activate/restart/change: exactly one task registered with the CURRENT secret receives events; older secrets get 401',
		async () => {
			const tasks = tasksPointingAt(sim, triggerUrl);
			const total = created.activation + created.reactivation + created.restart + created.change;
			checks.note(
				`tasks created: ${total} (activation ${created.activation}, re-activation ${created.reactivation}, restart ${created.restart}, changed settings ${created.change}); tasks pointing at the trigger: ${tasks.length}; distinct secrets: ${secrets.length}`,
			);
			const known = await executionIds();
			const verdicts = [];
			for (const t of tasks) {
				const s = secretOfTask(t, triggerUrl);
				const res = await post(s, fakeEvent(t.id, `probe-${t.id.slice(0, 8)}`));
				verdicts.push({ task: t, secret: s, status: res.status });
			}
			const accepted = verdicts.filter((v) => v.status === 200);
			const refused = verdicts.filter((v) => v.status === 401);
			assert.strictEqual(
				accepted.length,
				1,
				`tasks whose URL is accepted: ${accepted.length} (${JSON.stringify(verdicts.map((v) => [v.task.id, v.status]))})`,
			);
			assert.strictEqual(
				refused.length,
				verdicts.length - 1,
				`other answers: ${JSON.stringify(verdicts.map((v) => v.status))}`,
			);
			const current = accepted[0];
			await newExecutions(known, 1);
			// the current task's real call reaches the workflow; an older task's call is refused
			const known2 = await executionIds();
			const callbackData = { crmId: 'T-after-restart' };
			await simApi(sim, 'POST', 'telephony/autoCallCandidate', {
				autoCallId: current.task.id,
				phone: ['79990000101'],
				callbackData,
				forceStart: true,
			});
			const exs = await newExecutions(known2, 2);
			for (const e of exs)
				assert.deepStrictEqual(outputOf(e, TRIGGER)[0].callbackData, callbackData);
			let olderNote = 'no older task to call';
			const older = refused.find((v) => v.task.status !== 'HALTED');
			if (older) {
				const mark = sim.webhookDeliveries.length;
				const known3 = await executionIds();
				await simApi(sim, 'POST', 'telephony/autoCallCandidate', {
					autoCallId: older.task.id,
					phone: ['79990000102'],
					callbackData: { crmId: 'old' },
					forceStart: true,
				});
				await waitFor(
					'deliveries of the older task',
					() => sim.webhookDeliveries.slice(mark).some((d) => d.url.includes(older.secret)),
					15000,
				);
				await noNewExecution(known3, 1500);
				const codes = sim.webhookDeliveries
					.slice(mark)
					.filter((d) => d.url.includes(older.secret))
					.map((d) => d.status);
				assert.ok(
					codes.every((c) => c === 401),
					`older task's deliveries answered ${codes.join(',')}`,
				);
				olderNote = `a call on older task ${older.task.id} was refused (${codes.join(',')}), no execution`;
			}
			assert.strictEqual(
				current.secret,
				secrets[secrets.length - 1],
				'the accepted secret is not the newest one',
			);
			const reused = current.secret === secrets[0] ? 'the first task' : 'the newest task';
			return `current task ${current.task.id} (${reused}); ${refused.length} older secret(s) → 401; a call on it → 2 executions; ${olderNote}; tasks created in all: ${total}`;
		},
	);
	ctx.summary.triggerTasksCreated = {
		...created,
		total: created.activation + created.reactivation + created.restart + created.change,
	};
};
