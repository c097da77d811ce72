// "… and Wait for Result" as an AI Agent's tool. What the node writes before it waits
// (what n8n hands the model when the time limit passes, and for a second call of the same tool in
// one turn, which n8n skips), what the model reads on resume, the refusals where n8n cannot hand
// the result to the agent, and Max Calls per Run kept with the execution (a resume in another
// process). The whole flow runs in real n8n: test/e2e/agentWait.e2e.js and test/queue/agent.js.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import {
	agentWaitResult,
	prepareAgentWait,
	refuseAgentWait,
} from '../../nodes/CisAutoCall/actions/agent';
import {
	chatTriggerRan,
	queuedRunsOfThisNode,
	runsInLegacyOrder,
	servedByMcpTrigger,
} from '../../nodes/CisAutoCall/actions/waiting/n8nInternals';
import { readGuardrails } from '../../nodes/CisAutoCall/actions/runFeatures/guardrails';
import { applyGuardrails } from '../../nodes/CisAutoCall/actions/runFeatures/guardrails/step';
import type { ItemResults } from '../../nodes/CisAutoCall/actions/runFeatures/feature';
import type { Operation, Run } from '../../nodes/CisAutoCall/actions/operation';

interface FakeOptions {
	input?: IDataObject[];
	stack?: Array<{ node: string; items: IDataObject[] }>;
	settings?: IDataObject;
	nodes?: Record<string, { type: string }>;
	connections?: Record<string, Record<string, Array<Array<{ node: string }>>>>;
	ran?: string[];
	executionId?: string;
	contexts?: Record<string, IDataObject>;
}

function fakeContext({
	input = [{}],
	stack = [],
	settings = { executionOrder: 'v1' },
	nodes = {},
	connections = {},
	ran = [],
	executionId = '1',
	contexts = {},
}: FakeOptions) {
	const inputItems: INodeExecutionData[] = input.map((json) => ({ json }));
	const nodeExecutionStack = stack.map((entry) => ({
		node: { name: entry.node },
		data: { main: [entry.items.map((json) => ({ json }))] },
	}));
	const context = {
		getNode: () => ({
			name: 'Call and wait',
			type: 'n8n-nodes-cis-autocall.cisAutoCallTool',
			id: 'node-1',
		}),
		getInputData: () => inputItems,
		getWorkflowSettings: () => settings,
		getExecutionId: () => executionId,
		getWorkflow: () => ({ id: 'wf-1' }),
		getContext: (type: string) => (contexts[type] ??= {}),
		runExecutionData: {
			executionData: { nodeExecutionStack },
			resultData: { runData: Object.fromEntries(ran.map((name) => [name, []])) },
		},
		workflow: { settings, nodes, connectionsBySourceNode: connections },
		putExecutionToWait: async () => undefined,
	};
	return { context: context as unknown as IExecuteFunctions, inputItems, nodeExecutionStack };
}

describe('before the wait of a waiting tool', () => {
	test("the run's own input items become what the model reads if no result comes in time, not the model's arguments", () => {
		const { context, inputItems } = fakeContext({
			input: [{ phone: '79990000001', toolCallId: 'call_1', body: { secret: 'x' } }],
		});
		prepareAgentWait(context, '10 minutes', queuedRunsOfThisNode(context));
		expect(inputItems[0].json).toEqual({
			outcome: 'noResult',
			message: expect.stringMatching(
				/^No result within 10 minutes: the person was called, but the call's result did not arrive in time\. Do not call again/,
			),
		});
	});

	test('another call of the same tool queued in the same turn is refused in words the model acts on; other tools are left alone', () => {
		const { context, nodeExecutionStack } = fakeContext({
			stack: [
				{ node: 'Call and wait', items: [{ phone: '79990000002', toolCallId: 'call_2' }] },
				{ node: 'Another tool', items: [{ phone: '79990000003' }] },
				{ node: 'AI Agent', items: [{ text: 'hi' }] },
			],
		});
		prepareAgentWait(context, '1 hour', queuedRunsOfThisNode(context));
		expect(nodeExecutionStack[0].data.main[0][0].json).toEqual({
			outcome: 'refused',
			message: expect.stringMatching(/Call one person at a time/),
		});
		expect(JSON.stringify(nodeExecutionStack[0].data.main[0][0].json)).not.toContain('79990000002');
		expect(nodeExecutionStack[1].data.main[0][0].json).toEqual({ phone: '79990000003' });
		expect(nodeExecutionStack[2].data.main[0][0].json).toEqual({ text: 'hi' });
	});
});

describe('what the model reads on resume', () => {
	test('one small object: outcome, status in words, call id, what the call collected; nothing else', () => {
		const handedOver = {
			status: 'Answered',
			outcome: 'answered',
			callStatus: 'ANSWERED',
			callId: 'call-9',
			taskId: 'task-1',
			result: { interested: 'yes' },
			variables: { name: 'Ann' },
			callbackData: { crmId: 'C-1' },
			endedAt: '2026-11-26T10:00:00Z',
			endedBy: 'CALL_ENDED',
		};
		expect(agentWaitResult(handedOver)).toEqual({
			outcome: 'answered',
			status: 'Answered',
			callId: 'call-9',
			result: { interested: 'yes' },
		});
		expect(
			agentWaitResult({
				status: 'Not reached (last call: Busy)',
				outcome: 'notReached',
				callId: null,
				result: null,
			}),
		).toEqual({
			outcome: 'notReached',
			status: 'Not reached (last call: Busy)',
			callId: null,
			result: {},
		});
	});
});

describe('where n8n cannot hand the result to the agent', () => {
	test('legacy execution order: read from the workflow settings (v1 only is fine)', () => {
		expect(runsInLegacyOrder(fakeContext({ settings: { executionOrder: 'v1' } }).context)).toBe(
			false,
		);
		expect(runsInLegacyOrder(fakeContext({ settings: { executionOrder: 'v0' } }).context)).toBe(
			true,
		);
		expect(runsInLegacyOrder(fakeContext({ settings: {} }).context)).toBe(true);
	});

	test('a Chat Trigger that started this execution', () => {
		const nodes = {
			'When chat message received': { type: '@n8n/n8n-nodes-langchain.chatTrigger' },
			'New lead': { type: 'n8n-nodes-base.webhook' },
		};
		expect(
			chatTriggerRan(
				fakeContext({ nodes, ran: ['When chat message received', 'AI Agent'] }).context,
			),
		).toBe(true);
		expect(chatTriggerRan(fakeContext({ nodes, ran: ['New lead', 'AI Agent'] }).context)).toBe(
			false,
		);
	});
});

describe('an MCP Server Trigger serves the waiting tool', () => {
	const nodes = {
		'MCP Server Trigger': { type: '@n8n/n8n-nodes-langchain.mcpTrigger' },
		'AI Agent': { type: '@n8n/n8n-nodes-langchain.agent' },
		'Call and wait': { type: 'n8n-nodes-cis-autocall.cisAutoCallTool' },
	};
	const toMcp = { 'Call and wait': { ai_tool: [[{ node: 'MCP Server Trigger' }]] } };
	const toAgent = { 'Call and wait': { ai_tool: [[{ node: 'AI Agent' }]] } };
	const refusal = (options: FakeOptions, servedOverMcp: boolean) => {
		const { context } = fakeContext(options);
		try {
			refuseAgentWait(context, {
				legacyOrder: runsInLegacyOrder(context),
				startedByChat: false,
				insideAgentRun: false,
				servedOverMcp,
			});
			return undefined;
		} catch (error) {
			return (error as Error).message;
		}
	};

	test("told from the tool's own connection: to an MCP Server Trigger, not to an AI Agent of the same workflow", () => {
		expect(servedByMcpTrigger(fakeContext({ nodes, connections: toMcp }).context)).toBe(true);
		expect(servedByMcpTrigger(fakeContext({ nodes, connections: toAgent }).context)).toBe(false);
		expect(servedByMcpTrigger(fakeContext({ nodes }).context)).toBe(false);
	});

	test("refused in words that name the MCP Server Trigger and say to use Create and Run with the results' table, nobody called", () => {
		const words = refusal({ nodes, connections: toMcp }, true);
		expect(words).toBe(
			'Not sent: an MCP Server Trigger answers each tool call at once, so this tool cannot wait there for the result of a call, and nobody was called. Whoever built this workflow can give the MCP Server Trigger "Create and Run" as its tool to place the call, and a Data Table tool to look the result up in the table the CIS Auto-Call Trigger\'s workflow fills',
		);
		expect(words).not.toMatch(/AI Agent node version 3/);
	});

	test('the MCP words come first, also in the legacy execution order (an MCP server has no agent to hand a result to)', () => {
		expect(refusal({ nodes, connections: toMcp, settings: {} }, true)).toMatch(
			/^Not sent: an MCP Server Trigger answers each tool call at once/,
		);
		expect(refusal({ nodes, connections: toAgent, settings: {} }, false)).toMatch(
			/^Not sent: this tool waits for the result of a call, which n8n hands to the AI Agent only in execution order v1/,
		);
		expect(refusal({ nodes, connections: toAgent }, false)).toBeUndefined();
	});
});

describe('Max Calls per Run kept with the execution', () => {
	const operation = { dialledPhones: (phone: unknown) => [String(phone)] } as unknown as Operation;
	const results = (): ItemResults & { failed: Map<number, unknown> } => {
		const failed = new Map<number, unknown>();
		return {
			failed,
			fail: (item: number, error: unknown) => failed.set(item, error),
		} as unknown as ItemResults & { failed: Map<number, unknown> };
	};

	test('a resume in another process (this process never counted the execution) still counts the calls its context holds', () => {
		const guardrails = readGuardrails({ maxCallsPerRun: 1 }, true);
		const contexts: Record<string, IDataObject> = {};
		const first = fakeContext({ executionId: 'agent-exec-1', contexts });
		const booked = results();
		applyGuardrails(
			{ context: first.context } as Run,
			operation,
			guardrails,
			new Map([[0, '79990000001']]),
			booked,
		);
		expect(booked.failed.size).toBe(0);
		expect(Object.values(contexts.flow)).toEqual([1]);

		// The same execution, resumed in a process whose memory never saw it: only its saved context.
		const savedContexts = JSON.parse(JSON.stringify(contexts)) as Record<string, IDataObject>;
		const resumed = fakeContext({
			executionId: 'agent-exec-1-other-process',
			contexts: savedContexts,
		});
		const refused = results();
		const prepared = new Map([[0, '79990000002']]);
		applyGuardrails({ context: resumed.context } as Run, operation, guardrails, prepared, refused);
		expect(prepared.size).toBe(0);
		expect(String((refused.failed.get(0) as Error).message)).toMatch(
			/would go beyond 1 call per agent run .*; 1 already started/,
		);
	});
});
