/**
 * The stand-in model of `npm start` and the suites (scripts/lib/standInModel.js) over HTTP: both
 * routes n8n's OpenAI Chat Model uses (chat completions, and the Responses API that version 1.3 of
 * the node uses by default), the phone argument named as the tool's schema names it, the model list.
 * That n8n's own client reads these answers is shown by the browser suite and the e2e suite.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { startScriptedChatModel } = require('../../scripts/lib/standInModel');
const { httpRequest } = require('../../scripts/lib/http');

/** A tool as n8n gives it when the phone field holds the ✨ button's `$fromAI('Phone_Numbers', …)`. */
const sparkleSchema = { type: 'object', properties: { Phone_Numbers: { type: 'string' } }, required: ['Phone_Numbers'] };

let model: any;
beforeAll(async () => {
	model = await startScriptedChatModel();
});
afterAll(async () => {
	await model.close();
});

test('Responses API: a call per number into the argument the schema names, then the tools\' answers as text', async () => {
	const tools = [{ type: 'function', name: 'Call_a_person', description: 'Phones a person', parameters: sparkleSchema, strict: null }];
	const user = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Call 79990001111 and 79990002222' }] };
	const first = await httpRequest('POST', `${model.url}/v1/responses`, { body: { model: 'gpt-5-mini', input: [user], tools } });
	expect(first.status).toBe(200);
	expect(first.body.object).toBe('response');
	expect(first.body.output).toEqual([
		expect.objectContaining({ type: 'function_call', name: 'Call_a_person', arguments: JSON.stringify({ Phone_Numbers: '79990001111' }) }),
	]);
	const call = first.body.output[0];
	const second = await httpRequest('POST', `${model.url}/v1/responses`, {
		body: { model: 'gpt-5-mini', input: [user, call, { type: 'function_call_output', call_id: call.call_id, output: '[{"outcome":"done"}]' }], tools },
	});
	expect(JSON.parse(second.body.output[0].arguments)).toEqual({ Phone_Numbers: '79990002222' });
	const secondCall = second.body.output[0];
	const done = await httpRequest('POST', `${model.url}/v1/responses`, {
		body: {
			model: 'gpt-5-mini',
			input: [user, call, { type: 'function_call_output', call_id: call.call_id, output: 'one' }, secondCall, { type: 'function_call_output', call_id: secondCall.call_id, output: 'two' }],
			tools,
		},
	});
	expect(done.body.output).toEqual([expect.objectContaining({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'one\ntwo', annotations: [] }] })]);
});

test('Responses API streamed: the call arrives whole in its output item, and the run ends with response.completed', async () => {
	const tools = [{ type: 'function', name: 'Call_a_person', parameters: sparkleSchema }];
	const res = await httpRequest('POST', `${model.url}/v1/responses`, { body: { model: 'gpt-5-mini', stream: true, input: 'Call +7 999 000-33-33', tools } });
	const events = String(res.text)
		.split('\n')
		.filter((line) => line.startsWith('data: '))
		.map((line) => JSON.parse(line.slice(6)));
	expect(events.map((e) => e.type)).toEqual(['response.created', 'response.output_item.added', 'response.output_item.done', 'response.completed']);
	expect(JSON.parse(events[1].item.arguments)).toEqual({ Phone_Numbers: '+7 999 000-33-33' });
});

test('chat completions: the phone goes where the schema says, other required arguments are empty', async () => {
	const parameters = { type: 'object', properties: { Name: { type: 'string' }, Number_To_Dial: { type: 'string', description: 'the phone number' } }, required: ['Name', 'Number_To_Dial'] };
	const res = await httpRequest('POST', `${model.url}/v1/chat/completions`, {
		body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Call 79990004444' }], tools: [{ type: 'function', function: { name: 'call', parameters } }] },
	});
	expect(JSON.parse(res.body.choices[0].message.tool_calls[0].function.arguments)).toEqual({ Name: '', Number_To_Dial: '79990004444' });
});

test('the model list the node\'s Model field loads, and a clear 404 for anything else', async () => {
	const models = await httpRequest('GET', `${model.url}/v1/models`);
	expect(models.body.data.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining(['gpt-4o-mini', 'gpt-5-mini']));
	const other = await httpRequest('POST', `${model.url}/v1/embeddings`, { body: {} });
	expect(other.status).toBe(404);
	expect(other.body.error.message).toBe('not scripted: POST /v1/embeddings');
});
