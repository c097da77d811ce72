// "… and Wait for Result" as an AI Agent's tool, through n8n-core's engine
// (test/engine/harness.ts `runAgentTool`) against the simulator. An agent that runs its tools
// inside its own run (LangChain's tool wrapper: older AI Agent versions, `isToolExecution()` true
// on n8n 2.x) cannot pause for a tool: refused before anything is sent. The wait itself (AI Agent v3)
// runs in real n8n: test/e2e/agentWait.e2e.js, test/queue/agent.js.
import {
	apiRequests,
	callAndWaitToolParameters,
	runTool,
	toolAnswerOf,
	useActionSimulator,
} from '../actions/fixtures';

const sim = useActionSimulator({}, { settle: true });

const callAndWaitTool = callAndWaitToolParameters();

test('an agent that cannot pause a tool (its tools run inside its own run): refused, nobody called, the model reads why', async () => {
	const result = await runTool(sim, callAndWaitTool, [{ phone: '79990000001' }], {
		via: 'supplyData',
	});
	expect(result.invocations.map((run) => run.isToolExecution)).toEqual([true]);
	expect(apiRequests(sim)).toHaveLength(0);
	expect(toolAnswerOf(result.observations[0])).toEqual({
		outcome: 'refused',
		message:
			'Not sent: this AI Agent cannot wait for a tool, so nobody was called. Whoever built this workflow can use the AI Agent node version 3 or newer, or "Create and Run" as the tool. Tell the user.',
	});
});
