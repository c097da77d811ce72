'use strict';
/**
 * A stand-in chat model: an OpenAI-compatible server on 127.0.0.1 for n8n's OpenAI Chat Model node
 * (credential URL `<url>/v1`), so that an AI Agent runs offline, without a key: `npm start`, the
 * end-to-end suite (test/e2e/agent*.e2e.js, chat.e2e.js) and the browser suite use it. What it
 * understands, for users: docs/ai-agents.md#the-stand-in-model-of-npm-start.
 *
 * It answers both ways n8n's OpenAI Chat Model talks to a model: chat completions
 * (POST /v1/chat/completions; version 1.2 of the node, or *Use Responses API* off) and the Responses
 * API (POST /v1/responses; on by default from version 1.3, n8n 2.x), each as JSON or as server-sent
 * events when `stream` is set; and GET /v1/models, the list the node's Model field loads.
 *
 * It behaves like a simple model following the user, whatever the agent was built of:
 * - Tools by meaning: the tool that places a call and the tool that looks results up are told apart
 *   by what their name and description say first ("Phones a person", "Get row(s) in Data table")
 *   and by their arguments (a phone, or a filter's value), never by their order (toolPurpose).
 * - Arguments by schema: every required argument of the tool's JSON schema is filled: the number
 *   goes into the phone-like argument (`phone`, `Phone_Numbers`, `conditions0_Value`), the
 *   person's name into a name argument, the rest empty (argumentsFor).
 * - People by name: who is who comes from everything said in the conversation, the memory's earlier
 *   messages included ("call Ann on +7 999 000-55-55", or its own "I've placed a call to Ann (…)"),
 *   so "what did Ann say?" looks up Ann's number (peopleIn).
 * - A call request calls each number of the message once, one tool call per turn; a question about
 *   a result ("what did Eve say?", "did Bob pick up?") is one lookup, digits only; then it answers as
 *   an assistant: which calls were placed and which were not and why (callSummary), or what the
 *   rows say (resultAnswer). A request that asks for a "CRM note" gets one (crmNote, example 9).
 * A user message `SCRIPT [{"tool": "<tool name>", "args": {...}}, ...]` makes it make exactly those
 * tool calls instead, one per turn, and answer with what the tools returned; a step that is an
 * array of calls is made in one turn (parallel tool calls). It records every request (`requests`),
 * so tests see what n8n gave the model.
 *
 * Plain Node (CommonJS, built-ins only).
 */
const http = require('http');

/** The models GET /v1/models lists (the node's Model field offers them). */
const MODELS = ['gpt-4o-mini', 'gpt-4.1-mini', 'gpt-5-mini'];

/**
 * @param {{ finalAnswer?: (toolResults: string[], userText: string) => string, port?: number }} [options]
 * finalAnswer: the answer after the tool calls of a request that was not scripted (default: the
 * assistant's own words, see reply()); port: where to listen (default: a free one)
 */
async function startScriptedChatModel({ finalAnswer = undefined, port = 0 } = {}) {
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
				return sendJson(res, {
					object: 'list',
					data: MODELS.map((id) => ({ id, object: 'model', created: 0, owned_by: 'stand-in' })),
				});
			}
			const api =
				req.method === 'POST' && /\/chat\/completions$/.test(route)
					? 'chat'
					: req.method === 'POST' && /\/responses$/.test(route)
						? 'responses'
						: undefined;
			if (!api) {
				res.writeHead(404, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `not scripted: ${req.method} ${req.url}` } }));
				return;
			}
			const talk = api === 'chat' ? chatConversation(body) : responsesConversation(body);
			const step = nextStep(talk, finalAnswer);
			const reply = step.calls
				? {
						calls: step.calls.map((call) => {
							callCounter += 1;
							return {
								id: `call_${callCounter}`,
								name: call.tool.name,
								arguments: JSON.stringify(call.args),
							};
						}),
					}
				: { text: step.text };
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
			const talks = requests
				.slice(mark)
				.filter((r) => Array.isArray(r.body.messages) || r.body.input !== undefined);
			const last = talks[talks.length - 1];
			if (!last) return [];
			const talk = Array.isArray(last.body.messages)
				? chatConversation(last.body)
				: responsesConversation(last.body);
			return talk.toolResults;
		},
		close: () => new Promise((resolve) => server.close(resolve)),
	};
}

/**
 * What the model needs of a request, the same for both APIs: the user's last message, the tool
 * calls it made since and what each returned (`turnCalls`, `toolResults`), how many turns of tool
 * calls that was, the tools it may call, and the conversation's texts in order (`history`: the
 * user's and the assistant's messages, earlier ones from the agent's memory included).
 * @typedef {{ name: string, args: any, result: string }} TurnCall
 * @typedef {{ role: string, text: string }} Said
 * @typedef {{ userText: string, history: Said[], turnCalls: TurnCall[], toolResults: string[], turn: number, tools: { name: string, description?: string, parameters?: any }[] }} Conversation
 */

function parseArgs(text) {
	try {
		return typeof text === 'string' ? JSON.parse(text) : text || {};
	} catch {
		return {};
	}
}

/** @returns {Conversation} */
function chatConversation(body) {
	const messages = Array.isArray(body.messages) ? body.messages : [];
	const lastUser = messages.map((m) => m.role).lastIndexOf('user');
	const since = messages.slice(lastUser + 1);
	const results = new Map(
		since.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, contentText(m.content)]),
	);
	const calls = since.filter(
		(m) => m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0,
	);
	return {
		userText: lastUser >= 0 ? contentText(messages[lastUser].content) : '',
		history: messages
			.filter((m) => ['user', 'assistant'].includes(m.role) && m.content)
			.map((m) => ({ role: m.role, text: contentText(m.content) })),
		turnCalls: calls
			.flatMap((m) => m.tool_calls)
			.map((c) => ({
				name: c.function.name,
				args: parseArgs(c.function.arguments),
				result: results.get(c.id) ?? '',
			})),
		toolResults: since.filter((m) => m.role === 'tool').map((m) => contentText(m.content)),
		turn: calls.length,
		tools: (body.tools || []).filter((t) => t && t.function).map((t) => t.function),
	};
}

/**
 * The Responses API: `input` is a text or a list of items: messages (`type: "message"`, or a role
 * and content only), the model's `function_call`s and the tools' `function_call_output`s.
 * @returns {Conversation}
 */
function responsesConversation(body) {
	const input =
		typeof body.input === 'string'
			? [{ type: 'message', role: 'user', content: body.input }]
			: Array.isArray(body.input)
				? body.input
				: [];
	const isMessage = (item) =>
		item && (item.type === 'message' || item.type === undefined) && typeof item.role === 'string';
	let lastUser = -1;
	input.forEach((item, index) => {
		if (isMessage(item) && item.role === 'user') lastUser = index;
	});
	const since = input.slice(lastUser + 1);
	const results = new Map(
		since
			.filter((item) => item.type === 'function_call_output')
			.map((item) => [item.call_id, contentText(item.output)]),
	);
	// A turn of tool calls is a run of function_call items (calls made together come one after another).
	const turn = since.filter(
		(item, index) =>
			item.type === 'function_call' && (index === 0 || since[index - 1].type !== 'function_call'),
	).length;
	return {
		userText: lastUser >= 0 ? contentText(input[lastUser].content) : '',
		history: input
			.filter((item) => isMessage(item) && ['user', 'assistant'].includes(item.role))
			.map((item) => ({ role: item.role, text: contentText(item.content) })),
		turnCalls: since
			.filter((item) => item.type === 'function_call')
			.map((item) => ({
				name: item.name,
				args: parseArgs(item.arguments),
				result: results.get(item.call_id) ?? '',
			})),
		toolResults: since
			.filter((item) => item.type === 'function_call_output')
			.map((item) => contentText(item.output)),
		turn,
		tools: (body.tools || [])
			.filter((t) => t && t.type === 'function')
			.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
	};
}

/* ------------------------------------------------------------------ reading the conversation */

/** A phone number as people write it: +7 999 000-55-55, 8 (999) 000 55 55, 79990005555. */
const PHONE = /\+?\d[\d ()-]{5,}\d/g;
const digitsOf = (number) => number.replace(/\D/g, '');

/** Words before a number that are not a name ("call Ann on …", "Ann's number is …", "phone …"). */
const NOT_NAMES = new Set(
	'a an and also answered at bot by call called calling can could collected dial did give her his i is it lead me mobile my name new no not now number of on or phone placed please reached result ring the their then to try ve was with yes you'.split(
		' ',
	),
);

/**
 * Who is who: each name (written with a capital) said next to a number ("call Ann on +7 999 000-55-55", "Ann (+7 …)",
 * "name Ann, phone 7999…"), in the order said; a later mention of a name wins.
 * @param {string[]} texts
 * @returns {{ name: string, number: string }[]}
 */
function peopleIn(texts) {
	const people = [];
	for (const text of texts) {
		let from = 0;
		for (const match of text.matchAll(PHONE)) {
			const before = text.slice(from, match.index);
			from = match.index + match[0].length;
			const words = before.match(/[A-Za-zА-Яа-яЁё]+(?:'s)?/g) || [];
			const name = [...words]
				.reverse()
				.map((word) => word.replace(/'s$/, ''))
				.find((word) => !NOT_NAMES.has(word.toLowerCase()));
			// only a word right before the number (a few joining words apart): "Ann on", "Ann's number is"
			const tail = words.slice(-4).map((word) => word.replace(/'s$/, ''));
			if (name && tail.includes(name) && name.length > 1 && /^[A-ZА-ЯЁ]/.test(name))
				people.push({ name: name[0].toUpperCase() + name.slice(1), number: match[0].trim() });
		}
	}
	return people;
}

/** The person a question is about: a number in it, else a name said earlier, else the last person of the conversation. */
function personAskedAbout(userText, history) {
	const number = userText.match(PHONE);
	const people = peopleIn(history.map((said) => said.text));
	if (number)
		return (
			people.find((p) => digitsOf(p.number) === digitsOf(number[0])) || {
				name: '',
				number: number[0].trim(),
			}
		);
	const words = new Set(
		(userText.match(/[A-Za-zА-Яа-яЁё]+/g) || []).map((word) => word.toLowerCase()),
	);
	const named = [...people].reverse().find((p) => words.has(p.name.toLowerCase()));
	if (named) return named;
	const earlier = history
		.map((said) => said.text)
		.join('\n')
		.match(PHONE);
	if (!earlier) return undefined;
	const last = earlier[earlier.length - 1].trim();
	return (
		[...people].reverse().find((p) => digitsOf(p.number) === digitsOf(last)) || {
			name: '',
			number: last,
		}
	);
}

/** A question about how a call went. */
const RESULT_QUESTION =
	/\b(what did|did \w+ (pick up|answer|reply)|how did|how was|what happened|results?|outcome)\b/i;
/** A request to place a call. */
const CALL_REQUEST = /\b(call|phone|dial|ring)\b/i;

/* ------------------------------------------------------------------ tools by meaning */

/** Words that say a tool places a call ("Phones a person", "Call a person"), not a noun ("call results", "phone number"). */
const PLACES_CALL =
	/\b(calls?|calling|phones?|dials?|dialling|rings?)\b(?!\s+(results?|history|log|status|outcomes?|records?|numbers?|ids?|rows?|data)\b)|\bvoice bot\b/i;
/** Words that say a tool looks something up. */
const LOOKS_UP =
	/\b(look(s|ing)?[ _-]?up|lookups?|gets?|finds?|search(es)?|reads?|retriev\w*|fetch\w*|quer(y|ies)|lists?|rows?|results?)\b/i;
/** Argument names of a lookup (a filter's value, a query), as n8n's ✨ names them for a filter: `conditions0_Value`. */
const FILTER_ARGUMENT = /condition|filter|query|search|key_?value|_value$|^value$/i;

/**
 * What a tool does, as a model reads it: `call` (places a call), `lookup` (looks results up) or
 * undefined. The verb its name and description say first decides; the arguments decide when
 * neither says.
 * @returns {'call' | 'lookup' | undefined}
 */
function toolPurpose(tool) {
	const text = `${String(tool.name || '').replace(/[_-]+/g, ' ')}. ${tool.description || ''}`;
	const call = text.search(PLACES_CALL);
	const lookup = text.search(LOOKS_UP);
	if (call >= 0 && (lookup < 0 || call < lookup)) return 'call';
	if (lookup >= 0) return 'lookup';
	const names = Object.keys(propertiesOf(tool));
	if (names.some((name) => FILTER_ARGUMENT.test(name))) return 'lookup';
	if (names.some((name) => /phone|number/i.test(name))) return 'call';
	return undefined;
}

function propertiesOf(tool) {
	const schema = tool.parameters && typeof tool.parameters === 'object' ? tool.parameters : {};
	return schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
}

/** The tool for a purpose: among several, one whose arguments take a phone first. */
function toolFor(tools, purpose) {
	const fitting = tools.filter((tool) => toolPurpose(tool) === purpose);
	return fitting.find((tool) => phoneArgument(tool) !== undefined) || fitting[0];
}

/** The argument that takes the number: named after a phone, or described so, or a number, or a filter's value, or the only text. */
function phoneArgument(tool) {
	const properties = propertiesOf(tool);
	const names = Object.keys(properties);
	const about = (name) =>
		`${properties[name] && properties[name].description ? properties[name].description : ''}`;
	const texts = names.filter((name) =>
		[undefined, 'string'].includes(properties[name] && properties[name].type),
	);
	return (
		names.find((name) => /phone/i.test(name)) ||
		names.find((name) => /phone/i.test(about(name))) ||
		names.find((name) => /number/i.test(name) || /number/i.test(about(name))) ||
		names.find((name) => FILTER_ARGUMENT.test(name)) ||
		(texts.length === 1 ? texts[0] : undefined)
	);
}

/**
 * The arguments of a tool call about one person, as the tool's JSON schema asks: the number in the
 * phone argument, the name in a name argument, every other required argument empty. A tool without
 * a schema gets `{ phone, name }`.
 * @param {{ name?: string, parameters?: any }} tool
 * @param {string} phone
 * @param {string} [name]
 */
function argumentsFor(tool, phone, name = '') {
	const properties = propertiesOf(tool);
	const names = Object.keys(properties);
	if (names.length === 0) return { phone, name };
	const schema = tool.parameters;
	const args = {};
	for (const key of Array.isArray(schema.required) ? schema.required : []) {
		const type = properties[key] && properties[key].type;
		args[key] =
			type === 'number' || type === 'integer'
				? 0
				: type === 'boolean'
					? false
					: type === 'array'
						? []
						: type === 'object'
							? {}
							: '';
	}
	const phoneKey = phoneArgument(tool) || names[0];
	const nameKey = names.find(
		(key) => key !== phoneKey && /name/i.test(key) && !/phone|number/i.test(key),
	);
	if (nameKey) args[nameKey] = name;
	args[phoneKey] = phone;
	return args;
}

/** The arguments of a call with one phone number (kept for the suites: argumentsFor without a name). */
function phoneArguments(tool, phone) {
	return argumentsFor(tool, phone);
}

/* ------------------------------------------------------------------ what to do next */

/**
 * The tool calls of this turn, or the answer in words.
 * @param {Conversation} talk
 * @returns {{ calls?: { tool: any, args: any }[], text?: string }}
 */
function nextStep(talk, finalAnswer) {
	const { userText, toolResults, turn, tools, turnCalls, history } = talk;
	if (/^SCRIPT /.test(userText)) {
		const scripted = JSON.parse(userText.slice('SCRIPT '.length));
		const toolNamed = (name) =>
			tools.find((t) => t.name === name) ||
			tools.find((t) => t.name.toLowerCase().includes(String(name).toLowerCase()));
		// A SCRIPT step is one call, or an array of calls the model makes together in one turn.
		const step = scripted[turn];
		const calls =
			step &&
			(Array.isArray(step) ? step : [step]).map((call) => ({
				tool: toolNamed(call.tool),
				args: call.args,
			}));
		if (calls && calls.length && calls.every((call) => call.tool)) return { calls };
		return { text: joinedToolResults(toolResults) };
	}
	const callTool = toolFor(tools, 'call');
	const lookupTool = toolFor(tools, 'lookup');
	const people = peopleIn(history.map((said) => said.text));
	const numbers = (userText.match(PHONE) || []).map((number) => number.trim());
	const asksResult =
		RESULT_QUESTION.test(userText) &&
		(numbers.length === 0 || !CALL_REQUEST.test(userText.replace(RESULT_QUESTION, '')));
	if (asksResult && lookupTool) {
		const person = personAskedAbout(userText, history);
		if (!person) return { text: 'Whose call do you mean? Tell me their name or number.' };
		if (turn === 0)
			return {
				calls: [{ tool: lookupTool, args: argumentsFor(lookupTool, digitsOf(person.number)) }],
			};
		return { text: resultAnswer(toolResults, person) };
	}
	if (numbers.length > 0 || CALL_REQUEST.test(userText)) {
		if (!callTool) return { text: 'I have no tool that places calls here, so I called nobody.' };
		const wanted = numbers.length > 0 ? numbers : namedIn(userText, people);
		if (wanted.length === 0)
			return { text: 'Which number should I call? Please give it with its country code.' };
		const made = turnCalls.filter((call) => call.name === callTool.name);
		if (made.length < wanted.length) {
			const number = wanted[made.length];
			const person = [...people].reverse().find((p) => digitsOf(p.number) === digitsOf(number));
			return {
				calls: [
					{ tool: callTool, args: argumentsFor(callTool, number, person ? person.name : '') },
				],
			};
		}
		if (finalAnswer) return { text: finalAnswer(toolResults, userText) };
		if (/\bCRM note\b/i.test(userText)) return { text: crmNote(toolResults) };
		return {
			text: callSummary(
				wanted.map((number, index) => ({
					person: [...people].reverse().find((p) => digitsOf(p.number) === digitsOf(number)) || {
						name: '',
						number,
					},
					result: made[index].result,
				})),
			),
		};
	}
	if (finalAnswer && toolResults.length) return { text: finalAnswer(toolResults, userText) };
	return {
		text: callTool
			? 'Hello! I can phone a person for you: tell me their name and number, country code first.' +
				(lookupTool ? ' Later, ask me how the call went.' : '')
			: 'Hello! I have no tool that places calls here.',
	};
}

/** The numbers of people named in a request without a number ("call Eve again"). */
function namedIn(userText, people) {
	const words = new Set(
		(userText.match(/[A-Za-zА-Яа-яЁё]+/g) || []).map((word) => word.toLowerCase()),
	);
	const named = [...people].reverse().find((p) => words.has(p.name.toLowerCase()));
	return named ? [named.number] : [];
}

/* ------------------------------------------------------------------ answers in words */

/** The items a tool returned (n8n gives the model the output items as JSON text, sometimes as a JSON string of it). */
function itemsOf(text) {
	try {
		let parsed = JSON.parse(text);
		if (typeof parsed === 'string') parsed = JSON.parse(parsed);
		return (Array.isArray(parsed) ? parsed : [parsed]).filter(
			(item) => item && typeof item === 'object',
		);
	} catch {
		return [];
	}
}

const who = (person) => (person.name ? `${person.name} (${person.number})` : person.number);

function listed(words) {
	return words.length <= 1
		? words.join('')
		: `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/**
 * The reason of a tool's message, for the person in the chat, and what to ask them: "Refused: the
 * number … is missing digits. Ask the user for the full number with its country code." reads
 * "the number … is missing digits", and "Could you give me the full number with its country code?".
 */
function reasonOf(message) {
	const text = String(message || '').replace(/^(Refused|Not sent|Failed|Outcome unknown):\s*/i, '');
	const sentences = text.split(/(?<=\.)\s+(?=[A-Z])/);
	const reason = sentences[0].replace(/\.$/, '');
	const ask = sentences
		.slice(1)
		.join(' ')
		.match(/\bAsk the user (?:for|to give you) ([^.;,]+)/i);
	return {
		reason,
		question: ask ? `Could you give me ${ask[1].replace(/^their |^the person's /, 'the ')}?` : '',
	};
}

/**
 * What the assistant says after placing calls: which were placed, and which were not and why.
 * @param {{ person: { name: string, number: string }, result: string }[]} calls
 */
function callSummary(calls) {
	const placed = [];
	const notPlaced = [];
	const questions = new Set();
	for (const { person, result } of calls) {
		const item = itemsOf(result)[0];
		if (item && item.outcome === 'done') {
			placed.push(who(person));
			continue;
		}
		const { reason, question } = reasonOf(
			item ? item.message || item.outcome : result || 'the tool gave no answer',
		);
		if (question) questions.add(question);
		if (item && item.outcome === 'unknown')
			notPlaced.push(
				`The call to ${who(person)} may have started, so I will not repeat it: ${reason}.`,
			);
		else if (item && item.outcome === 'failed')
			notPlaced.push(`The call to ${who(person)} failed: ${reason}.`);
		else notPlaced.push(`I did not call ${who(person)}: ${reason}.`);
	}
	const parts = [];
	if (placed.length)
		parts.push(`I've placed ${placed.length === 1 ? 'a call' : 'calls'} to ${listed(placed)}.`);
	parts.push(...notPlaced, ...questions);
	return parts.join(' ');
}

/** When a row was written: n8n's Data Table rows carry createdAt and a growing id. */
const writtenAt = (row) => [
	Date.parse(row.createdAt || row.updatedAt || row.endedAt || '') || 0,
	Number(row.id) || 0,
];

/** The answer from the newest of the rows the lookup returned (whatever order the tool gave them in). */
function resultAnswer(results, person) {
	const rows = itemsOf(results[results.length - 1] || '');
	const call = `The call to ${who(person)}`;
	if (!rows.length)
		return `There is no result yet for the call to ${who(person)}: the call may still be going on.`;
	const row = rows.reduce((newest, candidate) => {
		const [a, b] = [writtenAt(candidate), writtenAt(newest)];
		return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]) ? candidate : newest;
	});
	if (row.outcome === 'answered')
		return `${call} was answered (${row.status}, call ${row.callId}). The bot collected: ${row.result || '{}'}.`;
	if (row.outcome) return `${call} did not reach the person (${row.status}, call ${row.callId}).`;
	return `Here is what I found for ${who(person)}: ${JSON.stringify(row)}.`;
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
		? {
				role: 'assistant',
				content: null,
				tool_calls: reply.calls.map((c) => ({
					id: c.id,
					type: 'function',
					function: { name: c.name, arguments: c.arguments },
				})),
			}
		: { role: 'assistant', content: reply.text };
	const finish = reply.calls ? 'tool_calls' : 'stop';
	if (body.stream) {
		res.writeHead(200, { 'content-type': 'text/event-stream' });
		const delta = message.tool_calls
			? { role: 'assistant', tool_calls: message.tool_calls.map((c, index) => ({ index, ...c })) }
			: { role: 'assistant', content: message.content };
		const chunk = (choice) =>
			`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [choice] })}\n\n`;
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
		? reply.calls.map((c) => ({
				type: 'function_call',
				id: `fc_${c.id}`,
				call_id: c.id,
				name: c.name,
				arguments: c.arguments,
				status: 'completed',
			}))
		: [
				{
					type: 'message',
					id: `msg_${n}`,
					role: 'assistant',
					status: 'completed',
					content: [{ type: 'output_text', text: reply.text, annotations: [] }],
				},
			];
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
		usage: {
			input_tokens: 1,
			input_tokens_details: { cached_tokens: 0 },
			output_tokens: 1,
			output_tokens_details: { reasoning_tokens: 0 },
			total_tokens: 2,
		},
	};
	if (!body.stream) return sendJson(res, response);
	res.writeHead(200, { 'content-type': 'text/event-stream' });
	let sequence = 0;
	const event = (type, fields) =>
		res.write(
			`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`,
		);
	event('response.created', { response: { ...response, status: 'in_progress', output: [] } });
	output.forEach((item, index) => {
		if (item.type === 'function_call') {
			// the whole arguments come with the item (no argument deltas, which would add them twice)
			event('response.output_item.added', { output_index: index, item });
		} else {
			const text = item.content[0].text;
			event('response.output_item.added', {
				output_index: index,
				item: { ...item, status: 'in_progress', content: [] },
			});
			event('response.output_text.delta', {
				item_id: item.id,
				output_index: index,
				content_index: 0,
				delta: text,
			});
			event('response.output_text.done', {
				item_id: item.id,
				output_index: index,
				content_index: 0,
				text,
			});
		}
		event('response.output_item.done', { output_index: index, item });
	});
	event('response.completed', { response });
	res.end();
}

function contentText(content) {
	if (typeof content === 'string') return content;
	if (Array.isArray(content))
		return content.map((part) => (typeof part === 'string' ? part : part.text || '')).join('');
	return content == null ? '' : JSON.stringify(content);
}

/** @param {string[]} results */
function joinedToolResults(results) {
	return results.join('\n') || 'Nothing to do.';
}

/** A short CRM note from the result of a "… and Wait for Result" tool (what the model writes when asked for one, example 9). */
/** @param {string[]} results */
function crmNote(results) {
	const item = itemsOf(results[results.length - 1] || '')[0];
	if (!item) return 'CRM note: no call was made.';
	if (item.outcome === 'answered') {
		const said = Object.entries(item.result || {}).map(
			([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
		);
		return `CRM note: reached by phone (call ${item.callId}). ${said.length ? `They said - ${said.join('; ')}.` : 'The bot collected nothing.'}`;
	}
	if (item.outcome === 'notReached')
		return `CRM note: not reached by phone (${item.status}). Try again later.`;
	return `CRM note: ${item.message || item.outcome}`;
}

module.exports = {
	startScriptedChatModel,
	contentText,
	crmNote,
	phoneArguments,
	argumentsFor,
	toolPurpose,
	peopleIn,
	MODELS,
};
