/**
 * Random faults at CRM scale: 200 items against a service that fails one request in ten (before or
 * after it created the candidate). Nobody is created twice and every item is accounted for.
 * Through n8n-core's engine with real HTTP to the simulator and its seeded faults.
 */
import type { RandomFaultKind } from '../../simulator';
import {
	apiRequests,
	createAndRunByExpression,
	expectInOrder,
	jsonOf,
	numberedPhones,
	runAction,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator();
const { phoneOf, phoneItems } = numberedPhones('7999');
const createAndRun = (options = {}) => createAndRunByExpression({ options });

describe('random faults at CRM scale', () => {
	/** 200 items of Create and Run (Continue On Fail) against the faults given: what succeeded and what is "outcome unknown". */
	async function runWithFaults(kinds: RandomFaultKind[], seed: number) {
		sim.setFaultRate({ rate: 0.1, kinds, seed });
		const result = await runAction(sim, createAndRun({ maxRetries: 5 }), phoneItems(200), {
			continueOnFail: true,
		});
		expect(result.error).toBeUndefined();
		expectInOrder(result, 200);
		const outputs = jsonOf(result);
		const succeeded = outputs.filter((json) => typeof json.autoCallCandidateId === 'string');
		const unknown = outputs.filter((json) => /^Outcome unknown/.test(String(json.error ?? '')));
		// Every item is accounted for: a success or an "outcome unknown" error item.
		expect(succeeded.length + unknown.length).toBe(200);
		for (const json of unknown)
			expect(json.error).toMatch(/may have been created; check the task before running again/);
		outputs.forEach((json, index) => {
			if (json.autoCallCandidateId)
				expect(sim.state.candidates.get(json.autoCallCandidateId as string)?.phone).toEqual([
					phoneOf(index),
				]);
		});
		expect(sim.counts().duplicates).toBe(0);
		expect(unknown.length).toBeGreaterThan(0);
		return { succeeded, unknown };
	}

	test('10 % of 429 / 503 / dropped answers on 200 Create and Run items: no duplicate, none lost', async () => {
		const { succeeded } = await runWithFaults(['429', '503', 'drop'], 7);
		// These faults come before the request is handled: exactly the successes were created.
		expect(sim.counts().total).toBe(succeeded.length);
		expect(apiRequests(sim).some((request) => request.status === 429)).toBe(true);
	});

	test('faults after the candidate was created (after503 / afterDrop): reported as outcome unknown, never repeated', async () => {
		const { succeeded, unknown } = await runWithFaults(['429', 'after503', 'afterDrop'], 11);
		// The unknown ones were in fact created: the user must check them, not send them again.
		expect(sim.counts().total).toBe(succeeded.length + unknown.length);
		const requestsByPhone = new Map<string, number>();
		for (const request of apiRequests(sim).filter((r) => r.status !== 429)) {
			const phone = request.body.phone[0] as string;
			requestsByPhone.set(phone, (requestsByPhone.get(phone) ?? 0) + 1);
		}
		expect([...requestsByPhone.values()].every((count) => count === 1)).toBe(true);
	});
});
