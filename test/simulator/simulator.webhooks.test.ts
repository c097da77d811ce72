// Calls playing and webhook delivery: event sequences, payloads, callbackData, delay, re-delivery,
// enabled/disabled events, plain-URL targets, default template targets, pause/play/halt.
import { createSimulator } from '../../simulator';
import { useSimulator } from '../lib/simulator';
import {
	ALL_EVENTS,
	CIS,
	createClient,
	Receiver,
	startReceiver,
	target,
	validTaskBody,
	waitFor,
} from './testkit';

const TIME_SCALE = 0.01;
let receiver: Receiver;
const sim = useSimulator(() => createSimulator({ timeScale: TIME_SCALE }), {
	settle: true,
	emptyAfter: true,
	closeAfterAll: () => client.close(),
});
const client = createClient(() => sim.url);
const call = client.call;

beforeEach(async () => {
	receiver = await startReceiver();
});
afterEach(async () => {
	await receiver.close();
});

const redialNoAnswer = (count: number, time = 10) => ({
	redialStrategyEn: true,
	busy: { redial: false },
	noAnswer: { redial: true, time, count },
	answerMash: { redial: false },
	congestion: { redial: false },
	answerNoList: { redial: false },
});

async function createTask(overrides: Record<string, unknown>): Promise<string> {
	const answer = await call('POST', `${CIS}/telephony/autoCall`, {
		body: validTaskBody(overrides),
	});
	expect(answer.status).toBe(200);
	return answer.body.id.identity;
}

async function addCandidate(taskId: string, fields: Record<string, unknown>): Promise<string> {
	const answer = await call('POST', `${CIS}/telephony/autoCallCandidate`, {
		body: { autoCallId: taskId, ...fields },
	});
	expect(answer.status).toBe(200);
	return answer.body.id.identity;
}

describe('a NOANSWER → ANSWERED script with redial rules', () => {
	it('sends status change, CALL_ENDED, RECALL_SCHEDULED, CALL_ENDED, CANDIDATE_CHANGED in order with the documented fields', async () => {
		sim.setOutcome('79990000001', { attempts: ['NOANSWER', 'ANSWERED'], result: { agreed: true } });
		const taskId = await createTask({
			defaultExecData: 'bot-42',
			cidType: 'gornum',
			cidData: '74951112233',
			webhookUrls: [target(receiver.url, ALL_EVENTS)],
			redialStrategyOptions: redialNoAnswer(2),
		});
		const candidateId = await addCandidate(taskId, {
			phone: ['79990000001'],
			variables: { name: 'Ann' },
			callbackData: { leadId: 'L-1' },
		});
		expect(receiver.received).toHaveLength(0); // manual task: nothing until play
		await call('POST', `${CIS}/telephony/autoCall/${taskId}/play`);
		await sim.idle();

		expect(receiver.events()).toEqual([
			'AUTOCALL_STATUS_CHANGED',
			'CALL_ENDED',
			'RECALL_SCHEDULED',
			'CALL_ENDED',
			'CANDIDATE_CHANGED',
		]);
		const [status, firstEnd, recall, secondEnd, changed] = receiver.received.map((r) => r.body);
		expect(status).toEqual({
			event: 'AUTOCALL_STATUS_CHANGED',
			taskId,
			status: 'PROCESS',
			previousStatus: 'BLANK',
		});
		expect(firstEnd).toEqual({
			event: 'CALL_ENDED',
			type: 'OUTGOING',
			botId: 'bot-42',
			id: expect.any(String),
			taskId,
			candidateId,
			status: 'NOANSWER',
			callFrom: '74951112233',
			callTo: '79990000001',
			startedAt: expect.any(String),
			variables: { name: 'Ann' },
			result: { agreed: true },
			callbackData: { leadId: 'L-1' },
		});
		expect(new Date(firstEnd.startedAt).toISOString()).toBe(firstEnd.startedAt);
		expect(recall).toEqual({
			event: 'RECALL_SCHEDULED',
			taskId,
			candidateId,
			callbackData: { leadId: 'L-1' },
			scheduledAt: expect.any(String),
		});
		expect(secondEnd.status).toBe('ANSWERED');
		expect(secondEnd.id).not.toBe(firstEnd.id);
		expect(changed).toEqual({
			event: 'CANDIDATE_CHANGED',
			taskId,
			candidateId,
			lastCallId: secondEnd.id,
			status: 'SUCCESS',
			callbackData: { leadId: 'L-1' },
		});
		// the redial waited noAnswer.time (10 s) × timeScale
		expect(receiver.received[3].at - receiver.received[2].at).toBeGreaterThanOrEqual(
			10 * 1000 * TIME_SCALE - 5,
		);
		expect(sim.state.calls.size).toBe(2);
	});

	it('gives up after the rule count: NOANSWER × (1 + count), then CANDIDATE_CHANGED FAILED', async () => {
		sim.setOutcome('79990000002', { attempts: ['NOANSWER'] });
		const taskId = await createTask({
			webhookUrls: [target(receiver.url, ['CALL_ENDED', 'RECALL_SCHEDULED', 'CANDIDATE_CHANGED'])],
			redialStrategyOptions: redialNoAnswer(2, 1),
		});
		await addCandidate(taskId, { phone: ['79990000002'], forceStart: true });
		await sim.idle();
		expect(receiver.events()).toEqual([
			'CALL_ENDED',
			'RECALL_SCHEDULED',
			'CALL_ENDED',
			'RECALL_SCHEDULED',
			'CALL_ENDED',
			'CANDIDATE_CHANGED',
		]);
		expect(receiver.received[5].body.status).toBe('FAILED');
	});

	it('does not redial when redialStrategyEn is false', async () => {
		sim.setOutcome('79990000003', { attempts: ['NOANSWER', 'ANSWERED'] });
		const taskId = await createTask({ webhookUrls: [target(receiver.url, ALL_EVENTS)] });
		await addCandidate(taskId, { phone: ['79990000003'], forceStart: true });
		await sim.idle();
		expect(receiver.events()).toEqual([
			'AUTOCALL_STATUS_CHANGED',
			'CALL_ENDED',
			'CANDIDATE_CHANGED',
		]);
	});

	it('honours numberLimit across the numbers of a candidate (STEP_2_STEP) and candidateLimit', async () => {
		sim.setOutcome('7100', { attempts: ['BUSY'] });
		const taskId = await createTask({
			webhookUrls: [target(receiver.url, ['CALL_ENDED', 'CANDIDATE_CHANGED'])],
			redialStrategyOptions: {
				...redialNoAnswer(0),
				numberLimit: { redial: true, count: 2 },
				candidateLimit: { redial: true, count: 3 },
				busy: { redial: true, time: 1, count: 10 },
			},
		});
		await addCandidate(taskId, { phone: ['7100', '7200'], forceStart: true });
		await sim.idle();
		const ends = receiver.received
			.filter((r) => r.body.event === 'CALL_ENDED')
			.map((r) => r.body.callTo);
		expect(ends).toEqual(['7100', '7100', '7200']);
		expect(receiver.received[receiver.received.length - 1].body.status).toBe('FAILED');
	});
});

describe('payload details', () => {
	it('callbackData is [] when absent or empty', async () => {
		const taskId = await createTask({
			webhookUrls: [target(receiver.url, ['CALL_ENDED', 'CANDIDATE_CHANGED'])],
		});
		await addCandidate(taskId, { phone: ['7001'] });
		await addCandidate(taskId, { phone: ['7002'], callbackData: {} });
		await call('POST', `${CIS}/telephony/autoCall/${taskId}/play`);
		await sim.idle();
		expect(receiver.received).toHaveLength(4);
		for (const { body } of receiver.received) expect(body.callbackData).toEqual([]);
	});

	it('CALL_REDIRECTED comes before CALL_ENDED, EFFICIENCY_REACHED after it', async () => {
		sim.setOutcome('7003', {
			attempts: ['ANSWERED'],
			redirect: true,
			efficiency: true,
			redirectDestinationId: 'op-7',
		});
		const taskId = await createTask({ webhookUrls: [target(receiver.url, ALL_EVENTS)] });
		await addCandidate(taskId, { phone: ['7003'], callbackData: { a: 1 }, forceStart: true });
		await sim.idle();
		expect(receiver.events()).toEqual([
			'AUTOCALL_STATUS_CHANGED',
			'CALL_REDIRECTED',
			'CALL_ENDED',
			'EFFICIENCY_REACHED',
			'CANDIDATE_CHANGED',
		]);
		const redirected = receiver.received[1].body;
		expect(redirected).toEqual({
			event: 'CALL_REDIRECTED',
			id: receiver.received[2].body.id,
			redirectAdditional: null,
			redirectAnons: null,
			redirectDestination: 'ch',
			redirectDestinationId: 'op-7',
			callbackData: { a: 1 },
		});
	});

	it('records the call with a recording when recordCall is true', async () => {
		const taskId = await createTask({});
		const candidateId = await addCandidate(taskId, { phone: ['7004'], forceStart: true });
		await sim.idle();
		const candidate = sim.state.candidates.get(candidateId)!;
		expect(candidate.status).toBe('SUCCESS');
		const theCall = sim.state.calls.get(candidate.lastCallId!)!;
		expect(theCall.record).not.toBeNull();
		expect((await call('DELETE', `${CIS}/calls/${theCall.id}/record`)).status).toBe(200);
	});
});

describe('targets', () => {
	it('a target gets only its enabled events; a target without events gets nothing', async () => {
		const other = await startReceiver();
		const none = await startReceiver();
		try {
			const taskId = await createTask({
				webhookUrls: [
					{
						url: receiver.url,
						events: {
							CALL_ENDED: { name: 'CALL_ENDED', value: false },
							CANDIDATE_CHANGED: { name: 'CANDIDATE_CHANGED', value: true },
						},
					},
					target(other.url, ['CALL_ENDED']),
					{ url: none.url },
				],
			});
			await addCandidate(taskId, { phone: ['7005'], forceStart: true });
			await sim.idle();
			expect(receiver.events()).toEqual(['CANDIDATE_CHANGED']);
			expect(other.events()).toEqual(['CALL_ENDED']);
			expect(none.received).toHaveLength(0);
		} finally {
			await other.close();
			await none.close();
		}
	});

	it('a plain URL string target (older form) gets every event', async () => {
		const taskId = await createTask({ webhookUrls: [receiver.url] });
		await addCandidate(taskId, { phone: ['7006'], forceStart: true });
		await sim.idle();
		expect(receiver.events()).toEqual([
			'AUTOCALL_STATUS_CHANGED',
			'CALL_ENDED',
			'CANDIDATE_CHANGED',
		]);
	});

	it('never contacts a non-loopback address (logged as blocked)', async () => {
		const taskId = await createTask({ webhookUrls: ['http://192.0.2.1/hook'] });
		await addCandidate(taskId, { phone: ['7007'], forceStart: true });
		await sim.idle();
		expect(sim.webhookDeliveries.length).toBeGreaterThan(0);
		for (const delivery of sim.webhookDeliveries) expect(delivery.status).toBe('blocked');
	});

	it('4.4 and 4.5 tasks report to the default template targets (as set now)', async () => {
		sim.setDefaultTemplate({ webhookUrls: [target(receiver.url, ['CALL_ENDED'])] });
		await call('POST', `${CIS}/telephony/autoCallCandidate/single`, {
			body: { phone: ['7008'], botSettingsId: 'bot-a', callbackData: { k: 'v' } },
		});
		await call('POST', `${CIS}/telephony/autoCallCandidate/single/batch`, {
			body: { batch: [{ phone: ['7009'] }] },
		});
		await sim.idle();
		expect(receiver.received.map((r) => [r.body.event, r.body.callTo]).sort()).toEqual([
			['CALL_ENDED', '7008'],
			['CALL_ENDED', '7009'],
		]);
		expect(receiver.received.find((r) => r.body.callTo === '7008')!.body.callbackData).toEqual({
			k: 'v',
		});
	});

	it('templates added with addTemplate report to their own targets', async () => {
		sim.addTemplate('tpl-hooks', {
			botSettingsId: 'bot-t',
			webhookUrls: [target(receiver.url, ['CANDIDATE_CHANGED'])],
		});
		await call('POST', `${CIS}/telephony/autoCallCandidate/single/batch`, {
			body: { batch: [{ phone: ['7010'], autoCallTemplateId: 'tpl-hooks' }] },
		});
		await sim.idle();
		expect(receiver.events()).toEqual(['CANDIDATE_CHANGED']);
	});

	it('setTaskWebhooks sets the targets of an existing task', async () => {
		const taskId = await createTask({});
		sim.setTaskWebhooks(taskId, [target(receiver.url, ['CALL_ENDED'])]);
		await addCandidate(taskId, { phone: ['7011'], forceStart: true });
		await sim.idle();
		expect(receiver.events()).toEqual(['CALL_ENDED']);
	});
});

describe('delivery', () => {
	it('honours the target delay (seconds × timeScale)', async () => {
		const taskId = await createTask({
			webhookUrls: [target(receiver.url, ['CALL_ENDED'], { delay: 20 })],
		});
		await addCandidate(taskId, { phone: ['7012'], forceStart: true });
		await sim.idle();
		const emitted = sim.events.find((e) => e.event === 'CALL_ENDED')!;
		expect(receiver.received).toHaveLength(1);
		expect(receiver.received[0].at - emitted.at).toBeGreaterThanOrEqual(20 * 1000 * TIME_SCALE - 5);
	});

	it('re-delivers after a non-200 answer with growing intervals', async () => {
		receiver.answerWith((index) => (index < 2 ? 500 : 200));
		const taskId = await createTask({ webhookUrls: [target(receiver.url, ['CALL_ENDED'])] });
		await addCandidate(taskId, { phone: ['7013'], forceStart: true });
		await sim.idle();
		expect(receiver.received).toHaveLength(3);
		expect(receiver.received.map((r) => r.body)).toEqual(Array(3).fill(receiver.received[0].body));
		expect(sim.webhookDeliveries.map((d) => [d.status, d.attempt])).toEqual([
			[500, 1],
			[500, 2],
			[200, 3],
		]);
		const [first, second, third] = receiver.received.map((r) => r.at);
		expect(second - first).toBeGreaterThanOrEqual(1000 * TIME_SCALE - 5);
		expect(third - second).toBeGreaterThanOrEqual(2000 * TIME_SCALE - 5);
	});

	it('gives up after a bounded number of attempts', async () => {
		const quick = await createSimulator({ timeScale: 0.001, webhookMaxAttempts: 4 });
		const quickClient = createClient(() => quick.url);
		try {
			receiver.answerWith(() => 503);
			const answer = await quickClient.call('POST', `${CIS}/telephony/autoCall`, {
				body: validTaskBody({ webhookUrls: [target(receiver.url, ['CALL_ENDED'])] }),
			});
			await quickClient.call('POST', `${CIS}/telephony/autoCallCandidate`, {
				body: { autoCallId: answer.body.id.identity, phone: ['7014'], forceStart: true },
			});
			await quick.idle();
			expect(receiver.received).toHaveLength(4);
			expect(quick.webhookDeliveries.map((d) => d.attempt)).toEqual([1, 2, 3, 4]);
		} finally {
			await quickClient.close();
			await quick.close();
		}
	});

	it('treats a receiver that is down as an error and retries', async () => {
		await receiver.close();
		const down = receiver.url;
		receiver = await startReceiver();
		const quick = await createSimulator({ timeScale: 0.001, webhookMaxAttempts: 2 });
		const quickClient = createClient(() => quick.url);
		try {
			const answer = await quickClient.call('POST', `${CIS}/telephony/autoCall`, {
				body: validTaskBody({ webhookUrls: [target(down, ['CALL_ENDED'])] }),
			});
			await quickClient.call('POST', `${CIS}/telephony/autoCallCandidate`, {
				body: { autoCallId: answer.body.id.identity, phone: ['7015'], forceStart: true },
			});
			await quick.idle();
			expect(quick.webhookDeliveries.map((d) => d.status)).toEqual(['error', 'error']);
		} finally {
			await quickClient.close();
			await quick.close();
		}
	});
});

describe('task status and calling', () => {
	it('a paused task holds its calls until play; each move reports AUTOCALL_STATUS_CHANGED', async () => {
		const taskId = await createTask({
			webhookUrls: [target(receiver.url, ['AUTOCALL_STATUS_CHANGED', 'CALL_ENDED'])],
		});
		await call('POST', `${CIS}/telephony/autoCall/${taskId}/play`);
		await call('POST', `${CIS}/telephony/autoCall/${taskId}/pause`);
		await addCandidate(taskId, { phone: ['7016'] });
		await sim.idle();
		expect(sim.state.calls.size).toBe(0);
		await call('POST', `${CIS}/telephony/autoCall/${taskId}/play`);
		await sim.idle();
		await call('POST', `${CIS}/telephony/autoCall/${taskId}/halted`);
		await sim.idle();
		expect(
			receiver.received.map((r) => [r.body.event, r.body.status, r.body.previousStatus]),
		).toEqual([
			['AUTOCALL_STATUS_CHANGED', 'PROCESS', 'BLANK'],
			['AUTOCALL_STATUS_CHANGED', 'PAUSED', 'PROCESS'],
			['AUTOCALL_STATUS_CHANGED', 'PROCESS', 'PAUSED'],
			['CALL_ENDED', 'ANSWERED', undefined],
			['AUTOCALL_STATUS_CHANGED', 'HALTED', 'PROCESS'],
		]);
	});

	it('halting stops pending redials; the candidate is cancelled', async () => {
		sim.setOutcome('7017', { attempts: ['NOANSWER'] });
		const taskId = await createTask({ redialStrategyOptions: redialNoAnswer(5, 1000) });
		const candidateId = await addCandidate(taskId, { phone: ['7017'], forceStart: true });
		await waitFor(
			() => sim.state.candidates.get(candidateId)!.status === 'RECALL_SCHEDULED',
			5000,
			'a scheduled recall',
		);
		await call('POST', `${CIS}/telephony/autoCall/${taskId}/halted`);
		await sim.idle();
		expect(sim.state.candidates.get(candidateId)!.status).toBe('CANCELLED');
		expect(sim.state.calls.size).toBe(1);
	});

	it('cancel by phone reports CANDIDATE_CHANGED CANCELLED and stops the calls', async () => {
		sim.setOutcome('7018', { attempts: ['NOANSWER'] });
		const taskId = await createTask({
			webhookUrls: [target(receiver.url, ['CANDIDATE_CHANGED'])],
			redialStrategyOptions: redialNoAnswer(5, 1000),
		});
		const candidateId = await addCandidate(taskId, { phone: ['7018'], forceStart: true });
		await waitFor(
			() => sim.state.candidates.get(candidateId)!.status === 'RECALL_SCHEDULED',
			5000,
			'a scheduled recall',
		);
		await call('POST', `${CIS}/telephony/autoCallCandidate/cancel?autoCallId=${taskId}&phone=7018`);
		await sim.idle();
		expect(receiver.received.map((r) => r.body.status)).toEqual(['CANCELLED']);
	});

	it('startType time: the task starts at startMoment and reports READY → PROCESS', async () => {
		const taskId = await createTask({
			startType: 'time',
			startMoment: '2000-01-01 00:00',
			webhookUrls: [target(receiver.url, ['AUTOCALL_STATUS_CHANGED'])],
		});
		await sim.idle();
		expect(receiver.received.map((r) => r.body)).toEqual([
			{ event: 'AUTOCALL_STATUS_CHANGED', taskId, status: 'PROCESS', previousStatus: 'READY' },
		]);
	});
});

describe("webhookOrder: whether a candidate's later event waits for the earlier one to be taken", () => {
	const orderedSim = useSimulator(
		() => createSimulator({ timeScale: TIME_SCALE, webhookOrder: 'perCandidate' }),
		{ settle: true, emptyAfter: true },
	);
	const orderedCall = createClient(() => orderedSim.url).call;
	const events = ['CALL_ENDED', 'CANDIDATE_CHANGED'];

	/** One candidate per phone in a task that reports `events` to the receiver; every Call Ended answered 503 `refusals` times. */
	async function play(
		simulator: typeof sim,
		callApi: typeof call,
		phones: string[],
		refusals: number,
	) {
		const refused = new Map<string, number>();
		receiver.answerWith((_index, body) => {
			if (body.event !== 'CALL_ENDED') return 200;
			const seen = refused.get(body.candidateId) ?? 0;
			refused.set(body.candidateId, seen + 1);
			return seen < refusals ? 503 : 200;
		});
		for (const phone of phones) simulator.setOutcome(phone, { attempts: ['NOANSWER'] });
		const created = await callApi('POST', `${CIS}/telephony/autoCall`, {
			body: validTaskBody({ webhookUrls: [target(receiver.url, events)] }),
		});
		const taskId = created.body.id.identity;
		for (const phone of phones)
			await callApi('POST', `${CIS}/telephony/autoCallCandidate`, {
				body: { autoCallId: taskId, phone: [phone] },
			});
		await callApi('POST', `${CIS}/telephony/autoCall/${taskId}/play`);
		await simulator.idle();
		return simulator.webhookDeliveries.map((d) => ({
			event: d.event,
			candidate: d.body.candidateId,
			status: d.status,
		}));
	}

	it('independent (default): the Person Done goes out while the Call Ended is still re-sent', async () => {
		const log = await play(sim, call, ['79990000301'], 2);
		expect(log.map((d) => `${d.event} ${d.status}`)).toEqual([
			'CALL_ENDED 503',
			'CANDIDATE_CHANGED 200',
			'CALL_ENDED 503',
			'CALL_ENDED 200',
		]);
	});

	it("perCandidate: a candidate's Person Done goes out only after its Call Ended was taken; another candidate is not held back", async () => {
		const log = await play(orderedSim, orderedCall, ['79990000302', '79990000303'], 2);
		for (const candidate of new Set(log.map((d) => d.candidate))) {
			const own = log.filter((d) => d.candidate === candidate).map((d) => `${d.event} ${d.status}`);
			expect(own).toEqual([
				'CALL_ENDED 503',
				'CALL_ENDED 503',
				'CALL_ENDED 200',
				'CANDIDATE_CHANGED 200',
			]);
		}
		// The second candidate's first Call Ended went out before the first candidate's Call Ended was taken.
		const [first, second] = [...new Set(log.map((d) => d.candidate))];
		const secondStarted = log.findIndex((d) => d.candidate === second);
		const firstTaken = log.findIndex((d) => d.candidate === first && d.status === 200);
		expect(secondStarted).toBeLessThan(firstTaken);
	});

	it('refuses an unknown order', async () => {
		await expect(createSimulator({ webhookOrder: 'perUrl' as never })).rejects.toThrow(
			/webhook order must be/,
		);
	});
});
