'use strict';
/**
 * An AI Agent phones a person and goes on with the answer, in a real n8n (1.x and 2.x).
 * Workflow: a lead (Webhook) → n8n's AI Agent with the OpenAI Chat Model pointed at the scripted
 * stand-in model of agent.e2e.js (served over HTTP on 127.0.0.1) and CIS Auto-Call → Create and Run
 * and Wait for Result as its tool "Call and wait" → "CRM note" (No Op). The CIS Auto-Call Trigger
 * (Existing Task or Template, its URL in the simulator's default template) hands the call's result
 * to the waiting execution, as in wait.e2e.js.
 *
 * Several calls one after another in one agent run are each a wait of their own; the same person twice is
 * decided by Max Calls per Run (called twice under the default, refused beyond 1 in the restart checks).
 *
 * The model is driven by `SCRIPT [...]` messages (one tool call per turn, or an array for calls
 * made together in one turn); its requests are recorded, so the checks read exactly what n8n gave
 * the model as each tool call's result.
 */
const assert = require('assert');
const crypto = require('crypto');
const { startScriptedChatModel } = require('../../scripts/lib/standInModel');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const {
	waitingTool,
	leadWebhook,
	chain,
	noOp,
	outputOf,
	errorOf,
	waitFor,
	waitBridgeTrigger,
	executionsWithWaiting,
	NO_REDIAL,
	nextExecution,
	apiRequestsSince,
} = require('./harness');
const { webhookTarget } = require('../../scripts/lib/playground');

const SECRET = 'e2e-agent-wait-secret-0123456789ab';
const CREATE_AND_RUN = '/cis/api/v1/telephony/autoCallCandidate/single';
/** The workflow's node names, and the tool's name as the model sees it. */
const [TOOL, TOOL_NAME, AGENT, NOTE] = ['Call and wait', 'Call_and_wait', 'AI Agent', 'CRM note'];
const FINISHED = ['success', 'error', 'crashed', 'canceled'];

/** Lead (Webhook, `{ text }`) → AI Agent (the model, `tools`) → CRM note. */
function agentWorkflow(name, { leadPath, openAi, tools, executionOrder = 'v1' }) {
	const lead = leadWebhook(leadPath);
	const agent = {
		parameters: {
			promptType: 'define',
			text: '={{ $json.body.text }}',
			options: { systemMessage: 'You qualify leads by phone.' },
		},
		id: crypto.randomUUID(),
		name: AGENT,
		type: '@n8n/n8n-nodes-langchain.agent',
		typeVersion: 3,
		position: [260, 0],
	};
	const model = {
		parameters: { model: { __rl: true, value: 'gpt-4o-mini', mode: 'id' }, options: {} },
		id: crypto.randomUUID(),
		name: 'Stand-in model',
		type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
		typeVersion: 1.2,
		position: [180, 240],
		credentials: { openAiApi: { id: String(openAi.id), name: openAi.name } },
	};
	const wf = chain(name, [lead, agent, noOp(NOTE)]);
	wf.nodes.push(model, ...tools);
	wf.connections[model.name] = {
		ai_languageModel: [[{ node: AGENT, type: 'ai_languageModel', index: 0 }]],
	};
	for (const tool of tools)
		wf.connections[tool.name] = { ai_tool: [[{ node: AGENT, type: 'ai_tool', index: 0 }]] };
	/** @type {Record<string, unknown>} */ (wf).settings = executionOrder ? { executionOrder } : {};
	return wf;
}

/** The JSON objects of one tool message (n8n gives the model the output items, as JSON text). */
function toolObjects(text) {
	let parsed;
	try {
		parsed = JSON.parse(text);
		if (typeof parsed === 'string') parsed = JSON.parse(parsed);
	} catch {
		return [{ text }];
	}
	return Array.isArray(parsed) ? parsed : [parsed];
}

module.exports = async function agentWaitChecks(ctx) {
	const { client, sim, creds, checks, version, n8n } = ctx;
	const model = await startScriptedChatModel();
	try {
		const openAi = await client.createCredential({
			name: 'e2e agent-wait model',
			type: 'openAiApi',
			data: { apiKey: 'sk-e2e-scripted', url: `${model.url}/v1`, header: false },
		});
		const secretCred = await client.createCredential({
			name: 'e2e agent-wait secret',
			type: 'cisAutoCallWebhookSecretApi',
			data: { secret: SECRET },
		});
		const triggerWebhookId = crypto.randomUUID();
		const triggerUrl = `${n8n.url}/webhook/${triggerWebhookId}/webhook`;
		const triggerWf = await client.createWorkflow(
			chain(`e2e agent-wait bridge ${version}`, [
				waitBridgeTrigger('CIS Trigger', triggerWebhookId, secretCred),
				noOp(),
			]),
		);
		await client.activate(triggerWf.id);
		sim.setDefaultTemplate({
			webhookUrls: [
				webhookTarget(`${triggerUrl}?secret=${SECRET}`, ['CALL_ENDED', 'CANDIDATE_CHANGED']),
			],
			redialStrategyOptions: NO_REDIAL,
		});

		const workflows = {};
		const publish = async (key, options) => {
			const leadPath = `e2e-agent-wait-${key}-${crypto.randomUUID()}`;
			const wf = await client.createWorkflow(
				agentWorkflow(`e2e agent-wait ${key} ${version}`, { leadPath, openAi, ...options }),
			);
			await client.activate(wf.id);
			workflows[key] = { wf, leadPath };
			return workflows[key];
		};
		/** Posts a lead whose text is `SCRIPT <calls>`; resolves once its execution has one of `statuses`. */
		const lead = async (key, calls, statuses = FINISHED, timeoutMs = 60000) => {
			const { wf, leadPath } = workflows[key];
			const known = new Set((await executionsWithWaiting(client, wf.id)).map((e) => String(e.id)));
			const mark = model.requests.length;
			const simMark = sim.requests.length;
			const answer = await client.callWebhook(leadPath, {
				text: `SCRIPT ${JSON.stringify(calls)}`,
			});
			assert.strictEqual(
				answer.status,
				200,
				`lead webhook answered ${answer.status} ${answer.text}`,
			);
			const ex = await nextExecution(client, wf.id, known, statuses, timeoutMs);
			return { ex, known, mark, simMark };
		};
		/** What the model was given as tool results in its requests since `mark` (the last request's tool messages). */
		const toolResultsSince = (mark) => model.toolResultsSince(mark).map(toolObjects);
		/** The tool results of the last request since `mark`, by the phone the model gave in each call. */
		const resultsByPhoneSince = (mark) => {
			const chats = model.requests.slice(mark).filter((r) => Array.isArray(r.body.messages));
			const messages = chats[chats.length - 1].body.messages;
			const phoneOfCall = {};
			for (const m of messages)
				for (const call of m.tool_calls || [])
					phoneOfCall[call.id] = JSON.parse(call.function.arguments).phone;
			const byPhone = {};
			for (const m of messages.filter((x) => x.role === 'tool'))
				byPhone[phoneOfCall[m.tool_call_id]] = toolObjects(
					typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
				);
			return byPhone;
		};
		const createdSince = (simMark) =>
			apiRequestsSince(sim, simMark).filter((r) => r.path === CREATE_AND_RUN);

		await publish('main', { tools: [waitingTool(creds.token)] });

		await checks.check(
			"agent wait: the agent calls, waits, and the model's next turn reads the answered result as one small JSON object (outcome, status, call id, what the call collected), never the key or the raw answer",
			async () => {
				sim.setOutcome('79990004001', { attempts: ['ANSWERED'], result: { interested: 'yes' } });
				const { ex, mark, simMark } = await lead('main', [
					{ tool: TOOL_NAME, args: { phone: '79990004001' } },
				]);
				assert.strictEqual(
					ex.status,
					'success',
					`execution ${ex.id} ended ${ex.status}: ${JSON.stringify(errorOf(ex))}`,
				);
				const created = createdSince(simMark);
				assert.strictEqual(created.length, 1);
				const results = toolResultsSince(mark);
				assert.strictEqual(results.length, 1, JSON.stringify(results));
				const [item] = results[0];
				const [call] = sim.events
					.filter((e) => e.event === 'CALL_ENDED' && e.payload.callTo === '79990004001')
					.map((e) => e.payload);
				assert.deepStrictEqual(Object.keys(item).sort(), ['callId', 'outcome', 'result', 'status']);
				assert.strictEqual(item.outcome, 'answered');
				assert.strictEqual(item.status, 'Answered');
				assert.deepStrictEqual(item.result, { interested: 'yes' });
				assert.ok(typeof item.callId === 'string' && item.callId !== '', JSON.stringify(item));
				assert.strictEqual(item.callId, call.id);
				const key = created[0].body.callbackData.n8nCisAutoCallWait.key;
				const everything = JSON.stringify(model.requests.slice(mark));
				assert.ok(!everything.includes(key), 'the wait key reached the model');
				assert.ok(
					!JSON.stringify((await client.getExecution(ex.id)).data).includes(key),
					'the wait key is in the execution data',
				);
				return `execution ${ex.id}; the model read ${JSON.stringify(item)}`;
			},
		);

		await checks.check(
			'agent wait: two calls of the same tool in one turn → one person is called and the model reads their result; the other call is refused before anyone is phoned ("call one person at a time"), never its input',
			async () => {
				const phones = ['79990004011', '79990004012'];
				sim.setOutcome(phones[0], { attempts: ['ANSWERED'], result: { lead: 'A' } });
				sim.setOutcome(phones[1], { attempts: ['ANSWERED'], result: { lead: 'B' } });
				const { ex, mark, simMark } = await lead('main', [
					phones.map((phone) => ({ tool: TOOL_NAME, args: { phone } })),
				]);
				assert.strictEqual(
					ex.status,
					'success',
					`execution ${ex.id} ended ${ex.status}: ${JSON.stringify(errorOf(ex))}`,
				);
				const called = createdSince(simMark).map((r) => r.body.phone[0]);
				assert.strictEqual(called.length, 1, `create requests: ${called.join(', ')}`);
				const byPhone = resultsByPhoneSince(mark);
				const other = phones.find((phone) => phone !== called[0]);
				assert.strictEqual(byPhone[called[0]][0].outcome, 'answered', JSON.stringify(byPhone));
				assert.deepStrictEqual(byPhone[called[0]][0].result, {
					lead: called[0] === phones[0] ? 'A' : 'B',
				});
				assert.strictEqual(byPhone[other][0].outcome, 'refused', JSON.stringify(byPhone));
				assert.match(byPhone[other][0].message, /Call one person at a time/);
				assert.ok(
					!JSON.stringify(byPhone[other]).includes(other),
					"the model read the refused call's input",
				);
				return `called ${called[0]} (call ${phones.indexOf(called[0]) + 1} of the turn); the model read ${JSON.stringify(byPhone)}`;
			},
		);

		/**
		 * The model calls the tool once per turn, each call after it read the last result. Returns the tool results
		 * it read, in order, the execution, and the trigger workflow's new runs.
		 */
		const callsOneAfterAnother = async (phones) => {
			const triggerRuns = new Set(
				(await client.listExecutions(triggerWf.id)).map((e) => String(e.id)),
			);
			const { ex, mark, simMark } = await lead(
				'main',
				phones.map((phone) => ({ tool: TOOL_NAME, args: { phone } })),
				FINISHED,
				90000,
			);
			assert.strictEqual(
				ex.status,
				'success',
				`execution ${ex.id} ended ${ex.status}: ${JSON.stringify(errorOf(ex))}`,
			);
			const results = toolResultsSince(mark).map(([item]) => item);
			const created = createdSince(simMark);
			const newTriggerRuns = (await client.listExecutions(triggerWf.id)).filter(
				(e) => !triggerRuns.has(String(e.id)),
			);
			return { ex, results, created, newTriggerRuns };
		};
		for (const count of [2, 3]) {
			await checks.check(
				`agent wait: ${count} calls one after another in one agent run (default Max Calls per Run, 3) → each is a wait of its own: each person is called once and the model reads each result; nothing goes to the trigger's workflow`,
				async () => {
					const phones = Array.from({ length: count }, (_, i) => `799900041${count}${i}`);
					phones.forEach((phone, i) =>
						sim.setOutcome(phone, { attempts: ['ANSWERED'], result: { lead: `L${i + 1}` } }),
					);
					const { ex, results, created, newTriggerRuns } = await callsOneAfterAnother(phones);
					assert.deepStrictEqual(
						created.map((r) => r.body.phone[0]),
						phones,
					);
					assert.strictEqual(
						new Set(created.map((r) => r.body.callbackData.n8nCisAutoCallWait.key)).size,
						count,
						'one wait key per call',
					);
					assert.deepStrictEqual(
						results.map((item) => [item.outcome, item.result && item.result.lead]),
						phones.map((_, i) => ['answered', `L${i + 1}`]),
						JSON.stringify(results),
					);
					assert.strictEqual(
						newTriggerRuns.length,
						0,
						`the trigger's workflow ran ${newTriggerRuns.length} time(s)`,
					);
					return `execution ${ex.id}; the model read ${JSON.stringify(results)}`;
				},
			);
		}
		await checks.check(
			'agent wait: the same person twice in one agent run → the cap decides: called twice under the default Max Calls per Run (3), and the model reads both results',
			async () => {
				const phone = '79990004109';
				sim.setOutcome(phone, { attempts: ['ANSWERED'], result: { lead: 'same' } });
				const { ex, results, created } = await callsOneAfterAnother([phone, phone]);
				assert.deepStrictEqual(
					created.map((r) => r.body.phone[0]),
					[phone, phone],
				);
				assert.deepStrictEqual(
					results.map((item) => item.outcome),
					['answered', 'answered'],
					JSON.stringify(results),
				);
				assert.notStrictEqual(results[0].callId, results[1].callId);
				return `execution ${ex.id}; the model read ${JSON.stringify(results)}`;
			},
		);

		await publish('legacy', { tools: [waitingTool(creds.token)], executionOrder: 'v0' });
		await checks.check(
			"agent wait: legacy execution order (v0) → the tool refuses at once, nobody is called; its output names Settings → Execution Order v1 (the model reads n8n's empty result: in v0 the agent goes on before its tool runs)",
			async () => {
				const { ex, mark, simMark } = await lead('legacy', [
					{ tool: TOOL_NAME, args: { phone: '79990004021' } },
				]);
				assert.strictEqual(createdSince(simMark).length, 0);
				const full = await client.getExecution(ex.id);
				const runs = (full.data.resultData.runData[TOOL] || []).map((run) =>
					JSON.stringify({ error: run.error && run.error.message, output: run.data }),
				);
				assert.ok(
					runs.some((run) => /Execution Order/.test(run) && /v1/.test(run)),
					`the tool's runs: ${runs.join(' | ')}`,
				);
				return `execution ${ex.id} ${ex.status}; the model read ${JSON.stringify(toolResultsSince(mark))}; the tool's run: ${runs.join(' | ').slice(0, 400)}`;
			},
		);

		await publish('short', {
			tools: [waitingTool(creds.token, { waitAtMost: 1, waitUnit: 'minutes' })],
		});
		await checks.check(
			'agent wait: no result within Wait at Most (1 minute) → the model reads outcome noResult "No result within 1 minute", not the tool\'s input',
			async () => {
				sim.setOutcome('79990004031', { attempts: [{ status: 'ANSWERED', durationSec: 4000 }] });
				const { ex, mark, simMark } = await lead(
					'short',
					[{ tool: TOOL_NAME, args: { phone: '79990004031' } }],
					FINISHED,
					180000,
				);
				assert.strictEqual(
					ex.status,
					'success',
					`execution ${ex.id} ended ${ex.status}: ${JSON.stringify(errorOf(ex))}`,
				);
				assert.strictEqual(createdSince(simMark).length, 1);
				const [[item]] = toolResultsSince(mark);
				assert.strictEqual(item.outcome, 'noResult', JSON.stringify(item));
				assert.match(item.message, /^No result within 1 minute/);
				assert.ok(!JSON.stringify(item).includes('79990004031'), "the model read the tool's input");
				return `execution ${ex.id}; the model read ${JSON.stringify(item)}`;
			},
		);

		const chatWebhookId = crypto.randomUUID();
		{
			const wf = agentWorkflow(`e2e agent-wait chat ${version}`, {
				leadPath: 'unused',
				openAi,
				tools: [waitingTool(creds.token)],
			});
			const chatTrigger = {
				parameters: { public: true, options: {} },
				id: crypto.randomUUID(),
				name: 'When chat message received',
				type: '@n8n/n8n-nodes-langchain.chatTrigger',
				typeVersion: 1.1,
				position: [0, 0],
				webhookId: chatWebhookId,
			};
			wf.nodes = wf.nodes.filter((n) => n.name !== 'New lead');
			wf.nodes.push(chatTrigger);
			delete wf.connections['New lead'];
			wf.connections[chatTrigger.name] = { main: [[{ node: AGENT, type: 'main', index: 0 }]] };
			wf.nodes.find((n) => n.name === AGENT).parameters = { options: {} };
			const created = await client.createWorkflow(wf);
			await client.activate(created.id);
			workflows.chat = { wf: created };
		}
		await checks.check(
			"agent wait: in a Chat Trigger conversation the waiting tool is refused at once (nobody called) and the chat user reads the agent's answer saying so, not an error",
			async () => {
				const mark = model.requests.length;
				const simMark = sim.requests.length;
				const res = await httpRequest('POST', `${n8n.url}/webhook/${chatWebhookId}/chat`, {
					body: {
						action: 'sendMessage',
						sessionId: 'e2e-agent-wait-chat',
						chatInput: `SCRIPT ${JSON.stringify([{ tool: TOOL_NAME, args: { phone: '79990004051' } }])}`,
					},
				});
				assert.strictEqual(
					res.status,
					200,
					`the chat answered ${res.status}: ${res.text.slice(0, 300)}`,
				);
				assert.strictEqual(createdSince(simMark).length, 0);
				const [[item]] = toolResultsSince(mark);
				assert.strictEqual(item.outcome, 'refused', JSON.stringify(item));
				assert.match(item.message, /^Not sent: in a chat this tool cannot wait/);
				assert.match(JSON.stringify(res.body), /in a chat this tool cannot wait/);
				return `the chat answered 200: ${JSON.stringify(res.body).slice(0, 200)}`;
			},
		);

		// Last: n8n restarts while an agent waits.
		/** The call's events as the service sends them again after a failed delivery: CALL_ENDED, then CANDIDATE_CHANGED. */
		const deliverAgain = async (phone) => {
			const answers = [];
			for (const event of ['CALL_ENDED', 'CANDIDATE_CHANGED']) {
				const sent = sim.webhookDeliveries.find(
					(d) =>
						d.url.startsWith(triggerUrl) && d.event === event && d.body && d.body.callTo === phone,
				);
				if (!sent) continue;
				const res = await httpRequest('POST', `${triggerUrl}?secret=${SECRET}`, {
					body: sent.body,
				});
				answers.push(`${event} → ${res.status} ${res.text.slice(0, 120)}`);
			}
			return answers;
		};
		await publish('restart', {
			tools: [waitingTool(creds.token, { options: { maxCallsPerRun: 1 } })],
		});
		/**
		 * n8n restarts while the agent waits; `recoveryMode` is the new process's N8N_EVENTBUS_RECOVERY_MODE (null:
		 * n8n's default, extensive). Resolves the outcome: { agentEx } when the agent went on, { triggerItem, agentEx }
		 * when the result reached the trigger's workflow.
		 */
		const restartWhileWaiting = async ([phoneA, phoneB], recoveryMode, marker) => {
			sim.setOutcome(phoneA, {
				attempts: [{ status: 'ANSWERED', durationSec: 300 }],
				result: { [marker]: true },
			});
			const triggerRuns = new Set(
				(await client.listExecutions(triggerWf.id)).map((e) => String(e.id)),
			);
			const { ex, mark, simMark } = await lead(
				'restart',
				[
					{ tool: TOOL_NAME, args: { phone: phoneA } },
					{ tool: TOOL_NAME, args: { phone: phoneB } },
				],
				['waiting'],
				30000,
			);
			await n8n.restart({ env: { N8N_EVENTBUS_RECOVERY_MODE: recoveryMode } });
			await waitFor(
				'the call ended',
				() =>
					sim.webhookDeliveries.some(
						(d) => d.body && d.body.callTo === phoneA && d.event === 'CALL_ENDED',
					),
				60000,
			);
			const answers = await deliverAgain(phoneA);
			const said = `events sent again after the restart: ${answers.join('; ')}`;
			const outcome = await waitFor(
				"the result in the agent or in the trigger's workflow",
				async () => {
					const agentEx = await client.getExecution(ex.id);
					if (FINISHED.includes(agentEx.status) && resultsByPhoneSince(mark)[phoneA])
						return { agentEx };
					const all = await client.listExecutions(triggerWf.id, { includeData: true });
					const fresh = all
						.filter((e) => !triggerRuns.has(String(e.id)))
						.flatMap((e) => outputOf(e, 'CIS Trigger'))
						.find((i) => JSON.stringify(i).includes(marker));
					return fresh ? { triggerItem: fresh, agentEx } : undefined;
				},
				60000,
			).catch(async (error) => {
				const agentEx = await client.getExecution(ex.id).catch(() => ({}));
				assert.fail(
					`${error.message}; ${said}; the agent's execution ${ex.id} is ${agentEx.status} (${JSON.stringify(errorOf(agentEx)).slice(0, 200)})`,
				);
			});
			assert.deepStrictEqual(
				createdSince(simMark).map((r) => r.body.phone[0]),
				[phoneA],
			);
			return { ...outcome, ex, mark, said };
		};
		/** The model read the answered result of phoneA, and the cap refused phoneB. */
		const assertWentOn = (mark, [phoneA, phoneB]) => {
			const byPhone = resultsByPhoneSince(mark);
			assert.strictEqual(byPhone[phoneA][0].outcome, 'answered', JSON.stringify(byPhone));
			assert.strictEqual(byPhone[phoneB][0].outcome, 'refused', JSON.stringify(byPhone));
			assert.match(
				byPhone[phoneB][0].message,
				/would go beyond 1 call per agent run .* 1 already started/,
			);
			return byPhone;
		};
		await checks.check(
			'agent wait: n8n restarts while the agent waits, with N8N_EVENTBUS_RECOVERY_MODE=simple → the agent goes on in the new process: the model reads the answered result, and Max Calls per Run 1 still holds there (the next call is refused); one person phoned',
			async () => {
				const phones = /** @type {[string, string]} */ (['79990004043', '79990004044']);
				const { agentEx, triggerItem, ex, mark, said } = await restartWhileWaiting(
					phones,
					'simple',
					'afterSimpleRestart',
				);
				if (triggerItem)
					assert.fail(
						`the result reached the trigger's workflow instead (${JSON.stringify(triggerItem).slice(0, 200)}); the agent's execution ${ex.id} is ${agentEx.status}; ${said}`,
					);
				const byPhone = assertWentOn(mark, phones);
				return `the agent's execution ${ex.id} resumed in the new process (${agentEx.status}); ${said}; the model read ${JSON.stringify(byPhone)}`;
			},
		);
		// Last (n8n goes on with its default recovery for the modules after this one).
		await checks.check(
			"agent wait: n8n restarts while the agent waits (n8n's default recovery) → the call's result is not lost: it resumes the agent in the new process (and Max Calls per Run 1 still holds there: the next call is refused), or, where n8n's start-up recovery ended the agent's execution, it reaches the trigger's own workflow marked as not handed over",
			async () => {
				const phones = /** @type {[string, string]} */ (['79990004041', '79990004042']);
				const { agentEx, triggerItem, ex, mark, said } = await restartWhileWaiting(
					phones,
					null,
					'afterRestart',
				);
				if (triggerItem) {
					assert.ok(
						JSON.stringify(triggerItem).includes('notHandedOver'),
						`${said}; not marked: ${JSON.stringify(triggerItem).slice(0, 300)}`,
					);
					return `n8n's recovery ended the agent's execution ${ex.id} (${agentEx.status}); ${said}; the trigger's workflow got ${JSON.stringify(triggerItem).slice(0, 300)}`;
				}
				const byPhone = assertWentOn(mark, phones);
				return `the agent's execution ${ex.id} resumed in the new process; ${said}; the model read ${JSON.stringify(byPhone)}`;
			},
		);
	} finally {
		await model.close();
		sim.setDefaultTemplate({ webhookUrls: [] });
	}
};

module.exports.agentWorkflow = agentWorkflow;
module.exports.toolObjects = toolObjects;
module.exports.TOOL_NAME = TOOL_NAME;
module.exports.waitingTool = waitingTool;
