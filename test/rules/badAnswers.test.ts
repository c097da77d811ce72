/**
 * A 2xx answer is a success only when it has the shape the API promises. A server on 127.0.0.1
 * answers 200 with an HTML page (or `{error}`) to every operation: no item may become a success; a
 * creating request becomes "outcome unknown" and is sent once.
 *
 * The checks are set per request (`expect`, nodes/shared/answerShapes.ts) and enforced by the
 * transport. Whether an operation creates is read from its declaration (`creates`), and every
 * operation of the node has a case here, so a new one cannot be left out.
 */
import type { INodeParameters } from 'n8n-workflow';

import { operations } from '../../nodes/CisAutoCall/actions/resources';
import {
	byId,
	jsonOf,
	runAction,
	sendJson,
	startTinyServer,
	type TinyServer,
} from '../actions/fixtures';

jest.setTimeout(60_000);

const HTML =
	'<!DOCTYPE html><html><head><title>Maintenance</title></head><body>Back soon</body></html>';

interface Case {
	name: string;
	parameters: INodeParameters;
	creates: boolean;
}

/** The "… and Wait for Result" operations wait after their request: their bad answers are checked in test/actions/candidate/. */
const WAITING = ['candidate.addToTaskAndWait', 'candidate.createAndRunAndWait'];

const PARAMETERS: Array<{ name: string; parameters: INodeParameters }> = [
	{
		name: 'Call Task → Create',
		parameters: {
			resource: 'callTask',
			operation: 'create',
			name: 'x',
			defaultExecData: 'bot-1',
			cpsMode: 'perSecond',
			callsPerSecond: 1,
			recordCall: false,
		},
	},
	{
		name: 'Call Task → Get',
		parameters: { resource: 'callTask', operation: 'get', autoCallId: byId('task-1') },
	},
	{
		name: 'Call Task → Get Many',
		parameters: { resource: 'callTask', operation: 'getMany', limit: 5 },
	},
	{
		name: 'Call Task → Start',
		parameters: { resource: 'callTask', operation: 'start', autoCallId: byId('task-1') },
	},
	{
		name: 'Call Task → Pause',
		parameters: { resource: 'callTask', operation: 'pause', autoCallId: byId('task-1') },
	},
	{
		name: 'Call Task → Stop',
		parameters: { resource: 'callTask', operation: 'stop', autoCallId: byId('task-1') },
	},
	{
		name: 'Candidate → Create and Run',
		parameters: {
			resource: 'candidate',
			operation: 'createAndRun',
			botSettingsId: 'bot-1',
			phone: '79990000001',
		},
	},
	{
		name: 'Candidate → Create Batch From Template',
		parameters: { resource: 'candidate', operation: 'createBatch', phone: '79990000001' },
	},
	{
		name: 'Candidate → Add to Task',
		parameters: {
			resource: 'candidate',
			operation: 'addToTask',
			autoCallId: byId('task-1'),
			phone: '79990000001',
		},
	},
	{
		name: 'Candidate → Add Many to Task',
		parameters: {
			resource: 'candidate',
			operation: 'addManyToTask',
			autoCallId: byId('task-1'),
			phone: '79990000001',
		},
	},
	{
		name: 'Candidate → Cancel',
		parameters: {
			resource: 'candidate',
			operation: 'cancel',
			autoCallId: byId('task-1'),
			phone: '79990000001',
		},
	},
	{
		name: 'Candidate → Depersonalize',
		parameters: {
			resource: 'candidate',
			operation: 'depersonalize',
			autoCallCandidateId: 'cand-1',
		},
	},
	{
		name: 'Call → Depersonalize',
		parameters: { resource: 'call', operation: 'depersonalize', callId: 'call-1' },
	},
	{
		name: 'Call → Delete Recording',
		parameters: { resource: 'call', operation: 'deleteRecording', callId: 'call-1' },
	},
];

const operationOf = ({ resource, operation }: INodeParameters) =>
	operations[String(resource)]?.[String(operation)];
const CASES: Case[] = PARAMETERS.map((entry) => ({
	...entry,
	creates: operationOf(entry.parameters)?.creates === true,
}));

test('every operation of the node has a case (or waits, and is checked with its wait)', () => {
	const all = Object.entries(operations).flatMap(([resource, ofResource]) =>
		Object.keys(ofResource).map((operation) => `${resource}.${operation}`),
	);
	const covered = PARAMETERS.map(
		({ parameters }) => `${String(parameters.resource)}.${String(parameters.operation)}`,
	);
	expect([...covered, ...WAITING].sort()).toEqual(all.sort());
	// The declarations are read: the operations that create are found.
	expect(CASES.filter((entry) => entry.creates).map((entry) => entry.name)).toEqual(
		expect.arrayContaining(['Call Task → Create', 'Candidate → Create and Run']),
	);
});

let server: TinyServer;
let answer: (response: Parameters<typeof sendJson>[0]) => void;
beforeAll(async () => {
	server = await startTinyServer((_request, response) => answer(response));
});
afterAll(async () => {
	await server.close();
});
beforeEach(() => {
	server.requests.length = 0;
});

describe('a 200 HTML page is never a success', () => {
	beforeEach(() => {
		answer = (response) => {
			response.writeHead(200, {
				'content-type': 'text/html',
				'content-length': String(Buffer.byteLength(HTML)),
			});
			response.end(HTML);
		};
	});

	test.each(CASES)('$name', async ({ parameters, creates }) => {
		const result = await runAction(server.asSimulator(), parameters, [{}], {
			continueOnFail: true,
		});
		const outputs = jsonOf(result);
		expect(outputs).toHaveLength(1);
		expect(typeof outputs[0].error).toBe('string');
		expect(JSON.stringify(outputs[0])).toMatch(/HTML or XML page/);
		expect(outputs[0]).not.toHaveProperty('autoCallCandidateId');
		expect(outputs[0]).not.toHaveProperty('success');
		if (creates) {
			expect(JSON.stringify(outputs[0])).toMatch(/may have been created|outcome unknown/i);
			expect(server.requests).toHaveLength(1);
		}
	});
});

describe('a 200 {"error": ...} is never a success', () => {
	beforeEach(() => {
		answer = (response) =>
			sendJson(response, 200, { error: 'Default template not found', details: null });
	});

	test.each(CASES)('$name', async ({ parameters, creates }) => {
		const result = await runAction(server.asSimulator(), parameters, [{}], {
			continueOnFail: true,
		});
		const outputs = jsonOf(result);
		expect(outputs).toHaveLength(1);
		expect(typeof outputs[0].error).toBe('string');
		expect(outputs[0]).not.toHaveProperty('success');
		if (creates) expect(server.requests).toHaveLength(1);
	});
});
