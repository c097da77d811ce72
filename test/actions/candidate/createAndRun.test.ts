/**
 * Candidate → Create and Run (nodes/CisAutoCall/actions/candidate/createAndRun.operation.ts).
 * Through n8n-core's engine with real HTTP to the simulator (test/actions/fixtures).
 */
import { apiRequests, jsonOf, runAction, useActionSimulator } from '../fixtures';

const sim = useActionSimulator();

describe('Candidate → Create and Run (spec 4.4)', () => {
	test('one request per item, fields resolved from expressions, ids as plain strings', async () => {
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				phone: '={{ $json.phones }}',
				candidateFields: {
					variables: { variable: [{ name: 'name', value: '={{ $json.name }}' }] },
					callbackData: '={{ JSON.stringify({ crmId: $json.crmId }) }}',
					timezone: '+07:00',
				},
			},
			[
				{ phones: '79990000001, 79990000002', name: 'Ann', crmId: 'L-1' },
				{ phones: ['79990000003'], name: 'Bob', crmId: 'L-2' },
			],
		);
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests.map((request) => request.path)).toEqual([
			'/cis/api/v1/telephony/autoCallCandidate/single',
			'/cis/api/v1/telephony/autoCallCandidate/single',
		]);
		expect(requests[0].headers.accept).toMatch(/application\/json/);
		const bodies = requests
			.map((request) => request.body)
			.sort((a, b) => a.variables.name.localeCompare(b.variables.name));
		expect(bodies).toEqual([
			{
				phone: ['79990000001', '79990000002'],
				botSettingsId: 'bot-1',
				variables: { name: 'Ann' },
				timezone: 25200,
				callbackData: { crmId: 'L-1' },
			},
			{
				phone: ['79990000003'],
				botSettingsId: 'bot-1',
				variables: { name: 'Bob' },
				timezone: 25200,
				callbackData: { crmId: 'L-2' },
			},
		]);
		const outputs = jsonOf(result);
		expect(outputs.map((output) => output.phone)).toEqual([
			['79990000001', '79990000002'],
			['79990000003'],
		]);
		for (const output of outputs) {
			expect(sim.state.candidates.get(output.autoCallCandidateId as string)).toBeDefined();
		}
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});
});
