/**
 * Candidate → Add to Task and Wait for Result through n8n-core's engine: the person is added to a
 * task that reports to the trigger, the node waits, the trigger resumes it with the result (the
 * set-up: useWaitingN8n, test/actions/fixtures/waiting.ts).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { validTaskBody } from '../../simulator/testkit';
import { byId, noRedials, runTool, target, TOKEN, useWaitingN8n } from '../fixtures';

const { sim, startN8n, runWaiting, resumedOnce, expectNoKeyIn, post } = useWaitingN8n();

/** A task of the bot, created (not running) with the trigger's URL as its webhook target (Existing Task). */
async function taskReportingTo(
	eventUrl: string,
	redialStrategyOptions: IDataObject = noRedials,
): Promise<string> {
	const body = validTaskBody({
		defaultExecData: 'bot-wait',
		webhookUrls: [target(eventUrl)],
		redialStrategyOptions,
	});
	const answer = await post(`${sim.url}/cis/api/v1/telephony/autoCall`, body, {
		authorization: `Bearer ${TOKEN}`,
	});
	expect(answer.status).toBe(200);
	sim.requests.length = 0;
	return String((JSON.parse(answer.body).id as IDataObject).identity);
}

const addParameters = (taskId: string, forceStart: boolean): INodeParameters => ({
	authentication: 'accessToken',
	resource: 'candidate',
	operation: 'addToTaskAndWait',
	autoCallId: byId(taskId),
	phone: '={{ $json.phone }}',
	candidateFields: { callbackData: '={{ JSON.stringify({ crmId: $json.crmId }) }}' },
	forceStart,
	waitAtMost: 2,
	waitUnit: 'hours',
});

test('answered: the person is added to the task once, the execution continues once with the result and no key', async () => {
	const { waiting, server, eventUrl } = await startN8n();
	const taskId = await taskReportingTo(eventUrl);
	sim.setOutcome('79991110101', { attempts: ['ANSWERED'], result: { interested: 'yes' } });

	const execution = await runWaiting(
		waiting,
		[{ phone: '79991110101', crmId: 'T-1' }],
		addParameters(taskId, true),
	);
	expect(execution.run.data.resultData.error).toBeUndefined();
	expectNoKeyIn(execution.waitingItems);
	await resumedOnce(execution);
	const callId = sim.events.find((e) => e.event === 'CALL_ENDED')!.payload.id;
	expect(execution.items!.map((i) => i.json)).toEqual([
		expect.objectContaining({
			status: 'Answered',
			outcome: 'answered',
			callId,
			taskId,
			result: { interested: 'yes' },
			callbackData: { crmId: 'T-1' },
		}),
	]);
	expect(execution.items![0].pairedItem).toEqual({ item: 0 });
	expect(
		sim.requests.filter((r) => r.path === '/cis/api/v1/telephony/autoCallCandidate'),
	).toHaveLength(1);
	expect(sim.createdByPhone()['79991110101']).toBe(1);
	expectNoKeyIn(execution.items);
	expect(server.started).toHaveLength(0);
});

test('two people in one run, one answered on a redial and one never reached: one resume with both results', async () => {
	const { waiting, eventUrl } = await startN8n();
	const taskId = await taskReportingTo(eventUrl, {
		...noRedials,
		redialStrategyEn: true,
		noAnswer: { redial: true, count: 2, time: 1 },
	});
	sim.setOutcome('79991110102', {
		attempts: ['NOANSWER', 'ANSWERED'],
		result: { interested: 'later' },
	});
	sim.setOutcome('79991110103', { attempts: ['BUSY'] });

	const items = [
		{ phone: '79991110102', crmId: 'T-2' },
		{ phone: '79991110103', crmId: 'T-3' },
	];
	const execution = await runWaiting(waiting, items, addParameters(taskId, true));
	await resumedOnce(execution);
	expect(execution.items!.map((i) => [i.json.status, i.json.callbackData, i.pairedItem])).toEqual([
		['Answered', { crmId: 'T-2' }, { item: 0 }],
		['Not reached (last call: Busy)', { crmId: 'T-3' }, { item: 1 }],
	]);
});

test('a task that is not running and Start the Task Too off: nobody is called and the execution keeps waiting (until Wait at Most)', async () => {
	const { waiting, eventUrl } = await startN8n();
	const taskId = await taskReportingTo(eventUrl);
	sim.setOutcome('79991110104', { attempts: ['ANSWERED'] });

	const execution = await runWaiting(
		waiting,
		[{ phone: '79991110104', crmId: 'T-4' }],
		addParameters(taskId, false),
	);
	await sim.idle();
	expect(execution.status).toBe('waiting');
	expect(execution.waitTill!.getTime() - Date.now()).toBeGreaterThan(119 * 60_000);
	expect(sim.events.filter((e) => e.event === 'CALL_ENDED')).toHaveLength(0);
	expect(execution.resumes).toBe(0);
});

test('as the tool of an agent that cannot pause a tool it adds no one and says why (an AI Agent v3 waits: test/e2e/agentWait.e2e.js)', async () => {
	const result = await runTool(
		sim,
		{ ...addParameters('1', true), phone: "={{ $fromAI('phone', 'phone number', 'string') }}" },
		[{ phone: '79991110105' }],
		{ via: 'supplyData' },
	);
	expect(JSON.stringify(result.observations)).toMatch(
		/Not sent: this AI Agent cannot wait for a tool/,
	);
	expect(sim.requests.filter((r) => r.path.startsWith('/cis/'))).toHaveLength(0);
});
