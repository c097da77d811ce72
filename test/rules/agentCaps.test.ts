// Caps count people (numbers), not items; an AI Agent may not start a task unless
// allowed by an option no expression can set; the cap holds over all CIS Auto-Call tools of one
// agent run. Through n8n-core's engine (test/engine/harness.ts `runAgentTool`) against the simulator.
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	apiRequests,
	byId,
	candidate,
	createAndRunTool,
	createTaskInState,
	runAction,
	runTool,
	toolAnswerOf,
	useActionSimulator,
} from '../actions/fixtures';

const CREATE_AND_RUN = '/cis/api/v1/telephony/autoCallCandidate/single';
const ADD = '/cis/api/v1/telephony/autoCallCandidate';

const sim = useActionSimulator({}, { settle: true });

const FORTY = Array.from(
	{ length: 40 },
	(_, index) => `799900000${String(index + 1).padStart(2, '0')}`,
).join(',');

const outcomes = (observations: string[]) => observations.map((text) => toolAnswerOf(text).outcome);
const created = () => apiRequests(sim).filter((request) => request.path === CREATE_AND_RUN);

describe.each(['engineRequest', 'supplyData'] as const)('as an AI Agent tool (%s)', (via) => {
	test('a phone field with 40 numbers: refused, nothing sent; one number per call', async () => {
		const result = await runTool(
			sim,
			createAndRunTool(),
			[{ phone: FORTY }, { phone: '79990000099' }],
			{ via },
		);
		expect(toolAnswerOf(result.observations[0])).toEqual({
			outcome: 'refused',
			message:
				'Refused: this call gives 40 numbers for one person, and an AI Agent may give one number per call, so nothing was called. Call again with the one number the user meant; if it is unclear which, ask the user.',
		});
		expect(toolAnswerOf(result.observations[1]).outcome).toBe('done');
		expect(created().map((request) => request.body.phone)).toEqual([['79990000099']]);
	});

	test('several numbers allowed: each number counts against the cap (3): 40 refused, 2 + 2 refused after 2', async () => {
		const result = await runTool(
			sim,
			createAndRunTool({ agentSeveralNumbers: true }),
			[
				{ phone: FORTY },
				{ phone: '79990000201,79990000202' },
				{ phone: '79990000203,79990000204' },
				{ phone: '79990000205' },
			],
			{ via },
		);
		expect(outcomes(result.observations)).toEqual(['refused', 'done', 'refused', 'done']);
		expect(toolAnswerOf(result.observations[0]).message).toMatch(
			/^Refused: these 40 calls would go beyond 3 calls per agent run/,
		);
		expect(toolAnswerOf(result.observations[2]).message).toMatch(
			/^Refused: these 2 calls would go beyond 3 calls per agent run .*; 2 already started/,
		);
		expect(created().flatMap((request) => request.body.phone)).toEqual([
			'79990000201',
			'79990000202',
			'79990000205',
		]);
	});

	test('two CIS tool nodes in one agent share the cap: the 4th number is refused, 3 requests', async () => {
		const result = await runTool(
			sim,
			createAndRunTool(),
			[
				{ phone: '79990000301' },
				{ $tool: 'Second CIS', phone: '79990000302' },
				{ phone: '79990000303' },
				{ $tool: 'Second CIS', phone: '79990000304' },
			],
			{ via, moreTools: [{ nodeName: 'Second CIS', parameters: createAndRunTool() }] },
		);
		expect(result.error).toBeUndefined();
		expect(outcomes(result.observations)).toEqual(['done', 'done', 'done', 'refused']);
		expect(toolAnswerOf(result.observations[3]).message).toMatch(
			/^Refused: this call would go beyond 3 calls per agent run \(.*\), counting all CIS Auto-Call tools of this workflow execution together;/,
		);
		expect(created()).toHaveLength(3);
	});

	test('Add to Task with Start the Task Too from the model: refused, nothing sent; allowed by the saved option', async () => {
		const task = createTaskInState(sim, { name: 'Agent task' });
		const addAndStart = (options: IDataObject = {}): INodeParameters => ({
			resource: 'candidate',
			operation: 'addToTask',
			autoCallId: byId(task.id),
			phone: "={{ $fromAI('phone', 'Number to add', 'string') }}",
			forceStart: "={{ $fromAI('start', 'Start the task too', 'boolean') }}",
			options: options as INodeParameters,
		});
		const refused = await runTool(
			sim,
			addAndStart(),
			[
				{ phone: '79990000401', start: true },
				{ phone: '79990000402', start: false },
			],
			{ via },
		);
		expect(outcomes(refused.observations)).toEqual(['refused', 'done']);
		expect(toolAnswerOf(refused.observations[0]).message).toMatch(
			/^Refused: starting a call task phones everyone already in it, and an AI Agent may not do that here, so nothing was sent\. This is a limit set for these calls/,
		);
		const added = apiRequests(sim).filter((request) => request.path === ADD);
		expect(added.map((request) => [request.body.phone, request.body.forceStart])).toEqual([
			[['79990000402'], false],
		]);

		sim.requests.length = 0;
		const allowed = await runTool(
			sim,
			addAndStart({ agentMayStartTask: true }),
			[{ phone: '79990000403', start: true }],
			{ via },
		);
		expect(outcomes(allowed.observations)).toEqual(['done']);
		expect(
			apiRequests(sim)
				.filter((request) => request.path === ADD)
				.map((request) => request.body.forceStart),
		).toEqual([true]);
	});

	test('Call Task → Start as a tool: refused with 0 requests; allowed by the saved option', async () => {
		const task = createTaskInState(sim, { name: 'Ready task' }, { status: 'READY' });
		const start = (options: IDataObject = {}): INodeParameters => ({
			resource: 'callTask',
			operation: 'start',
			autoCallId: byId("={{ $fromAI('task', 'Task id', 'string') }}"),
			options: options as INodeParameters,
		});
		const refused = await runTool(sim, start(), [{ task: task.id }], { via });
		expect(toolAnswerOf(refused.observations[0]).outcome).toBe('refused');
		expect(apiRequests(sim)).toHaveLength(0);
		expect(sim.state.tasks.get(task.id)?.status).toBe('READY');

		const allowed = await runTool(sim, start({ agentMayStartTask: true }), [{ task: task.id }], {
			via,
		});
		expect(toolAnswerOf(allowed.observations[0]).outcome).toBe('done');
		expect(apiRequests(sim).map((request) => request.path)).toEqual([
			`/cis/api/v1/telephony/autoCall/${task.id}/play`,
		]);
	});
});

describe('the permissions of an AI Agent cannot come from an expression', () => {
	test('options set by expressions that resolve to true grant nothing', async () => {
		const task = createTaskInState(sim, { name: 'Ready task' }, { status: 'READY' });
		const severalByExpression = await runTool(
			sim,
			createAndRunTool({ agentSeveralNumbers: '={{ true }}' }),
			[{ phone: '79990000501,79990000502' }],
		);
		expect(toolAnswerOf(severalByExpression.observations[0]).outcome).toBe('refused');
		const startByExpression = await runTool(
			sim,
			{
				resource: 'callTask',
				operation: 'start',
				autoCallId: byId(task.id),
				options: { agentMayStartTask: "={{ $fromAI('allowed', 'Allowed?', 'boolean') }}" },
			},
			[{ allowed: true }],
		);
		expect(toolAnswerOf(startByExpression.observations[0]).outcome).toBe('refused');
		expect(apiRequests(sim)).toHaveLength(0);
	});
});

describe('plain runs', () => {
	test('Max Calls per Run counts numbers: 2 items with 2 numbers each and a cap of 3 are refused before any request', async () => {
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				phone: '={{ $json.phone }}',
				options: { maxCallsPerRun: 3 },
			},
			[{ phone: '79990000601,79990000602' }, { phone: '79990000603;79990000604' }],
		);
		expect(apiRequests(sim)).toHaveLength(0);
		expect(result.error?.message).toBe(
			'Refused: these 4 calls would go beyond 3 calls per workflow execution ("Max Calls per Run"); 0 already started, so nothing was sent [item 0]',
		);
	});

	test('outside an AI Agent, several numbers and Start the Task Too need no permission', async () => {
		const task = createTaskInState(sim, { name: 'Plain task' });
		const result = await runAction(
			sim,
			candidate('addToTask', {
				autoCallId: byId(task.id),
				phone: '79990000701,79990000702',
				forceStart: true,
			}),
		);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => [request.path, request.body.forceStart])).toEqual([
			[ADD, true],
		]);
	});
});
