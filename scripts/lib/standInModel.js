'use strict';
/**
 * A stand-in chat model: an OpenAI-compatible chat completions server on 127.0.0.1 for n8n's
 * OpenAI Chat Model node (credential URL `<url>/v1`), so that an AI Agent runs offline, without a
 * key: `npm start` (example 9) and the end-to-end suite (test/e2e/agent*.e2e.js) use it.
 *
 * It behaves like a model following the user: it calls the first tool once per phone number in the
 * user's message, one after another, then answers (by default with what the tools returned;
 * `crmNote` writes a short CRM note from a call's result). A user message
 * `SCRIPT [{"tool": "<tool name>", "args": {...}}, ...]` makes it make exactly those tool calls
 * instead, one per turn; a step that is an array of calls is made in one turn (parallel tool calls).
 * A question about a call's result ("what did Ann say?") with a results tool (a name with "result" or
 * "look up") makes it look the number up there and answer from the rows (resultLookup).
 * It records every request (`requests`), so tests see what n8n gave the model.
 *
 * Plain Node (CommonJS, built-ins only).
 */
const http = require('http');

/**
 * An OpenAI-compatible chat completions endpoint (POST /v1/chat/completions, JSON or SSE when
 * `stream` is set) scripted as described above.
 */
/**
 * @param {{ finalAnswer?: (toolResults: string[], userText: string) => string }} [options] the answer after the
 * tool calls, from the texts the tools returned (default: those texts, one per line)
 */
async function startScriptedChatModel({ finalAnswer = joinedToolResults } = {}) {
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
			requests.push({ method: req.method, path: req.url, body });
			if (req.method !== 'POST' || !/\/chat\/completions$/.test(req.url.split('?')[0])) {
				res.writeHead(404, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `not scripted: ${req.method} ${req.url}` } }));
				return;
			}
			const messages = Array.isArray(body.messages) ? body.messages : [];
			const lastUser = messages.map((m) => m.role).lastIndexOf('user');
			const userText = lastUser >= 0 ? contentText(messages[lastUser].content) : '';
			const scripted = /^SCRIPT /.test(userText) ? JSON.parse(userText.slice('SCRIPT '.length)) : undefined;
			const numbers = userText.match(/\+?\d[\d ()-]{5,}\d/g) || [];
			const toolResults = messages.slice(lastUser + 1).filter((m) => m.role === 'tool');
			// Turns of this conversation so far: the model's messages with tool calls since the user's.
			const turn = messages.slice(lastUser + 1).filter((m) => m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0).length;
			const tools = (body.tools || []).map((t) => t.function);
			const toolNamed = (name) => tools.find((t) => t.name === name) || tools.find((t) => t.name.toLowerCase().includes(String(name).toLowerCase()));
			// A SCRIPT step is one call, or an array of calls the model makes together in one turn.
			const step = scripted && scripted[turn];
			const lookup = scripted ? undefined : resultLookup(tools, messages, lastUser, userText);
			const callTools = tools.filter((t) => !isLookupTool(t));
			const next = scripted
				? step && (Array.isArray(step) ? step : [step]).map((call) => ({ tool: toolNamed(call.tool), args: call.args }))
				: lookup
					? turn === 0 && [lookup]
					: callTools[0] && toolResults.length < numbers.length && [{ tool: callTools[0], args: { phone: numbers[toolResults.length], name: '' } }];
			let message;
			if (next && next.length && next.every((call) => call.tool)) {
				message = {
					role: 'assistant',
					content: null,
					tool_calls: next.map((call) => {
						callCounter += 1;
						return { id: `call_${callCounter}`, type: 'function', function: { name: call.tool.name, arguments: JSON.stringify(call.args) } };
					}),
				};
			} else {
				const texts = toolResults.map((m) => contentText(m.content));
				message = { role: 'assistant', content: lookup ? resultAnswer(texts, lookup.args.phone) : finalAnswer(texts, userText) };
			}
			const finish = message.tool_calls ? 'tool_calls' : 'stop';
			const id = `chatcmpl-${requests.length}`;
			const created = Math.floor(Date.now() / 1000);
			if (body.stream) {
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				const delta = message.tool_calls
					? { role: 'assistant', tool_calls: message.tool_calls.map((c, index) => ({ index, ...c })) }
					: { role: 'assistant', content: message.content };
				const chunk = (choice) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [choice] })}\n\n`;
				res.write(chunk({ index: 0, delta, finish_reason: null }));
				res.write(chunk({ index: 0, delta: {}, finish_reason: finish }));
				res.end('data: [DONE]\n\n');
				return;
			}
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify({
					id,
					object: 'chat.completion',
					created,
					model: body.model,
					choices: [{ index: 0, message, finish_reason: finish }],
					usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
				}),
			);
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
	return {
		url: `http://127.0.0.1:${/** @type {import('net').AddressInfo} */ (server.address()).port}`,
		requests,
		/** The texts the tool returned to the model, in order, from the requests since `mark`. */
		toolResultsSince(mark) {
			const chats = requests.slice(mark).filter((r) => Array.isArray(r.body.messages));
			const last = chats[chats.length - 1];
			return last ? last.body.messages.filter((m) => m.role === 'tool').map((m) => contentText(m.content)) : [];
		},
		close: () => new Promise((resolve) => server.close(resolve)),
	};
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

function resultLookup(tools, messages, lastUser, userText) {
	const tool = tools.find(isLookupTool);
	if (!tool || !RESULT_QUESTION.test(userText)) return undefined;
	const said = messages.slice(0, lastUser + 1).filter((m) => m.role === 'user').map((m) => contentText(m.content)).join('\n');
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

module.exports = { startScriptedChatModel, contentText, crmNote };
