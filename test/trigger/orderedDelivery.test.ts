/**
 * A service that sends a person's Person Done only after their Call Ended was taken (the simulator's
 * `webhookOrder: 'perCandidate'`; the service does not document which way it re-sends). A waiting person's
 * unanswered Call Ended is answered "send again" a few times at most, then taken, so the person is never held
 * back; the result still carries the last call's status. Through n8n-core's engine (useWaitingN8n).
 */
import { finishedWithin, noRedials, target, useWaitingN8n } from '../actions/fixtures';

const { sim, startN8n, runWaiting } = useWaitingN8n({ webhookOrder: 'perCandidate' });

interface Lead {
	phone: string;
	crmId: string;
	status: 'NOANSWER' | 'ANSWERED' | 'BUSY' | 'REJECTED';
}

/** Each lead's only call ends with its status, all leads in one run; resolves once the run finished and the service has nothing left to send. */
async function oneRun(leads: Lead[]) {
	const { waiting, eventUrl } = await startN8n();
	sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)], redialStrategyOptions: noRedials });
	for (const lead of leads) sim.setOutcome(lead.phone, { attempts: [lead.status] });
	const execution = await runWaiting(
		waiting,
		leads.map(({ phone, crmId }) => ({ phone, crmId })),
	);
	await finishedWithin(execution);
	await sim.idle();
	return execution;
}

test('people not reached and answered, in one run: each unanswered Call Ended is taken within 4 attempts, each Person Done follows, and each result is right', async () => {
	const leads: Array<Lead & { words: string }> = [
		{
			phone: '79991110401',
			crmId: 'O-1',
			status: 'NOANSWER',
			words: 'Not reached (last call: No answer)',
		},
		{ phone: '79991110402', crmId: 'O-2', status: 'ANSWERED', words: 'Answered' },
		{ phone: '79991110403', crmId: 'O-3', status: 'BUSY', words: 'Not reached (last call: Busy)' },
	];

	const execution = await oneRun(leads);

	expect(execution.resumes).toBe(1);
	expect(execution.items!.map((item) => [item.json.status, item.json.callbackData])).toEqual(
		leads.map((lead) => [lead.words, { crmId: lead.crmId }]),
	);
	const attempts = (event: string, crmId: string) =>
		sim.webhookDeliveries
			.filter((d) => d.event === event && d.body.callbackData.crmId === crmId)
			.map((d) => d.status);
	for (const lead of leads) {
		const callEnded = attempts('CALL_ENDED', lead.crmId);
		expect(callEnded.at(-1)).toBe(200);
		// An answered Call Ended is a result: kept by the service (503) until the run has every result.
		if (lead.status !== 'ANSWERED') expect(callEnded.length).toBeLessThanOrEqual(4);
		expect(attempts('CANDIDATE_CHANGED', lead.crmId).at(-1)).toBe(200);
	}
	expect(sim.webhookDeliveries.every((d) => d.status === 200 || d.status === 503)).toBe(true);
});

test('one person not reached: the Call Ended is answered "send again" 3 times by the process, then taken, and the Person Done brings the result with the last call\'s status', async () => {
	const execution = await oneRun([{ phone: '79991110411', crmId: 'O-11', status: 'REJECTED' }]);

	expect(sim.webhookDeliveries.map((d) => `${d.event} ${d.status}`)).toEqual([
		'CALL_ENDED 503',
		'CALL_ENDED 503',
		'CALL_ENDED 503',
		'CALL_ENDED 200',
		'CANDIDATE_CHANGED 200',
	]);
	expect(execution.items!.map((item) => [item.json.status, item.json.callStatus])).toEqual([
		['Not reached (last call: Rejected)', 'REJECTED'],
	]);
});
