// "… and Wait for Result" as an AI Agent's tool, called again in the same agent run once the model has read
// the first result: every call is a wait of its own (its own key), each result resumes the agent and the
// model reads it; nobody is phoned beyond Max Calls per Run. Through n8n-core's engine: the agent's
// execution waits and resumes as n8n's CLI does it (WaitingExecutions.runAgent), the simulator plays the
// calls and sends their events to the trigger, which hands them over at the same n8n's waiting address.
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { WAIT_MARKER_FIELD } from '../../nodes/shared/waitForResult';
import {
	callAndWaitToolParameters,
	finishedWithin,
	noRedials,
	target,
	toolAnswerOf,
	useWaitingN8n,
} from '../actions/fixtures';

const { sim, startN8n, runAgentWaiting, expectNoKeyIn, post } = useWaitingN8n();

/** The markers the service received, in the order the candidates were created. */
function markersSent(): IDataObject[] {
	return sim.requests
		.filter((r) => r.path === '/cis/api/v1/telephony/autoCallCandidate/single')
		.map(
			(r) =>
				((r.body as IDataObject).callbackData as IDataObject)[WAIT_MARKER_FIELD] as IDataObject,
		);
}

/** Runs an agent whose model calls the tool once per phone, one call per turn, each after reading the last result. */
async function agentCalls(phones: string[], options: INodeParameters = {}) {
	const { waiting, server, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	const execution = await runAgentWaiting(
		waiting,
		phones.map((phone) => ({ phone })),
		callAndWaitToolParameters(options),
	);
	await finishedWithin(execution);
	await sim.idle();
	return {
		execution,
		answers: execution.agent!.observations.map(toolAnswerOf),
		started: server.started,
	};
}

for (const count of [2, 3]) {
	test(`${count} waits in one agent run: each is a wait of its own and the model reads each result, one call per person`, async () => {
		const phones = Array.from({ length: count }, (_, i) => `7999222000${i + 1}`);
		phones.forEach((phone, i) =>
			sim.setOutcome(phone, { attempts: ['ANSWERED'], result: { lead: `L-${i + 1}` } }),
		);

		const { execution, answers, started } = await agentCalls(phones);

		expect(execution.agent!.error).toBeUndefined();
		expect(execution.waits).toBe(count);
		expect(execution.resumes).toBe(count);
		expect(answers).toEqual(
			phones.map((_, i) => ({
				outcome: 'answered',
				status: 'Answered',
				callId: expect.any(String),
				result: { lead: `L-${i + 1}` },
			})),
		);
		expect(phones.map((phone) => sim.createdByPhone()[phone])).toEqual(phones.map(() => 1));
		const keys = markersSent().map((marker) => marker.key);
		expect(new Set(keys).size).toBe(count);
		// Every event was handed over; none started the trigger's own workflow.
		expect(started).toHaveLength(0);
		expect(sim.webhookDeliveries.filter((d) => d.status !== 200)).toEqual([]);
		expectNoKeyIn(execution.agent!.observations);
	});
}

test('the same person twice in one agent run: called twice under the default Max Calls per Run, each result read by the model', async () => {
	sim.setOutcome('79992220011', { attempts: ['ANSWERED'], result: { lead: 'same' } });

	const { execution, answers } = await agentCalls(['79992220011', '79992220011']);

	expect(execution.waits).toBe(2);
	expect(answers.map((answer) => [answer.outcome, answer.status])).toEqual([
		['answered', 'Answered'],
		['answered', 'Answered'],
	]);
	expect(answers[0].callId).not.toBe(answers[1].callId);
	expect(sim.createdByPhone()['79992220011']).toBe(2);
});

test('the same person twice with Max Calls per Run 1: the first call is read, the second refused before anyone is phoned', async () => {
	sim.setOutcome('79992220021', { attempts: ['ANSWERED'], result: { lead: 'once' } });

	const { execution, answers } = await agentCalls(['79992220021', '79992220021'], {
		maxCallsPerRun: 1,
	});

	expect(execution.waits).toBe(1);
	expect(answers[0]).toEqual(
		expect.objectContaining({ outcome: 'answered', result: { lead: 'once' } }),
	);
	expect(answers[1].outcome).toBe('refused');
	expect(String(answers[1].message)).toMatch(
		/would go beyond 1 call per agent run .* 1 already started/,
	);
	expect(sim.createdByPhone()['79992220021']).toBe(1);
});

test("the result of an earlier wait that went on at its time limit, while the agent waits for its next call: it starts the trigger's workflow marked notHandedOver, and the next call's result still reaches the model", async () => {
	const { waiting, server, eventUrl } = await startN8n();
	// The first call's events reach nobody (its result comes late); the second call's come in time.
	sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
	sim.setOutcome('79992220031', { attempts: ['ANSWERED'], result: { lead: 'late' } });
	sim.setOutcome('79992220032', {
		attempts: [{ status: 'ANSWERED', durationSec: 60 }],
		result: { lead: 'next' },
	});
	const execution = await runAgentWaiting(
		waiting,
		[{ phone: '79992220031' }, { phone: '79992220032' }],
		callAndWaitToolParameters(),
	);
	expect(execution.waits).toBe(1);
	await sim.idle();
	const [first] = sim.events.filter((e) => e.event === 'CALL_ENDED');
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	await waiting.passTimeLimit(execution.id);
	expect(execution.waits).toBe(2);
	const [firstMarker, nextMarker] = markersSent();
	expect(firstMarker.key).not.toBe(nextMarker.key);

	// The first call's Call Ended arrives now, its time limit past.
	const late = {
		...(first.payload as IDataObject),
		callbackData: {
			[WAIT_MARKER_FIELD]: { ...firstMarker, until: Math.floor(Date.now() / 1000) - 60 },
		},
	};
	const answer = await post(eventUrl, late);
	expect(answer.status).toBe(200);
	expect(JSON.parse(answer.body)).toMatchObject({ received: true, handedOver: false });
	expect(server.started).toHaveLength(1);
	expect(server.started[0][0][0].json).toMatchObject({
		event: 'CALL_ENDED',
		result: { lead: 'late' },
		notHandedOver: expect.stringContaining(execution.id),
	});

	await finishedWithin(execution);
	const answers = execution.agent!.observations.map(toolAnswerOf);
	expect(answers[0]).toMatchObject({ outcome: 'noResult' });
	expect(answers[1]).toMatchObject({ outcome: 'answered', result: { lead: 'next' } });
	expect(server.started).toHaveLength(1);
	expect(sim.createdByPhone()['79992220031']).toBe(1);
	expect(sim.createdByPhone()['79992220032']).toBe(1);
});
