// The action node as an AI Agent's tool. Runs the node the way n8n runs a tool
// (test/engine/harness.ts `runAgentTool`: n8n's tool variant of the node, parameters from
// `$fromAI()` filled with the model's arguments, both ways n8n runs tools), and as a plain node,
// against the simulator over HTTP.
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DEFAULT_AGENT_MAX_CALLS } from '../../nodes/CisAutoCall/actions/agent';
import {
	apiRequests,
	byId,
	candidate,
	createAndRunByExpression,
	createTaskInState,
	credentialsFor,
	jsonOf,
	runAction,
	runTool,
	TOKEN,
	toolAnswerOf,
	useActionSimulator,
} from '../actions/fixtures';

const CREATE_AND_RUN = '/cis/api/v1/telephony/autoCallCandidate/single';

const sim = useActionSimulator({}, { settle: true });

/** Create and Run with the phone (and a name variable) supplied by the model. */
const callTool = (options: IDataObject = {}): INodeParameters => ({
	resource: 'candidate',
	operation: 'createAndRun',
	botSettingsId: 'bot-1',
	phone: "={{ $fromAI('phone', 'Number of the person to call, as the user gave it', 'string') }}",
	options: options as INodeParameters,
});

const created = () => apiRequests(sim).filter((request) => request.path === CREATE_AND_RUN);

/** Nothing was sent, and the model reads that the call was refused and why. */
function expectRefusedUnsent(result: { observations: string[] }, message: string): void {
	expect(apiRequests(sim)).toHaveLength(0);
	expect(toolAnswerOf(result.observations[0])).toEqual({ outcome: 'refused', message });
}

describe.each(['engineRequest', 'supplyData'] as const)('as an AI Agent tool (%s)', (via) => {
	test('the node knows it runs as a tool: the agent default cap applies', async () => {
		const result = await runTool(
			sim,
			callTool(),
			[1, 2, 3, 4].map((n) => ({ phone: `7999000000${n}` })),
			{ via },
		);
		expect(result.error).toBeUndefined();
		// AI Agent v3 runs the tool as an ordinary node, where isToolExecution() is false; the node
		// still runs as its tool variant. The LangChain wrapper's context answers true.
		expect(result.invocations.map((run) => run.isToolExecution)).toEqual(
			Array(4).fill(via === 'supplyData'),
		);
		expect(
			result.invocations.every((run) => run.nodeType === 'n8n-nodes-cis-autocall.cisAutoCallTool'),
		).toBe(true);
		expect(created()).toHaveLength(DEFAULT_AGENT_MAX_CALLS);
		expect(result.observations.slice(0, 3).map((text) => toolAnswerOf(text).outcome)).toEqual([
			'done',
			'done',
			'done',
		]);
		expect(toolAnswerOf(result.observations[3])).toEqual({
			outcome: 'refused',
			message:
				'Refused: this call would go beyond 3 calls per agent run (the limit for an AI Agent tool when "Max Calls per Run" is not set), counting all CIS Auto-Call tools of this workflow execution together; 3 already started, so nothing was sent. This is a limit set for these calls: do not try to get around it (no other numbers, no repeats); tell the user.',
		});
	});

	test('a number outside Allowed Numbers is refused with 0 requests, and the model reads the number and the rule', async () => {
		const result = await runTool(
			sim,
			callTool({ allowedNumbers: '7495, +7 (812)' }),
			[{ phone: '+7 999 000-00-01' }],
			{ via },
		);
		expectRefusedUnsent(
			result,
			'Refused: the number 79990000001 is not in Allowed Numbers ("7495", "+7 (812)"), so it was not called. This is a limit set for these calls: do not try to get around it (no other numbers, no repeats); tell the user.',
		);
	});

	test("a number of the wrong length is the number's fault: the model is told to ask the user for the right one, not that the user set a limit", async () => {
		const result = await runTool(sim, callTool(), [{ phone: '7999000001' }], { via });
		expect(apiRequests(sim)).toHaveLength(0);
		const answer = toolAnswerOf(result.observations[0]);
		expect(answer.outcome).toBe('refused');
		expect(answer.message).toMatch(
			/^Refused: 7999000001 has no country code \(a national number of 10 digits\), so nothing was called\. Ask the user for the full number with its country code, then call with it; never guess, complete or change a number yourself\.?$/,
		);
		expect(answer.message).not.toMatch(/limit set for these calls|Options|Default Country/);
	});

	test("a tool call that sent nothing is not a plain success in the log: a warning above the tool's output gives the builder the same reason and the fix", async () => {
		const result = await runTool(
			sim,
			callTool(),
			[{ phone: '7999000001' }, { phone: '79990000041' }],
			{ via },
		);
		expect(created()).toHaveLength(1);
		const hints = Object.values(result.runData)
			.flat()
			.flatMap((task) => task.hints ?? []);
		if (via === 'engineRequest') {
			// n8n runs the tool as an ordinary node: its run in the execution carries the notice.
			expect(hints).toEqual([
				{
					type: 'warning',
					location: 'outputPane',
					message: expect.stringMatching(
						/^This tool call sent nothing: 7999000001 has no country code \(a national number of 10 digits\), so nothing was called\. Set Default Country in Options to the country of the number/,
					),
				},
			]);
		}
		const succeeded = await runTool(sim, callTool(), [{ phone: '79990000042' }], { via });
		expect(
			Object.values(succeeded.runData)
				.flat()
				.flatMap((task) => task.hints ?? []),
		).toEqual([]);
	});

	test('an emergency number is refused as a wrong number, not as a limit of the user', async () => {
		const result = await runTool(sim, callTool(), [{ phone: '112' }], { via });
		expect(apiRequests(sim)).toHaveLength(0);
		const answer = toolAnswerOf(result.observations[0]);
		expect(answer.outcome).toBe('refused');
		expect(answer.message).toMatch(/Ask the user for the right number/);
		expect(answer.message).not.toMatch(/limit set for these calls/);
	});

	test('the 6th call with Max Calls per Run = 5 is refused and 5 requests were sent', async () => {
		const calls = [1, 2, 3, 4, 5, 6].map((n) => ({ phone: `7999000001${n}` }));
		const result = await runTool(sim, callTool({ maxCallsPerRun: 5 }), calls, { via });
		expect(created().map((request) => request.body.phone)).toEqual(
			calls.slice(0, 5).map((call) => [call.phone]),
		);
		expect(result.observations.slice(0, 5).map((text) => toolAnswerOf(text).outcome)).toEqual(
			Array(5).fill('done'),
		);
		expect(toolAnswerOf(result.observations[5])).toEqual({
			outcome: 'refused',
			message:
				'Refused: this call would go beyond 5 calls per agent run ("Max Calls per Run"), counting all CIS Auto-Call tools of this workflow execution together; 5 already started, so nothing was sent. This is a limit set for these calls: do not try to get around it (no other numbers, no repeats); tell the user.',
		});
	});

	test('success: the ids for a follow-up, not the raw answer', async () => {
		const result = await runTool(sim, callTool(), [{ phone: '79990000021' }], { via });
		const answer = toolAnswerOf(result.observations[0]);
		const [candidate] = [...sim.state.candidates.values()];
		expect(answer).toEqual({
			outcome: 'done',
			autoCallCandidateId: candidate.id,
			phone: ['79990000021'],
		});
	});

	test("a 400 from the service: short text with the service's reason and what to do, no stack, no token", async () => {
		sim.injectFault({
			path: CREATE_AND_RUN,
			status: 400,
			body: {
				timestamp: '2026-11-23T10:00:00Z',
				type: 'ValidationException',
				error: 'phone[0] is not a valid number',
				details: { field: 'phone[0]' },
			},
		});
		const result = await runTool(sim, callTool(), [{ phone: '79990000031' }], { via });
		expect(created()).toHaveLength(1);
		const answer = toolAnswerOf(result.observations[0]);
		expect(answer).toEqual({
			outcome: 'failed',
			message:
				'Failed: The service answered 400 to POST /cis/api/v1/telephony/autoCallCandidate/single: phone[0] is not a valid number {"field":"phone[0]"}. The service refused the values of this request, so nothing was created. Correct what the message names and try once more, or tell the user.',
		});
		expect(result.observations[0]).not.toMatch(/\n\s+at /);
		expect(result.observations[0]).not.toContain(TOKEN);
	});

	test('bad input from the model is refused before any request, with what to correct', async () => {
		const result = await runTool(sim, callTool(), [{ phone: 'call my mother' }], { via });
		expectRefusedUnsent(
			result,
			'Not sent: Invalid phone: "call my mother" is not a phone number. Correct the value it names, using only what the user gave you (never invent a phone number), and try again.',
		);
	});

	test('a rejected token: the text names no secret', async () => {
		const result = await runTool(sim, callTool(), [{ phone: '79990000041' }], {
			via,
			credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: 'wrong-token-5e1f' } },
		});
		const answer = toolAnswerOf(result.observations[0]);
		expect(answer.outcome).toBe('failed');
		expect(answer.message).toMatch(/^Failed: The service refused the token \(HTTP 401\)/);
		expect(result.observations[0]).not.toContain('wrong-token-5e1f');
	});
});

describe("as an AI Agent tool, with the node's settings", () => {
	test('the description the model is given says the tool phones a person (Tool Description: Set Automatically)', async () => {
		const result = await runTool(sim, callTool(), []);
		expect(result.tool).toEqual({
			name: 'CIS_Auto-Call',
			description: 'Phone a person now with a voice bot in CIS Auto-Call',
			arguments: [
				{ key: 'phone', description: 'Number of the person to call, as the user gave it' },
			],
		});
	});

	test.each(['engineRequest', 'supplyData'] as const)(
		'an unknown outcome is not retried, even with Retry On Fail, and the model is told not to repeat it (%s)',
		async (via) => {
			sim.injectFault({ path: CREATE_AND_RUN, status: 503, afterHandling: true });
			const result = await runTool(sim, callTool(), [{ phone: '79990000051' }], {
				via,
				retryOnFail: true,
				maxTries: 3,
				waitBetweenTries: 0,
			});
			expect(created()).toHaveLength(1);
			expect(sim.state.candidates.size).toBe(1);
			expect(result.invocations).toHaveLength(1);
			const answer = toolAnswerOf(result.observations[0]);
			expect(answer.outcome).toBe('unknown');
			expect(answer.message).toMatch(
				/Do not repeat it: it may have been carried out \(a call may have started\)/,
			);
		},
	);

	test('a call the service refused (4xx) does not count against Max Calls per Run', async () => {
		sim.injectFault({
			path: CREATE_AND_RUN,
			status: 400,
			body: { error: 'phone[0] is not a valid number', details: null },
		});
		const result = await runTool(sim, callTool({ maxCallsPerRun: 1 }), [
			{ phone: '79990000071' },
			{ phone: '79990000072' },
			{ phone: '79990000073' },
		]);
		expect(result.observations.map((text) => toolAnswerOf(text).outcome)).toEqual([
			'failed',
			'done',
			'refused',
		]);
		expect(created()).toHaveLength(2);
	});

	test('a failed login: nothing was sent, so "failed" (not "unknown"), and the text names no password', async () => {
		const login = { ...credentialsFor(sim).cisAutoCallLoginApi, password: 'not-the-pa55word-3c9d' };
		const result = await runTool(
			sim,
			{ ...callTool(), authentication: 'login' },
			[{ phone: '79990000081' }],
			{ credentials: { cisAutoCallLoginApi: login } },
		);
		expect(apiRequests(sim)).toHaveLength(0);
		const answer = toolAnswerOf(result.observations[0]);
		expect(answer.outcome).toBe('failed');
		expect(result.observations[0]).not.toContain('not-the-pa55word-3c9d');
	});

	test('Allowed Numbers and the cap hold for the batch operations too', async () => {
		const task = createTaskInState(sim, { name: 'Agent task' });
		const result = await runTool(
			sim,
			candidate('addManyToTask', {
				autoCallId: byId(task.id),
				phone: "={{ $fromAI('phone', 'Number to add', 'string') }}",
				options: { allowedNumbers: '7999', maxCallsPerRun: 2 },
			}),
			[
				{ phone: '79990000061' },
				{ phone: '74950000061' },
				{ phone: '79990000062' },
				{ phone: '79990000063' },
			],
		);
		const added = apiRequests(sim).filter(
			(request) => request.path === '/cis/api/v1/telephony/autoCallCandidate/batch',
		);
		expect(
			added.map((request) => request.body.batch.map((entry: IDataObject) => entry.phone)),
		).toEqual([[['79990000061']], [['79990000062']]]);
		expect(result.observations.map((text) => toolAnswerOf(text).outcome)).toEqual([
			'done',
			'refused',
			'done',
			'refused',
		]);
	});
});

describe('plain runs', () => {
	test('no default cap: 10 items, 10 calls', async () => {
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				phone: '={{ $json.phone }}',
			},
			Array.from({ length: 10 }, (_, index) => ({
				phone: `79990001${String(index).padStart(3, '0')}`,
			})),
		);
		expect(result.error).toBeUndefined();
		expect(created()).toHaveLength(10);
		// Plain output is unchanged: the raw answer stays next to the ids.
		expect(jsonOf(result)[0]).toHaveProperty('response');
		expect(jsonOf(result)[0]).not.toHaveProperty('outcome');
	});

	test('Max Calls per Run = 5 and 6 items: refused before any request, saying how many were allowed', async () => {
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				phone: '={{ $json.phone }}',
				options: { maxCallsPerRun: 5 },
			},
			Array.from({ length: 6 }, (_, index) => ({ phone: `7999000200${index}` })),
		);
		expect(apiRequests(sim)).toHaveLength(0);
		expect(result.error?.message).toBe(
			'Refused: these 6 calls would go beyond 5 calls per workflow execution ("Max Calls per Run"); 0 already started, so nothing was sent [item 0]',
		);
	});

	test('a bad Allowed Numbers rule is a named error before any request', async () => {
		const result = await runAction(sim, {
			resource: 'candidate',
			operation: 'createAndRun',
			botSettingsId: 'bot-1',
			phone: '79990004001',
			options: { allowedNumbers: '7999, seven' },
		});
		expect(apiRequests(sim)).toHaveLength(0);
		expect(result.error?.message).toBe(
			'Invalid allowedNumbers: "seven" is not a number prefix or pattern; use digits, and X for any one digit, e.g. 7900 or +7 (495) XXX-XX-XX [item 0]',
		);
	});

	test('Allowed Numbers in a plain run: the item with the outside number fails, named; with Continue On Fail the others are called', async () => {
		const parameters = createAndRunByExpression({ options: { allowedNumbers: '7999' } });
		const items = [
			{ phone: '79990003001' },
			{ phone: '+7 (495) 000-30-02' },
			{ phone: '79990003003' },
		];
		const stopped = await runAction(sim, parameters, items);
		expect(apiRequests(sim)).toHaveLength(0);
		expect(stopped.error?.message).toBe(
			'Refused: the number 74950003002 is not in Allowed Numbers ("7999"), so it was not called [item 1]',
		);

		const continued = await runAction(sim, parameters, items, { continueOnFail: true });
		expect(created().map((request) => request.body.phone)).toEqual([
			['79990003001'],
			['79990003003'],
		]);
		expect(jsonOf(continued)[1]).toMatchObject({
			error:
				'Refused: the number 74950003002 is not in Allowed Numbers ("7999"), so it was not called [item 1]',
		});
		expect(continued.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
	});
});
