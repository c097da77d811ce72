'use strict';
/**
 * A stand-in chat model: an OpenAI-compatible server on 127.0.0.1 for n8n's OpenAI Chat Model node
 * (credential URL `<url>/v1`), so that an AI Agent runs offline, without a key: `npm start`
 * (example 9), the end-to-end suite (test/e2e/agent*.e2e.js) and the browser suite use it.
 *
 * It answers both ways n8n's OpenAI Chat Model talks to a model: chat completions
 * (POST /v1/chat/completions; version 1.2 of the node, or *Use Responses API* off) and the Responses
 * API (POST /v1/responses; on by default from version 1.3, n8n 2.x), each as JSON or as server-sent
 * events when `stream` is set; and GET /v1/models, the list the node's Model field loads.
 *
 * It behaves like a model following the user: it calls the first tool once per phone number in the
 * user's message, one after another, then answers (by default with what the tools returned;
 * `crmNote` writes a short CRM note from a call's result). The number goes into the tool's phone
 * argument, whatever the tool's JSON schema in the request names it (`phone`, or `Phone_Numbers` as
 * n8n's ✨ button writes it). A user message `SCRIPT [{"tool": "<tool name>", "args": {...}}, ...]`
 * makes it make exactly those tool calls instead, one per turn; a step that is an array of calls is
 * made in one turn (parallel tool calls). A question about a call's result ("what did Ann say?") with
 * a results tool (a name with "result" or "look up") makes it look the number up there and answer from
 * the rows (resultLookup). It records every request (`requests`), so tests see what n8n gave the model.
 *
 * Plain Node (CommonJS, built-ins only).
 */
const http = require('http');

/** The models GET /v1/models lists (the node's Model field offers them). */
const MODELS = ['gpt-4o-mini', 'gpt-4.1-mini', 'gpt-5-mini'];

/**
 * @param {{ finalAnswer?: (toolResults: string[], userText: string) => string, port?: number }} [options]
 * finalAnswer: the answer after the tool calls, from the texts the tools returned (default: those
 * texts, one per line); port: where to listen (default: a free one)
 */
async function startScriptedChatModel({ finalAnswer = joinedToolResults, port = 0 } = {}) {
	const requests = [];
	let callCounter = 0;
	const server = http.createServer((req, res) => {
		let raw = '';
		req.on('data', (chunk) => (raw += chunk));
		req.on('end', () => {
			let body = {};
			try {
				body = JSON.parse(raw || '{}');
			} catch {
				body = {};
			}
			const route = req.url.split('?')[0];
			requests.push({ method: req.method, path: req.url, body });
			if (req.method === 'GET' && /\/models$/.test(route)) {
				return sendJson(res, { object: 'list', data: MODELS.map((id) => ({ id, object: 'model', created: 0, owned_by: 'stand-in' })) });
			}
			const api = req.method === 'POST' && /\/chat\/completions$/.test(route) ? 'chat' : req.method === 'POST' && /\/responses$/.test(route) ? 'responses' : undefined;
			if (!api) {
				res.writeHead(404, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `not scripted: ${req.method} ${req.url}` } }));
				return;
			}
			const talk = api === 'chat' ? chatConversation(body) : responsesConversation(body);
			const lookup = resultLookup(talk);
			const calls = nextCalls(talk, lookup);
			const reply = calls
				? {
						calls: calls.map((call) => {
							callCounter += 1;
							return { id: `call_${callCounter}`, name: call.tool.name, arguments: JSON.stringify(call.args) };
						}),
					}
				: { text: lookup ? resultAnswer(talk.toolResults, lookup.args.phone) : finalAnswer(talk.toolResults, talk.userText) };
			const id = `${requests.length}`;
			if (api === 'chat') answerChat(res, body, id, reply);
			else answerResponses(res, body, id, reply);
		});
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => resolve(undefined));
	});
	const actual = /** @type {import('net').AddressInfo} */ (server.address()).port;
	return {
		url: `http://127.0.0.1:${actual}`,
		port: actual,
		requests,
		/** The texts the tool returned to the model, in order, from the requests since `mark` (either API). */
		toolResultsSince(mark) {
			const talks = requests.slice(mark).filter((r) => Array.isArray(r.body.messages) || r.body.input !== undefined);
			const last = talks[talks.length - 1];
			if (!last) return [];
			return Array.isArray(last.body.messages) ? chatConversation(last.body).toolResults : responsesConversation(last.body).toolResults;
		},
		close: () => new Promise((resolve) => server.close(resolve)),
	};
}

/**
 * What the model needs of a request, the same for both APIs: the user's last message, the tools'
 * answers since, how many turns of tool calls it made since, the tools it may call, and all the user
 * said in the conversation so far (`said`).
 * @typedef {{ userText: string, said: string, toolResults: string[], turn: number, tools: { name: string, description?: string, parameters?: any }[] }} Conversation
 */

/** @returns {Conversation} */
function chatConversation(body) {
	const messages = Array.isArray(body.messages) ? body.messages : [];
	const lastUser = messages.map((m) => m.role).lastIndexOf('user');
	const since = messages.slice(lastUser + 1);
	return {
		userText: lastUser >= 0 ? contentText(messages[lastUser].content) : '',
		said: messages.filter((m) => m.role === 'user').map((m) => contentText(m.content)).join('\n'),
		toolResults: since.filter((m) => m.role === 'tool').map((m) => contentText(m.content)),
		turn: since.filter((m) => m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0).length,
		tools: (body.tools || []).filter((t) => t && t.function).map((t) => t.function),
	};
}

/**
 * The Responses API: `input` is a text or a list of items: messages (`type: "message"`, or a role
 * and content only), the model's `function_call`s and the tools' `function_call_output`s.
 * @returns {Conversation}
 */
function responsesConversation(body) {
	const input = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : Array.isArray(body.input) ? body.input : [];
	const isUser = (item) => item && (item.type === 'message' || item.type === undefined) && item.role === 'user';
	let lastUser = -1;
	input.forEach((item, index) => {
		if (isUser(item)) lastUser = index;
	});
	const since = input.slice(lastUser + 1);
	// A turn of tool calls is a run of function_call items (calls made together come one after another).
	const turn = since.filter((item, index) => item.type === 'function_call' && (index === 0 || since[index - 1].type !== 'function_call')).length;
	return {
		userText: lastUser >= 0 ? contentText(input[lastUser].content) : '',
		said: input.filter(isUser).map((item) => contentText(item.content)).join('\n'),
		toolResults: since.filter((item) => item.type === 'function_call_output').map((item) => contentText(item.output)),
		turn,
		tools: (body.tools || []).filter((t) => t && t.type === 'function').map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
	};
}

/**
 * The tool calls of this turn, or undefined when the model answers in words. A result question
 * (`lookup`) is one call of the results tool; otherwise the first other tool is called per number.
 */
function nextCalls({ userText, toolResults, turn, tools }, lookup) {
	const scripted = /^SCRIPT /.test(userText) ? JSON.parse(userText.slice('SCRIPT '.length)) : undefined;
	const toolNamed = (name) => tools.find((t) => t.name === name) || tools.find((t) => t.name.toLowerCase().includes(String(name).toLowerCase()));
	let next;
	if (scripted) {
		// A SCRIPT step is one call, or an array of calls the model makes together in one turn.
		const step = scripted[turn];
		next = step && (Array.isArray(step) ? step : [step]).map((call) => ({ tool: toolNamed(call.tool), args: call.args }));
	} else if (lookup) {
		next = turn === 0 && [lookup];
	} else {
		const callTool = tools.find((tool) => !isLookupTool(tool));
		const numbers = userText.match(/\+?\d[\d ()-]{5,}\d/g) || [];
		next = callTool && toolResults.length < numbers.length && [{ tool: callTool, args: phoneArguments(callTool, numbers[toolResults.length]) }];
	}
	return next && next.length && next.every((call) => call.tool) ? next : undefined;
}

/**
 * The arguments of a call with one phone number, as the tool's JSON schema asks: the number in the
 * argument named after a phone (`phone`, `Phone_Numbers`), else the one whose description speaks of
 * a phone or a number, else the only text argument; every other required argument empty. A tool
 * without a schema gets `{ phone, name: "" }`.
 */
function phoneArguments(tool, phone) {
	const schema = tool.parameters && typeof tool.parameters === 'object' ? tool.parameters : undefined;
	const properties = schema && schema.properties && typeof schema.properties === 'object' ? schema.properties : undefined;
	if (!properties || Object.keys(properties).length === 0) return { phone, name: '' };
	const names = Object.keys(properties);
	const about = (name) => `${properties[name] && properties[name].description ? properties[name].description : ''}`;
	const texts = names.filter((name) => [undefined, 'string'].includes(properties[name] && properties[name].type));
	const key =
		names.find((name) => /phone/i.test(name)) ||
		names.find((name) => /phone/i.test(about(name))) ||
		names.find((name) => /number/i.test(name) || /number/i.test(about(name))) ||
		(texts.length === 1 ? texts[0] : names[0]);
	const args = {};
	for (const name of Array.isArray(schema.required) ? schema.required : []) {
		const type = properties[name] && properties[name].type;
		args[name] = type === 'number' || type === 'integer' ? 0 : type === 'boolean' ? false : type === 'array' ? [] : type === 'object' ? {} : '';
	}
	args[key] = phone;
	return args;
}

function sendJson(res, value) {
	res.writeHead(200, { 'content-type': 'application/json' });
	res.end(JSON.stringify(value));
}

/** POST /v1/chat/completions: a message with tool calls, or with text. */
function answerChat(res, body, n, reply) {
	const id = `chatcmpl-${n}`;
	const created = Math.floor(Date.now() / 1000);
	const message = reply.calls
		? { role: 'assistant', content: null, tool_calls: reply.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
		: { role: 'assistant', content: reply.text };
	const finish = reply.calls ? 'tool_calls' : 'stop';
	if (body.stream) {
		res.writeHead(200, { 'content-type': 'text/event-stream' });
		const delta = message.tool_calls ? { role: 'assistant', tool_calls: message.tool_calls.map((c, index) => ({ index, ...c })) } : { role: 'assistant', content: message.content };
		const chunk = (choice) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [choice] })}\n\n`;
		res.write(chunk({ index: 0, delta, finish_reason: null }));
		res.write(chunk({ index: 0, delta: {}, finish_reason: finish }));
		res.end('data: [DONE]\n\n');
		return;
	}
	sendJson(res, {
		id,
		object: 'chat.completion',
		created,
		model: body.model,
		choices: [{ index: 0, message, finish_reason: finish }],
		usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
	});
}

/** POST /v1/responses: `function_call` output items, or one `message` with `output_text`. */
function answerResponses(res, body, n, reply) {
	const output = reply.calls
		? reply.calls.map((c) => ({ type: 'function_call', id: `fc_${c.id}`, call_id: c.id, name: c.name, arguments: c.arguments, status: 'completed' }))
		: [{ type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: reply.text, annotations: [] }] }];
	const response = {
		id: `resp_${n}`,
		object: 'response',
		created_at: Math.floor(Date.now() / 1000),
		status: 'completed',
		error: null,
		incomplete_details: null,
		model: body.model,
		output,
		parallel_tool_calls: true,
		tool_choice: body.tool_choice || 'auto',
		tools: body.tools || [],
		text: { format: { type: 'text' } },
		metadata: {},
		usage: { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 },
	};
	if (!body.stream) return sendJson(res, response);
	res.writeHead(200, { 'content-type': 'text/event-stream' });
	let sequence = 0;
	const event = (type, fields) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
	event('response.created', { response: { ...response, status: 'in_progress', output: [] } });
	output.forEach((item, index) => {
		if (item.type === 'function_call') {
			// the whole arguments come with the item (no argument deltas, which would add them twice)
			event('response.output_item.added', { output_index: index, item });
		} else {
			const text = item.content[0].text;
			event('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } });
			event('response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta: text });
			event('response.output_text.done', { item_id: item.id, output_index: index, content_index: 0, text });
		}
		event('response.output_item.done', { output_index: index, item });
	});
	event('response.completed', { response });
	res.end();
}

function contentText(content) {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) return content.map((part) => (typeof part === 'string' ? part : part.text || '')).join('');
	return content == null ? '' : JSON.stringify(content);
}

/** @param {string[]} results */
function joinedToolResults(results) {
	return results.join('\n') || 'Nothing to do.';
}

/* A question about a call's result ("what did Ann say?", "did she pick up?") with a results tool at hand
 * (its name has "result" or "look up"): the model looks the person's number up (the number in the question,
 * else the last one of the conversation, digits only) in one tool call, then answers from the rows. */
const RESULT_QUESTION = /\b(what did|did \w+ (pick up|answer)|result|how did)\b/i;

function isLookupTool(tool) {
	return /result|look_?up/i.test(tool.name);
}

/** @param {Conversation} talk */
function resultLookup({ tools, userText, said }) {
	if (/^SCRIPT /.test(userText)) return undefined;
	const tool = tools.find(isLookupTool);
	if (!tool || !RESULT_QUESTION.test(userText)) return undefined;
	const numbers = said.match(/\+?\d[\d ()-]{5,}\d/g) || [];
	if (!numbers.length) return undefined;
	return { tool, args: { phone: numbers[numbers.length - 1].replace(/\D/g, '') } };
}

/** The answer from the rows the results tool returned (the newest row first). */
function resultAnswer(results, phone) {
	let rows;
	try {
		const parsed = JSON.parse(results[results.length - 1]);
		rows = (Array.isArray(parsed) ? parsed : [parsed]).filter((row) => row && typeof row === 'object' && row.outcome);
	} catch {
		rows = [];
	}
	if (!rows.length) return `There is no result yet for the call to ${phone}: the call may still be going on.`;
	const row = rows[0];
	if (row.outcome === 'answered') return `The call to ${phone} was answered (${row.status}, call ${row.callId}). The bot collected: ${row.result || '{}'}.`;
	return `The call to ${phone} did not reach the person (${row.status}, call ${row.callId}).`;
}

/** A short CRM note from the result of a "… and Wait for Result" tool (what the model would write). */
/** @param {string[]} results */
function crmNote(results) {
	let item;
	try {
		const parsed = JSON.parse(results[results.length - 1]);
		item = Array.isArray(parsed) ? parsed[0] : parsed;
	} catch {
		item = undefined;
	}
	if (!item || typeof item !== 'object') return 'CRM note: no call was made.';
	if (item.outcome === 'answered') {
		const said = Object.entries(item.result || {}).map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
		return `CRM note: reached by phone (call ${item.callId}). ${said.length ? `They said - ${said.join('; ')}.` : 'The bot collected nothing.'}`;
	}
	if (item.outcome === 'notReached') return `CRM note: not reached by phone (${item.status}). Try again later.`;
	return `CRM note: ${item.message || item.outcome}`;
}

module.exports = { startScriptedChatModel, contentText, crmNote, phoneArguments, MODELS };
