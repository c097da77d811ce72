/**
 * Candidate → Depersonalize (nodes/CisAutoCall/actions/candidate/depersonalize.operation.ts), a
 * privacy operation. Through n8n-core's engine with real HTTP to the simulator
 * (test/actions/fixtures).
 */
import { apiRequests, candidate, jsonOf, runAction, useActionSimulator } from '../fixtures';

const sim = useActionSimulator();

describe('Candidate → Depersonalize (spec 4.3)', () => {
	test('Candidate → Depersonalize', async () => {
		const created = await runAction(
			sim,
			candidate('createAndRun', { botSettingsId: 'bot-1', phone: '79990000301' }),
		);
		const candidateId = jsonOf(created)[0].autoCallCandidateId as string;
		await sim.idle();
		sim.requests.length = 0;
		const result = await runAction(
			sim,
			candidate('depersonalize', { autoCallCandidateId: candidateId, skipDeleteRecord: false }),
		);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => [request.method, request.path, request.body])).toEqual(
			[
				[
					'POST',
					`/cis/api/v1/telephony/autoCallCandidate/${candidateId}/depersonalization`,
					{ skipDeleteRecord: false },
				],
			],
		);
		expect(jsonOf(result)).toEqual([
			{ success: true, autoCallCandidateId: candidateId, recordingKept: false },
		]);
		expect(sim.state.candidates.get(candidateId)?.depersonalized).toBe(true);
	});
});
