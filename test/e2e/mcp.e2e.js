'use strict';
/**
 * Example 14c in a real n8n: n8n's MCP Server Trigger (Bearer Auth) with CIS Auto-Call → Create and
 * Run ("Call a person") and n8n's Data Table tool ("Look up call results") as its tools, plus, for
 * the refusal, Create and Run and Wait for Result ("Call and wait"). Driven by a real MCP client: the
 * official TypeScript SDK (`@modelcontextprotocol/sdk`, streamable HTTP), as Claude Desktop or Cursor
 * connect. Example 14a (lib/resultsTable.js) writes each call's result into the Data Table.
 */
const assert = require('assert');
const crypto = require('crypto');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const {
	StreamableHTTPClientTransport,
} = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { httpRequest } = require('../../scripts/lib/n8n-instance');
const { SIM_TOKEN } = require('../../scripts/lib/playground');
const { apiRequestsSince, waitingTool } = require('./harness');
const { resultsSetup, resultsTeardown } = require('./lib/resultsTable');

const API = '/cis/api/v1/';
const CREATE_AND_RUN = `${API}telephony/autoCallCandidate/single`;
const MCP_TOKEN = `e2e-mcp-${crypto.randomBytes(12).toString('hex')}`;
/** Example 14c's call tool with Max Calls per Day 3 and Call a Number Again After 24 hours. */
const LIMITED = 'Call with a daily limit';

/** An MCP client of the official SDK connected over streamable HTTP (with a bearer token, when given). */
async function connect(url, token) {
	const client = new Client({ name: 'cis-e2e-mcp-client', version: '1.0.0' });
	const headers = token ? { Authorization: `Bearer ${token}` } : {};
	await client.connect(
		new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
	);
	return client;
}

/** The text a tools/call answered, and the JSON in it when there is some. */
function answerOf(result) {
	const text = (result.content || [])
		.map((part) => (part.type === 'text' ? part.text : ''))
		.join('');
	let json;
	try {
		json = JSON.parse(text);
		if (Array.isArray(json) && json.length === 1) json = json[0];
	} catch {
		json = undefined;
	}
	return { text, json };
}

module.exports = async function mcpChecks(ctx) {
	const { client, sim, checks, n8n, creds } = ctx;
	let results;
	let mcpUrl;
	/** @type {Client | undefined} */
	let session;
	const answers = [];
	const call = async (name, args) => {
		const simMark = sim.requests.length;
		const result = await session.callTool({ name, arguments: args });
		const answer = answerOf(result);
		answers.push(answer.text);
		return { ...answer, isError: result.isError, api: apiRequestsSince(sim, simMark) };
	};
	try {
		const ready = await checks.check(
			'mcp: example 14c (MCP Server Trigger with Bearer Auth; Call a person, Look up call results) and a waiting tool publish; the results table is filled by example 14a',
			async () => {
				results = await resultsSetup(ctx);
				const bearer = await client.createCredential({
					name: 'e2e MCP bearer',
					type: 'httpBearerAuth',
					data: { token: MCP_TOKEN },
				});
				const json = results.exampleJson('14c', {
					httpBearerAuth: { id: String(bearer.id), name: bearer.name },
				});
				const trigger = json.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.mcpTrigger');
				assert.strictEqual(trigger.parameters.authentication, 'bearerAuth');
				const waiting = { ...waitingTool(creds.token), position: [600, 240] };
				json.nodes.push(waiting);
				json.connections[waiting.name] = {
					ai_tool: [[{ node: trigger.name, type: 'ai_tool', index: 0 }]],
				};
				// Example 14c's call tool again, with a daily limit of 3: the limits across runs in one MCP session.
				const callTool = json.nodes.find((n) => n.name === 'Call a person');
				assert.deepStrictEqual(
					[
						callTool.parameters.options.maxCallsPerDay,
						callTool.parameters.options.callAgainAfterHours,
					],
					[20, 24],
					'example 14c sets both limits',
				);
				const limited = JSON.parse(JSON.stringify(callTool));
				Object.assign(limited, { id: crypto.randomUUID(), name: LIMITED, position: [600, 480] });
				limited.parameters.options = {
					...limited.parameters.options,
					maxCallsPerDay: 3,
					callAgainAfterHours: 24,
				};
				json.nodes.push(limited);
				json.connections[LIMITED] = {
					ai_tool: [[{ node: trigger.name, type: 'ai_tool', index: 0 }]],
				};
				const wf = await client.createWorkflow(json);
				await client.activate(wf.id);
				mcpUrl = `${n8n.url}/mcp/${trigger.parameters.path}`;
				session = await connect(mcpUrl, MCP_TOKEN);
				return mcpUrl;
			},
		);
		if (!ready) {
			checks.skip('mcp checks', 'set-up failed');
			return;
		}

		await checks.check(
			'mcp: tools/list gives the four tools with their phone argument',
			async () => {
				const { tools } = await session.listTools();
				const names = tools.map((t) => t.name).sort();
				assert.deepStrictEqual(names, [
					'Call_a_person',
					'Call_and_wait',
					'Call_with_a_daily_limit',
					'Look_up_call_results',
				]);
				for (const tool of tools)
					assert.ok(
						tool.inputSchema.properties.phone,
						`${tool.name}: ${JSON.stringify(tool.inputSchema)}`,
					);
				return names.join(', ');
			},
		);

		const ANN = '79990006601';
		await checks.check(
			'mcp: tools/call of Call a person places one call; the client reads outcome done and the candidate id',
			async () => {
				const t = Date.now();
				const { json, api, text } = await call('Call_a_person', { phone: ANN, name: 'Ann' });
				assert.strictEqual(api.filter((r) => r.path === CREATE_AND_RUN).length, 1, text);
				assert.strictEqual(json && json.outcome, 'done', text);
				assert.ok(json.autoCallCandidateId, text);
				return `${Date.now() - t} ms: ${text.slice(0, 160)}`;
			},
		);

		await checks.check(
			"mcp: tools/call of Look up call results reads the call's row that example 14a wrote",
			async () => {
				const row = await results.rowOf(ANN);
				const { text } = await call('Look_up_call_results', { phone: ANN });
				assert.ok(text.includes(row.callId) && text.includes('answered'), text);
				return text.slice(0, 200);
			},
		);

		await checks.check(
			'mcp: a wrong-length number is refused by name before anything is sent',
			async () => {
				const { json, api, text } = await call('Call_a_person', { phone: '7999000660', name: '' });
				assert.strictEqual(api.length, 0, `requests: ${api.map((r) => r.path).join(', ')}`);
				assert.strictEqual(json && json.outcome, 'refused', text);
				assert.match(json.message, /7999000660/);
				return json.message;
			},
		);

		await checks.check(
			'mcp: a number outside Allowed Numbers is refused, 0 requests; the client cannot change the guardrail (extra arguments are ignored)',
			async () => {
				const { json, api, text } = await call('Call_a_person', {
					phone: '74950000001',
					name: '',
					allowedNumbers: '7495',
					maxCallsPerRun: 100,
				});
				assert.strictEqual(api.length, 0);
				assert.match(
					(json && json.message) || text,
					/^Refused: the number 74950000001 is not in Allowed Numbers \("7999"\)/,
				);
				return json.message;
			},
		);

		await checks.check(
			'mcp: Max Calls per Run counts per MCP tool call: one call may not give several numbers, and each tools/call of one session is a run of its own',
			async () => {
				const several = await call('Call_a_person', {
					phone: '79990006611,79990006612,79990006613,79990006614',
					name: '',
				});
				assert.strictEqual(several.api.length, 0);
				assert.match(several.json.message, /an AI Agent may give one number per call/);
				const placed = [];
				for (const phone of ['79990006621', '79990006622', '79990006623', '79990006624']) {
					const { json, api } = await call('Call_a_person', { phone, name: '' });
					placed.push(`${json.outcome}:${api.filter((r) => r.path === CREATE_AND_RUN).length}`);
				}
				assert.deepStrictEqual(placed, ['done:1', 'done:1', 'done:1', 'done:1']);
				return `4 numbers in one call: refused; 4 calls in one session: ${placed.join(', ')}`;
			},
		);

		await checks.check(
			'mcp: Max Calls per Day 3 holds over the session: 5 tools/call place 3, the 4th and 5th are told the daily limit is reached; the client cannot raise it',
			async () => {
				const placed = [];
				const refusals = [];
				for (const phone of [
					'79990006651',
					'79990006652',
					'79990006653',
					'79990006654',
					'79990006655',
				]) {
					const { json, api, text } = await call('Call_with_a_daily_limit', {
						phone,
						name: '',
						maxCallsPerDay: 100,
					});
					placed.push(
						`${json && json.outcome}:${api.filter((r) => r.path === CREATE_AND_RUN).length}`,
					);
					if (json && json.outcome === 'refused') refusals.push(json.message || text);
				}
				assert.deepStrictEqual(placed, ['done:1', 'done:1', 'done:1', 'refused:0', 'refused:0']);
				for (const message of refusals)
					assert.match(
						message,
						/^Refused: the daily limit of 3 calls of this node \("Max Calls per Day"\) is reached: no more calls can be placed before .* UTC/,
					);
				return `5 calls: ${placed.join(', ')}; ${refusals[0]}`;
			},
		);

		await checks.check(
			'mcp: the same number again within Call a Number Again After (24 hours) is refused, naming when it may be called again',
			async () => {
				const { json, api, text } = await call('Call_with_a_daily_limit', {
					phone: '79990006651',
					name: '',
				});
				assert.strictEqual(api.length, 0, `requests: ${api.map((r) => r.path).join(', ')}`);
				assert.strictEqual(json && json.outcome, 'refused', text);
				assert.match(
					json.message,
					/^Refused: 79990006651 was called within the last 24 hours \("Call a Number Again After \(Hours\)"\); it may be called again after \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
				);
				return json.message;
			},
		);

		await checks.check(
			"mcp: the waiting tool is refused in words that name the MCP Server Trigger and Create and Run with the results' table; nobody is called",
			async () => {
				const { json, api, text } = await call('Call_and_wait', { phone: '79990006631' });
				assert.strictEqual(api.length, 0);
				assert.strictEqual(json && json.outcome, 'refused', text);
				assert.match(
					json.message,
					/^Not sent: an MCP Server Trigger answers each tool call at once, so this tool cannot wait there .* "Create and Run" .* Data Table tool/,
				);
				return json.message;
			},
		);

		await checks.check(
			"mcp: without the trigger's bearer token (none, or a wrong one) nothing is listed or called",
			async () => {
				for (const token of [undefined, 'not-the-token']) {
					await assert.rejects(
						connect(mcpUrl, token),
						(error) => /401|403|Unauthorized|Forbidden|authorization/i.test(String(error)),
						`token ${token}`,
					);
				}
				const simMark = sim.requests.length;
				const headers = {
					accept: 'application/json, text/event-stream',
					'content-type': 'application/json',
					'mcp-session-id': session.transport ? String(session.transport.sessionId) : 'x',
				};
				const body = {
					jsonrpc: '2.0',
					id: 99,
					method: 'tools/call',
					params: { name: 'Call_a_person', arguments: { phone: '79990006641', name: '' } },
				};
				const raw = await httpRequest('POST', mcpUrl, { headers, body });
				const listed = await httpRequest('POST', mcpUrl, {
					headers,
					body: { jsonrpc: '2.0', id: 100, method: 'tools/list' },
				});
				assert.deepStrictEqual(
					[raw.status, listed.status].map((s) => s === 401 || s === 403),
					[true, true],
					`${raw.status} ${raw.text} / ${listed.status} ${listed.text}`,
				);
				assert.strictEqual(apiRequestsSince(sim, simMark).length, 0);
				return `no token / wrong token: connect refused; tools/call ${raw.status}, tools/list ${listed.status} with the session id but no token`;
			},
		);

		await checks.check(
			"mcp: the access token and the trigger's webhook secret never reach the MCP client",
			async () => {
				const all = answers.join('\n');
				for (const secret of [SIM_TOKEN, results.secret])
					assert.ok(!all.includes(secret), `the client read ${secret}`);
				return `${answers.length} answers checked`;
			},
		);
	} finally {
		if (session) await session.close().catch(() => undefined);
		resultsTeardown(ctx);
	}
};
