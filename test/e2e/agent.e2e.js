'use strict';
/**
 * Example 6 (an AI Agent with CIS Auto-Call → Create and Run as its tool) in a real n8n, with
 * n8n's own AI Agent and OpenAI Chat Model nodes. The model is the stand-in of
 * scripts/lib/standInModel.js (OpenAI-compatible, on 127.0.0.1): it calls the tool once per phone
 * number in the user's message, one after another, then answers with what the tool returned. It
 * records every request, so the checks see what n8n gives the model: the tool's description and
 * arguments, and the text the tool returned for each call.
 *
 * A user message `SCRIPT [{"tool": "<tool name>", "args": {...}}, ...]` makes the model make exactly
 * those tool calls instead, one per turn (a 40-number phone, two tools, Start); a step
 * that is an array of calls is made in one turn (parallel tool calls).
 *
 * Shows in real n8n (1.x and 2.x): the node detects that it runs as a tool (the AI Agent v3 runs
 * tools as ordinary nodes), Allowed Numbers refuses with 0 requests, the agent default of Max Calls
 * per Run holds over the tool calls of one execution and over two CIS tools of one agent, one
 * number per call, no task started by the agent, and what the model reads back.
 */
const assert = require('assert');
const crypto = require('crypto');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const { loadExamples, prepareExample } = require('../../scripts/lib/playground');
const { apiRequestsSince } = require('./harness');
const { startScriptedChatModel } = require('../../scripts/lib/standInModel');

const CREATE_AND_RUN = '/cis/api/v1/telephony/autoCallCandidate/single';

/** The JSON the tool returned for one call (n8n gives the model the output items as a JSON array). */
function toolAnswer(text) {
	const parsed = JSON.parse(text);
	const items = typeof parsed === 'string' ? JSON.parse(parsed) : parsed;
	return Array.isArray(items) ? items : [items];
}

module.exports = async function agentChecks(ctx) {
	const { client, sim, checks, creds } = ctx;
	const model = await startScriptedChatModel();
	try {
		const example = loadExamples().find((e) => e.key === '06');
		const openAi = await client.createCredential({
			name: 'e2e scripted model',
			type: 'openAiApi',
			data: { apiKey: 'sk-e2e-scripted', url: `${model.url}/v1`, header: false },
		});
		const json = prepareExample(example.json, {
			credentialType: 'token',
			credentials: { cisAutoCallApi: { id: String(creds.token.id), name: creds.token.name } },
		});
		const trigger = json.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.chatTrigger');
		// The hosted chat's webhook answers a POSTed message with the agent's output.
		trigger.parameters = { ...trigger.parameters, public: true };
		const modelNode = json.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi');
		modelNode.credentials = { openAiApi: { id: String(openAi.id), name: openAi.name } };
		const toolNode = json.nodes.find((n) => n.type.endsWith('.cisAutoCallTool'));
		const wf = await client.createWorkflow(json);
		await client.activate(wf.id);
		const chatUrl = `${ctx.n8n.url}/webhook/${trigger.webhookId}/chat`;
		let session = 0;
		const chat = async (text) => {
			const mark = model.requests.length;
			const simMark = sim.requests.length;
			session += 1;
			const res = await httpRequest('POST', chatUrl, {
				body: { action: 'sendMessage', sessionId: `e2e-${session}`, chatInput: text },
			});
			assert.strictEqual(res.status, 200, `chat answered ${res.status}: ${res.text}`);
			return {
				answer: res.body,
				toolResults: model.toolResultsSince(mark).map(toolAnswer),
				created: apiRequestsSince(sim, simMark).filter((r) => r.path === CREATE_AND_RUN),
				modelRequests: model.requests.slice(mark),
			};
		};

		await checks.check(
			"example 6: the model is given the tool's description and the $fromAI arguments with their descriptions",
			async () => {
				const { modelRequests } = await chat('Hello');
				const tool = modelRequests[0].body.tools[0].function;
				assert.strictEqual(tool.description, toolNode.parameters.toolDescription);
				assert.deepStrictEqual(Object.keys(tool.parameters.properties).sort(), ['name', 'phone']);
				assert.match(
					tool.parameters.properties.phone.description,
					/Never guess, complete or make up a number/,
				);
				return `tool "${tool.name}"`;
			},
		);

		await checks.check(
			'example 6: the agent calls an allowed number; the model reads back outcome done and the candidate id, not the raw answer',
			async () => {
				const { toolResults, created } = await chat('Please call Ann on 79990008801.');
				assert.strictEqual(created.length, 1, `create requests: ${created.length}`);
				assert.deepStrictEqual(created[0].body.phone, ['79990008801']);
				assert.strictEqual(toolResults.length, 1);
				const [item] = toolResults[0];
				assert.strictEqual(item.outcome, 'done', JSON.stringify(item));
				assert.ok(
					typeof item.autoCallCandidateId === 'string' && item.autoCallCandidateId !== '',
					JSON.stringify(item),
				);
				assert.strictEqual(item.response, undefined, 'the raw answer reached the model');
				return JSON.stringify(item);
			},
		);

		await checks.check(
			'example 6: a number outside Allowed Numbers is refused with 0 requests; the model reads why',
			async () => {
				const { toolResults, created } = await chat('Call 74950000001 now.');
				assert.strictEqual(created.length, 0);
				const [item] = toolResults[0];
				assert.strictEqual(item.outcome, 'refused');
				assert.match(
					item.message,
					/^Refused: the number 74950000001 is not in Allowed Numbers \("7999"\)/,
				);
				return item.message;
			},
		);

		await checks.check(
			'example 6: Max Calls per Run not set, so the tool default (3) holds over the tool calls of one execution: the 4th is refused, 3 requests',
			async () => {
				const { toolResults, created } = await chat(
					'Call 79990007011, 79990007012, 79990007013 and 79990007014.',
				);
				assert.strictEqual(created.length, 3, `create requests: ${created.length}`);
				assert.deepStrictEqual(
					toolResults.map((r) => r[0].outcome),
					['done', 'done', 'done', 'refused'],
				);
				assert.match(
					toolResults[3][0].message,
					/would go beyond 3 calls per agent run \(.*\), counting all CIS Auto-Call tools of this workflow execution together;/,
				);
				return toolResults[3][0].message;
			},
		);

		await checks.check(
			"a new agent's defaults: OpenAI Chat Model 1.3 as it comes (Responses API on) and Phone Numbers from the ✨ button ($fromAI('Phone_Numbers')): the stand-in is asked over POST /v1/responses and the call is made",
			async () => {
				const fresh = JSON.parse(JSON.stringify(json));
				fresh.name = `${json.name} (new agent's defaults)`;
				const freshTrigger = fresh.nodes.find(
					(n) => n.type === '@n8n/n8n-nodes-langchain.chatTrigger',
				);
				freshTrigger.webhookId = crypto.randomUUID();
				const freshModel = fresh.nodes.find(
					(n) => n.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				);
				freshModel.typeVersion = 1.3;
				// what the editor saves for a new OpenAI Chat Model left as it is
				freshModel.parameters = {
					model: { __rl: true, mode: 'list', value: 'gpt-5-mini' },
					builtInTools: {},
					options: {},
				};
				const freshTool = fresh.nodes.find((n) => n.type.endsWith('.cisAutoCallTool'));
				// as n8n 2.41's ✨ button writes it (the browser suite clicks it)
				freshTool.parameters = {
					...freshTool.parameters,
					phone:
						"={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('Phone_Numbers', ``, 'string') }}",
				};
				const created = await client.createWorkflow(fresh);
				await client.activate(created.id);
				const mark = model.requests.length;
				const simMark = sim.requests.length;
				const res = await httpRequest(
					'POST',
					`${ctx.n8n.url}/webhook/${freshTrigger.webhookId}/chat`,
					{
						body: {
							action: 'sendMessage',
							sessionId: 'e2e-new-agent',
							chatInput: 'Please call Ann on 79990008802.',
						},
					},
				);
				assert.strictEqual(res.status, 200, `chat answered ${res.status}: ${res.text}`);
				const routes = model.requests.slice(mark).map((r) => `${r.method} ${r.path.split('?')[0]}`);
				assert.ok(
					routes.length >= 2 && routes.every((route) => route === 'POST /v1/responses'),
					`the model was asked: ${routes.join(', ')}`,
				);
				const tool = model.requests[mark].body.tools.find((t) => t.type === 'function');
				assert.ok(
					tool.parameters.properties.Phone_Numbers,
					`the tool's arguments: ${JSON.stringify(tool.parameters)}`,
				);
				const calls = apiRequestsSince(sim, simMark).filter((r) => r.path === CREATE_AND_RUN);
				assert.deepStrictEqual(
					calls.map((r) => r.body.phone),
					[['79990008802']],
				);
				const [item] = model.toolResultsSince(mark).map(toolAnswer)[0];
				assert.strictEqual(item.outcome, 'done', JSON.stringify(item));
				await client.deactivate(created.id);
				return `${routes.length} × POST /v1/responses; 1 call; the model read outcome done`;
			},
		);

		await capsChecks(ctx, { client, sim, checks, example, openAi, model, creds });
	} finally {
		await model.close();
	}
};

/**
 * Caps that count people, in real n8n: example 6 with a second CIS tool (a copy of "Call a person") and a
 * "Start a task" tool (Call Task → Start), driven by SCRIPT messages.
 */
async function capsChecks(ctx, { client, sim, checks, example, openAi, model, creds }) {
	const json = prepareExample(example.json, {
		credentialType: 'token',
		credentials: { cisAutoCallApi: { id: String(creds.token.id), name: creds.token.name } },
	});
	json.name = `${json.name} (two tools and Start)`;
	const trigger = json.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.chatTrigger');
	trigger.parameters = { ...trigger.parameters, public: true };
	trigger.webhookId = '0d3c6b8e-2f47-4a19-9e55-7c1b2a3d4e18';
	trigger.id = '7e1a2b3c-4d5e-4f60-8a71-b2c3d4e5f601';
	const modelNode = json.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi');
	modelNode.credentials = { openAiApi: { id: String(openAi.id), name: openAi.name } };
	const first = json.nodes.find((n) => n.type.endsWith('.cisAutoCallTool'));
	const second = {
		...JSON.parse(JSON.stringify(first)),
		id: '7e1a2b3c-4d5e-4f60-8a71-b2c3d4e5f602',
		name: 'Call a person too',
		position: [520, 240],
	};
	const start = {
		id: '7e1a2b3c-4d5e-4f60-8a71-b2c3d4e5f603',
		name: 'Start a task',
		type: first.type,
		typeVersion: first.typeVersion,
		position: [640, 240],
		credentials: first.credentials,
		parameters: {
			descriptionType: 'manual',
			toolDescription: 'Starts a call task: the voice bot phones everyone in it.',
			resource: 'callTask',
			operation: 'start',
			autoCallId: {
				__rl: true,
				mode: 'id',
				value: "={{ $fromAI('task', 'The id of the call task to start', 'string') }}",
			},
			options: {},
		},
	};
	json.nodes.push(second, start);
	for (const node of [second, start])
		json.connections[node.name] = { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] };
	const wf = await client.createWorkflow(json);
	await client.activate(wf.id);
	const chatUrl = `${ctx.n8n.url}/webhook/${trigger.webhookId}/chat`;
	let session = 0;
	const script = async (calls) => {
		const mark = model.requests.length;
		const simMark = sim.requests.length;
		session += 1;
		const res = await httpRequest('POST', chatUrl, {
			body: {
				action: 'sendMessage',
				sessionId: `e2e-caps-${session}`,
				chatInput: `SCRIPT ${JSON.stringify(calls)}`,
			},
		});
		assert.strictEqual(res.status, 200, `chat answered ${res.status}: ${res.text}`);
		const toolNames = model.requests[mark].body.tools.map((t) => t.function.name);
		return {
			toolNames,
			toolResults: model.toolResultsSince(mark).map(toolAnswer),
			api: apiRequestsSince(sim, simMark),
		};
	};
	const numbersOf = (api) =>
		api.filter((r) => r.path === CREATE_AND_RUN).flatMap((r) => r.body.phone);

	await checks.check(
		'a phone with 40 numbers in one tool call is refused, 0 requests; the model reads why',
		async () => {
			const forty = Array.from({ length: 40 }, (_, i) => `7999000${String(8001 + i)}`).join(',');
			const { toolResults, api } = await script([
				{ tool: 'Call_a_person', args: { phone: forty, name: '' } },
			]);
			assert.strictEqual(api.length, 0, `requests: ${api.map((r) => r.path).join(', ')}`);
			const [item] = toolResults[0];
			assert.strictEqual(item.outcome, 'refused', JSON.stringify(item));
			assert.match(
				item.message,
				/^Refused: this call gives 40 numbers for one person, and an AI Agent may give one number per call, so nothing was called\. Call again with the one number the user meant/,
			);
			return item.message;
		},
	);

	await checks.check(
		'two CIS tools in one agent share the default cap of 3: calls through both, the 4th is refused, 3 numbers called',
		async () => {
			const { toolNames, toolResults, api } = await script([
				{ tool: 'Call_a_person', args: { phone: '79990008101', name: '' } },
				{ tool: 'Call_a_person_too', args: { phone: '79990008102', name: '' } },
				{ tool: 'Call_a_person_too', args: { phone: '79990008103', name: '' } },
				{ tool: 'Call_a_person', args: { phone: '79990008104', name: '' } },
			]);
			assert.ok(
				toolNames.includes('Call_a_person') && toolNames.includes('Call_a_person_too'),
				`tools: ${toolNames.join(', ')}`,
			);
			assert.deepStrictEqual(numbersOf(api), ['79990008101', '79990008102', '79990008103']);
			assert.deepStrictEqual(
				toolResults.map((r) => r[0].outcome),
				['done', 'done', 'done', 'refused'],
			);
			assert.match(
				toolResults[3][0].message,
				/would go beyond 3 calls per agent run \(.*\), counting all CIS Auto-Call tools of this workflow execution together;/,
			);
			return `${toolNames.join(', ')}; ${toolResults[3][0].message}`;
		},
	);

	await checks.check(
		'Call Task → Start as a tool call is refused (the option is off): 0 requests, the task stays Ready',
		async () => {
			const task = sim.state.createTask({ body: { name: 'e2e agent start' }, source: 'autoCall' });
			task.status = 'READY';
			const { toolResults, api } = await script([
				{ tool: 'Start_a_task', args: { task: task.id } },
			]);
			assert.strictEqual(api.length, 0, `requests: ${api.map((r) => r.path).join(', ')}`);
			assert.strictEqual(sim.state.tasks.get(task.id).status, 'READY');
			const [item] = toolResults[0];
			assert.strictEqual(item.outcome, 'refused', JSON.stringify(item));
			assert.match(item.message, /^Refused: starting a call task phones everyone already in it/);
			return item.message;
		},
	);
}
