/**
 * Queue mode: the events of one wait reach two webhook processes (two copies of the trigger's
 * module, each with its own memory, one n8n). A process that does not hold every result answers
 * "send again" (503) until one does; the execution resumes once. Through n8n-core's engine (the
 * set-up: useWaitingN8n, test/actions/fixtures/waiting.ts).
 */
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import { WAIT_MARKER_FIELD } from '../../nodes/shared/waitForResult';
import { WaitingExecutions } from '../engine/harness';
import { finishedWithin, noRedials, TRIGGER_SECRET, useWaitingN8n } from '../actions/fixtures';
import {
	type Balancer,
	forwardTo,
	sendJson,
	startAlternatingBalancer,
	startTinyServer,
} from '../actions/fixtures/tinyServer';
import { PASSED_ON_HEADER } from '../../nodes/CisAutoCallTrigger/handOver';

const { sim, startTrigger, runWaiting, markerSent, post } = useWaitingN8n();

/**
 * Two webhook processes: two copies of the trigger's module (each with its own memory), one n8n.
 * `behindBalancer`: n8n's public address (N8N_WEBHOOK_URL) is a balancer that alternates strictly
 * between the two; the hand-overs and the events passed on go through it.
 */
async function startTwoWebhookProcesses({ behindBalancer = false } = {}) {
	const waiting = new WaitingExecutions({ checksToken: true });
	let OtherProcessTrigger: typeof CisAutoCallTrigger | undefined;
	jest.isolateModules(() => {
		OtherProcessTrigger =
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			require('../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node').CisAutoCallTrigger;
	});
	let balancer: Balancer | undefined;
	const publicBaseUrl = () => (balancer ? `${balancer.url}/webhook` : undefined);
	const first = await startTrigger(waiting, new CisAutoCallTrigger(), {}, publicBaseUrl);
	const second = await startTrigger(waiting, new OtherProcessTrigger!(), {}, publicBaseUrl);
	if (behindBalancer) {
		balancer = await startAlternatingBalancer(() => [
			new URL(first.url).origin,
			new URL(second.url).origin,
		]);
		balancers.push(balancer);
	}
	waiting.waitingBaseUrl = `${first.baseUrl}-waiting`;
	return {
		waiting,
		balancer,
		first: `${first.url}?secret=${TRIGGER_SECRET}`,
		second: `${second.url}?secret=${TRIGGER_SECRET}`,
	};
}

const balancers: Balancer[] = [];
afterEach(async () => {
	for (const balancer of balancers.splice(0)) await balancer.close();
});

function eventsOf(phone: string, crmId: string, callId: string, status = 'ANSWERED') {
	const callbackData = { crmId, [WAIT_MARKER_FIELD]: markerSent(phone) };
	return {
		callEnded: {
			event: 'CALL_ENDED',
			id: callId,
			taskId: 't-q',
			status,
			result: { heard: crmId },
			callbackData,
		},
		personDone: {
			event: 'CANDIDATE_CHANGED',
			taskId: 't-q',
			lastCallId: callId,
			status: 'SUCCESS',
			callbackData,
		},
	};
}

test('two people in one run, each result at another process: "send again" until one process holds both, then one resume', async () => {
	const { waiting, first, second } = await startTwoWebhookProcesses();
	sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
	const execution = await runWaiting(waiting, [
		{ phone: '79991110201', crmId: 'Q-1' },
		{ phone: '79991110202', crmId: 'Q-2' },
	]);
	expect(execution.status).toBe('waiting');
	const one = eventsOf('79991110201', 'Q-1', 'call-q1');
	const two = eventsOf('79991110202', 'Q-2', 'call-q2');

	expect((await post(first, one.callEnded)).status).toBe(503);
	expect((await post(second, two.callEnded)).status).toBe(503);
	expect(execution.resumes).toBe(0);
	// The service's re-send of the first result reaches the second process, which now holds both.
	expect((await post(second, one.callEnded)).status).toBe(200);
	await finishedWithin(execution);
	// The re-send of the second result at the first process: the execution is done, nothing more.
	expect((await post(first, two.callEnded)).status).toBe(200);

	expect(execution.resumes).toBe(1);
	expect(execution.items!.map((i) => [i.json.status, i.json.callId, i.json.callbackData])).toEqual([
		['Answered', 'call-q1', { crmId: 'Q-1' }],
		['Answered', 'call-q2', { crmId: 'Q-2' }],
	]);
});

test('the answered Call Ended at one process and the Person Done at the other at the same moment: "Answered", one resume', async () => {
	const { waiting, first, second } = await startTwoWebhookProcesses();
	sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
	const execution = await runWaiting(waiting, [{ phone: '79991110203', crmId: 'Q-3' }]);
	const { callEnded, personDone } = eventsOf('79991110203', 'Q-3', 'call-q3');

	const [ended, done] = await Promise.all([post(first, callEnded), post(second, personDone)]);
	// The Person Done names a call its process has not seen: held back (503) for the Call Ended to
	// decide, unless n8n already says the execution went on (the Call Ended's resume came first).
	expect(ended.status).toBe(200);
	expect(done.status === 503 || (done.status === 200 && execution.resumes === 1)).toBe(true);
	await finishedWithin(execution);
	// Its re-send: n8n says the execution went on (before its time limit), so the wait needs nothing more.
	expect((await post(second, personDone)).status).toBe(200);
	expect(execution.resumes).toBe(1);
	expect(execution.items!.map((i) => [i.json.status, i.json.callId])).toEqual([
		['Answered', 'call-q3'],
	]);
});

/**
 * Two webhook processes and one lead waited for whose only call was not answered: its Call Ended
 * reaches the first process and its Person Done the second. A call that was not answered is kept by
 * the service (503) while the execution still waits for this person; the Person Done is held back
 * (503) where its last call is not known; nothing resumes yet.
 */
async function oneLeadNotReachedOnTwoProcesses(
	phone: string,
	crmId: string,
	callId: string,
	status: string,
) {
	const { waiting, first, second } = await startTwoWebhookProcesses();
	sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
	const execution = await runWaiting(waiting, [{ phone, crmId }]);
	const { callEnded, personDone } = eventsOf(phone, crmId, callId, status);
	expect((await post(first, callEnded)).status).toBe(503);
	expect((await post(second, personDone)).status).toBe(503);
	expect(execution.resumes).toBe(0);
	return { first, second, execution, callEnded, personDone };
}

test('never reached, the last call seen by the other process: the Person Done is held back until its re-send reaches that process', async () => {
	const { first, second, execution, callEnded, personDone } = await oneLeadNotReachedOnTwoProcesses(
		'79991110204',
		'Q-4',
		'call-q4',
		'NOANSWER',
	);

	// The Person Done's re-send reaches the process that knows the last call.
	expect((await post(first, personDone)).status).toBe(200);
	await finishedWithin(execution);
	// The re-send of the Call Ended finds the wait over.
	expect((await post(second, callEnded)).status).toBe(200);
	expect(execution.resumes).toBe(1);
	expect(execution.items!.map((i) => [i.json.status, i.json.callId])).toEqual([
		['Not reached (last call: No answer)', 'call-q4'],
	]);
});

test("the process that got the last (unanswered) Call Ended dies: the service's re-send of that Call Ended brings the last call's status to another process, without the 10-minute grace", async () => {
	// The first process dies after the Call Ended: what it remembered is gone, and it gets nothing more.
	const { second, execution, callEnded, personDone } = await oneLeadNotReachedOnTwoProcesses(
		'79991110205',
		'Q-5',
		'call-q5',
		'BUSY',
	);
	// The service re-sends what it did not get a 200 for: the Call Ended reaches the second process.
	expect((await post(second, callEnded)).status).toBe(200);
	await finishedWithin(execution);
	expect((await post(second, personDone)).status).toBe(200);
	expect(execution.resumes).toBe(1);
	expect(
		execution.items!.map((i) => [
			i.json.status,
			i.json.outcome,
			i.json.callStatus,
			i.json.callId,
			i.json.callbackData,
		]),
	).toEqual([['Not reached (last call: Busy)', 'notReached', 'BUSY', 'call-q5', { crmId: 'Q-5' }]]);
});

describe("behind a balancer that alternates strictly: the Person Done whose last call the other process got is passed on through n8n's public address", () => {
	/** What went through the balancer, each as `<target> POST <first part of the path>`. */
	const routes = (balancer: Balancer, from: number) =>
		balancer.routed.slice(from).map((line) => line.split('/').slice(0, 2).join('/'));

	for (const passOnsFirstTarget of ['the other process', 'the same process']) {
		test(`the unanswered Call Ended at one process, the Person Done at the other: the result is handed over at the Person Done's first delivery, "Not reached" with the last call's status (the pass-on's first target: ${passOnsFirstTarget})`, async () => {
			const { waiting, balancer, first, second } = await startTwoWebhookProcesses({
				behindBalancer: true,
			});
			sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
			const execution = await runWaiting(waiting, [{ phone: '79991110206', crmId: 'Q-6' }]);
			const { callEnded, personDone } = eventsOf('79991110206', 'Q-6', 'call-q6', 'NOANSWER');
			expect((await post(first, callEnded)).status).toBe(503);
			// The first process's hand-over went through the balancer (to process 0); one more request puts process 0 next.
			expect(routes(balancer!, 0)).toEqual(['0 POST /webhook-waiting']);
			if (passOnsFirstTarget === 'the same process') await post(`${balancer!.url}/elsewhere`, {});
			const routedBefore = balancer!.routed.length;

			// Without passing it on, this is 503 at every re-send that the balancer brings here (the lockstep).
			expect((await post(second, personDone)).status).toBe(200);
			await finishedWithin(execution);
			// The second process's hand-over (the execution still waits), its pass-on (brought back to it
			// once, then tried again), the pass-on at the first process, and that one's resume.
			expect(routes(balancer!, routedBefore)).toEqual(
				passOnsFirstTarget === 'the same process'
					? [
							'0 POST /webhook-waiting',
							'1 POST /webhook',
							'0 POST /webhook',
							'1 POST /webhook-waiting',
						]
					: ['1 POST /webhook-waiting', '0 POST /webhook', '1 POST /webhook-waiting'],
			);
			expect((await post(first, callEnded)).status).toBe(200);
			expect(execution.resumes).toBe(1);
			expect(
				execution.items!.map((i) => [
					i.json.status,
					i.json.outcome,
					i.json.callStatus,
					i.json.callId,
					i.json.callbackData,
				]),
			).toEqual([
				[
					'Not reached (last call: No answer)',
					'notReached',
					'NOANSWER',
					'call-q6',
					{ crmId: 'Q-6' },
				],
			]);
		});
	}

	/** One lead whose answered Call Ended resumed its execution at the first process; its Person Done is still to come. */
	async function answeredAtFirstProcess(phone: string, crmId: string, callId: string) {
		const { waiting, balancer, first, second } = await startTwoWebhookProcesses({
			behindBalancer: true,
		});
		sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
		const execution = await runWaiting(waiting, [{ phone, crmId }]);
		const { callEnded, personDone } = eventsOf(phone, crmId, callId);
		expect((await post(first, callEnded)).status).toBe(200);
		await finishedWithin(execution);
		return { waiting, balancer: balancer!, second, execution, personDone };
	}

	test('the answered Call Ended resumed the execution at one process; the Person Done at the other finds it running: passed on, it is answered 200 at once, not re-sent until the execution ends', async () => {
		const { waiting, balancer, second, execution, personDone } = await answeredAtFirstProcess(
			'79991110208',
			'Q-8',
			'call-q8',
		);
		// The resumed execution still runs (on a worker) when the Person Done reaches the second process.
		waiting.stillRunningFor = 1;
		const routedBefore = balancer.routed.length;
		expect((await post(second, personDone)).status).toBe(200);
		expect(routes(balancer, routedBefore)).toEqual(
			expect.arrayContaining(['1 POST /webhook-waiting', '0 POST /webhook']),
		);
		expect(waiting.stillRunningFor).toBe(0);
		expect(execution.resumes).toBe(1);
		expect(execution.items!.map((i) => [i.json.status, i.json.callId])).toEqual([
			['Answered', 'call-q8'],
		]);
	});

	test('n8n not ready (503) for the Person Done: not passed on, the service sends it again', async () => {
		const { waiting, balancer, second, execution, personDone } = await answeredAtFirstProcess(
			'79991110209',
			'Q-9',
			'call-q9',
		);
		waiting.notReadyAnswers = [{ status: 503, text: 'Database is not ready!' }];
		const routedBefore = balancer.routed.length;
		expect((await post(second, personDone)).status).toBe(503);
		expect(routes(balancer, routedBefore)).toEqual(['1 POST /webhook-waiting']);
		expect(execution.resumes).toBe(1);
	});

	test("an event that was passed on is not passed on again: it waits for the service's re-send (503)", async () => {
		const { waiting, balancer, first, second } = await startTwoWebhookProcesses({
			behindBalancer: true,
		});
		sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
		const execution = await runWaiting(waiting, [{ phone: '79991110207', crmId: 'Q-7' }]);
		const { callEnded, personDone } = eventsOf('79991110207', 'Q-7', 'call-q7', 'BUSY');
		expect((await post(first, callEnded)).status).toBe(503);
		const routedBefore = balancer!.routed.length;
		expect((await post(second, personDone, { [PASSED_ON_HEADER]: 'another-process' })).status).toBe(
			503,
		);
		expect(routes(balancer!, routedBefore)).toEqual(['1 POST /webhook-waiting']);
		expect(execution.resumes).toBe(0);
	});
});

describe("no request of the trigger to its own n8n follows a redirect: the secret and the wait's key go nowhere else", () => {
	/** n8n's public address answers `redirected` paths with 307 to another origin; the rest reaches the trigger's n8n. */
	async function behindRedirectingFront(redirected: (path: string) => boolean) {
		const elsewhere = await startTinyServer((_request, response) =>
			sendJson(response, 200, { received: true }),
		);
		const waiting = new WaitingExecutions({ checksToken: true });
		let n8nOrigin = '';
		const front = await startTinyServer((request, response, raw) => {
			if (redirected(request.path)) {
				response.writeHead(307, { location: `${elsewhere.url}${raw.url ?? '/'}` });
				response.end();
				return;
			}
			forwardTo(n8nOrigin, request, response, raw);
		});
		const trigger = await startTrigger(
			waiting,
			new CisAutoCallTrigger(),
			{},
			() => `${front.url}/webhook`,
		);
		n8nOrigin = new URL(trigger.url).origin;
		waiting.waitingBaseUrl = `${trigger.baseUrl}-waiting`;
		closers.push(elsewhere, front);
		return { waiting, elsewhere, front, eventUrl: `${trigger.url}?secret=${TRIGGER_SECRET}` };
	}
	const closers: Array<{ close(): Promise<void> }> = [];
	afterEach(async () => {
		for (const server of closers.splice(0)) await server.close();
	});

	test('the Person Done passed on: answered 307, not followed; the service gets 503', async () => {
		const { waiting, elsewhere, front, eventUrl } = await behindRedirectingFront(
			(path) => !path.startsWith('/webhook-waiting/'),
		);
		sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
		const execution = await runWaiting(waiting, [{ phone: '79991110208', crmId: 'Q-8' }]);
		const { personDone } = eventsOf('79991110208', 'Q-8', 'call-q8', 'NOANSWER');
		expect((await post(eventUrl, personDone)).status).toBe(503);
		expect(front.requests.map((r) => r.path.split('/').slice(0, 2).join('/'))).toEqual([
			'/webhook-waiting',
			'/webhook',
		]);
		expect(elsewhere.requests).toEqual([]);
		expect(execution.resumes).toBe(0);
	});

	test('the hand-over: answered 307, not followed; the service gets 503', async () => {
		const { waiting, elsewhere, front, eventUrl } = await behindRedirectingFront(() => true);
		sim.setDefaultTemplate({ webhookUrls: [], redialStrategyOptions: noRedials });
		const execution = await runWaiting(waiting, [{ phone: '79991110209', crmId: 'Q-9' }]);
		const { callEnded } = eventsOf('79991110209', 'Q-9', 'call-q9', 'ANSWERED');
		expect((await post(eventUrl, callEnded)).status).toBe(503);
		expect(front.requests.map((r) => r.path.split('/').slice(0, 2).join('/'))).toEqual([
			'/webhook-waiting',
		]);
		expect(elsewhere.requests).toEqual([]);
		expect(execution.resumes).toBe(0);
	});
});
