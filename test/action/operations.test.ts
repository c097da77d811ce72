import type { Simulator } from '../../simulator';
import { apiRequests, jsonOf, runAction, startSimulator, TOKEN } from './fixtures';

let sim: Simulator;
beforeAll(async () => {
	sim = await startSimulator();
});
afterAll(async () => {
	await sim.close();
});
beforeEach(() => sim.reset());

describe('Call Task → Create (spec 4.6)', () => {
	test('sends every field, converted, with the conditional ones the choices need', async () => {
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'create',
			name: 'November leads',
			defaultExecData: 'bot-42',
			secondExec: 'ch',
			secondExecData: 'channel-7',
			cidType: 'gornum',
			cidData: 'number-3',
			startType: 'time',
			startMoment: '2026-12-01T09:30:00',
			cpsMode: 'perSecond',
			callsPerSecond: 3,
			fullListTime: 25,
			recordCall: true,
			recTrimLeft: 2,
			redialStrategyEn: true,
			redialRules: {
				busy: { redial: true, time: 300, count: 2 },
				noAnswer: { redial: true, time: 900, count: 3 },
			},
			webhookUrls: {
				target: [
					{ url: 'https://crm.example.com/hooks/calls', CALL_ENDED: true, CANDIDATE_CHANGED: true, partialResults: true, delay: 5 },
				],
			},
			additionalFields: {
				taskComment: 'from n8n',
				callStrategy: 'PARALLEL',
				useTr: true,
				allowCallTimeFrom: '09:00',
				allowCallTimeTo: '20:30',
				detectRobot: true,
				detectRobotMode: 'block',
				detectRobotGreeting: 'audio-1',
				phoneNormalization: 'RU',
				normalizationErrorAction: 'SET_NORMALIZATION_ERROR_FLAG',
				lifetime: 86400,
				candidateLimit: { limit: { redial: true, count: 4 } },
				checkPhone: true,
				extraFields: '{"additionalOptions": {"fz230": true}}',
			},
		});
		expect(result.error).toBeUndefined();
		const [request] = apiRequests(sim);
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/cis/api/v1/telephony/autoCall');
		expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
		expect(request.headers['content-type']).toMatch(/application\/json/);
		expect(request.body).toEqual({
			name: 'November leads',
			taskComment: 'from n8n',
			defaultExec: 'robot',
			defaultExecData: 'bot-42',
			secondExec: 'ch',
			secondExecData: 'channel-7',
			cidType: 'gornum',
			cidData: 'number-3',
			callStrategy: 'PARALLEL',
			startType: 'time',
			startMoment: '2026-12-01 09:30',
			cps: 1.03,
			checkPhone: true,
			lifetime: 86400,
			phoneNormalization: 'RU',
			normalizationErrorAction: 'SET_NORMALIZATION_ERROR_FLAG',
			webhookUrls: [
				{
					url: 'https://crm.example.com/hooks/calls',
					partialResults: true,
					delay: 5,
					events: {
						CALL_ENDED: { name: 'CALL_ENDED', value: true },
						CANDIDATE_CHANGED: { name: 'CANDIDATE_CHANGED', value: true },
						CALL_REDIRECTED: { name: 'CALL_REDIRECTED', value: false },
						RECALL_SCHEDULED: { name: 'RECALL_SCHEDULED', value: false },
						EFFICIENCY_REACHED: { name: 'EFFICIENCY_REACHED', value: false },
						AUTOCALL_STATUS_CHANGED: { name: 'AUTOCALL_STATUS_CHANGED', value: false },
					},
				},
			],
			additionalOptions: {
				fullListMethod: 'reject',
				fullListTime: 25,
				useTr: true,
				allowCallTimeFrom: 32400,
				allowCallTimeTo: 73800,
				recordCall: true,
				recTrimLeft: 2,
				detectRobot: true,
				detectRobotMode: 'block',
				detectRobotGreeting: 'audio-1',
				fz230: true,
			},
			redialStrategyOptions: {
				redialStrategyEn: true,
				candidateLimit: { redial: true, count: 4 },
				busy: { redial: true, time: 300, count: 2 },
				noAnswer: { redial: true, time: 900, count: 3 },
				answerMash: { redial: false },
				congestion: { redial: false },
				answerNoList: { redial: false },
			},
		});
		expect(request.status).toBe(200);
		const [output] = jsonOf(result);
		expect(typeof output.autoCallId).toBe('string');
		expect(sim.state.tasks.has(output.autoCallId as string)).toBe(true);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	test('minimal task: required defaults only, no conditional field sent', async () => {
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'create',
			name: 'Minimal',
			defaultExecData: 'bot-1',
			cpsMode: 'everyNSeconds',
			secondsBetweenCalls: 3,
			recordCall: false,
		});
		expect(result.error).toBeUndefined();
		const body = apiRequests(sim)[0].body;
		expect(body.cps).toBe(0.97);
		expect(body).not.toHaveProperty('secondExecData');
		expect(body).not.toHaveProperty('cidData');
		expect(body).not.toHaveProperty('startMoment');
		expect(body.additionalOptions).toEqual({ fullListMethod: 'reject', fullListTime: 30, recordCall: false });
		expect(body.redialStrategyOptions.redialStrategyEn).toBe(false);
		expect(apiRequests(sim)[0].status).toBe(200);
	});
});

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
		const bodies = requests.map((request) => request.body).sort((a, b) => a.variables.name.localeCompare(b.variables.name));
		expect(bodies).toEqual([
			{ phone: ['79990000001', '79990000002'], botSettingsId: 'bot-1', variables: { name: 'Ann' }, timezone: 25200, callbackData: { crmId: 'L-1' } },
			{ phone: ['79990000003'], botSettingsId: 'bot-1', variables: { name: 'Bob' }, timezone: 25200, callbackData: { crmId: 'L-2' } },
		]);
		const outputs = jsonOf(result);
		expect(outputs.map((output) => output.phone)).toEqual([['79990000001', '79990000002'], ['79990000003']]);
		for (const output of outputs) {
			expect(sim.state.candidates.get(output.autoCallCandidateId as string)).toBeDefined();
		}
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});
});

describe('Candidate → Create Batch From Template (spec 4.5)', () => {
	test('all items in one call task: the first batch creates it (4.5), the others join it; every item gets its own ids', async () => {
		sim.addTemplate('tpl-9', { name: 'Template nine' });
		const items = Array.from({ length: 5 }, (_, index) => ({ phone: `7999000010${index}`, crmId: `C-${index}` }));
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createBatch',
				phone: '={{ $json.phone }}',
				candidateFields: {
					clientExternalId: '={{ $json.crmId }}',
					callbackData: '={{ JSON.stringify({ crmId: $json.crmId }) }}',
				},
				taskSettings: { autoCallTemplateId: 'tpl-9', botSettingsId: 'bot-3', checkPhone: true },
				options: { batchSize: 2 },
			},
			items,
		);
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests.map((request) => request.path)).toEqual([
			'/cis/api/v1/telephony/autoCallCandidate/single/batch',
			'/cis/api/v1/telephony/autoCallCandidate/batch',
			'/cis/api/v1/telephony/autoCallCandidate/batch',
		]);
		expect(sim.state.tasks.size).toBe(1);
		const [taskId] = [...sim.state.tasks.keys()];
		expect(requests[0].body.batch).toEqual([0, 1].map((index) => ({
			phone: [items[index].phone],
			callbackData: { crmId: items[index].crmId },
			clientExternalId: items[index].crmId,
			botSettingsId: 'bot-3',
			autoCallTemplateId: 'tpl-9',
			checkPhone: true,
		})));
		// Joining entries name the task instead of the settings that made it.
		expect(requests.slice(1).flatMap((request) => request.body.batch)).toEqual([2, 3, 4].map((index) => ({
			autoCallId: taskId,
			phone: [items[index].phone],
			callbackData: { crmId: items[index].crmId },
			clientExternalId: items[index].crmId,
			checkPhone: true,
		})));
		const outputs = jsonOf(result);
		expect(outputs).toHaveLength(5);
		outputs.forEach((output, index) => {
			expect(output.autoCallId).toBe(taskId);
			const candidate = sim.state.candidates.get(output.autoCallCandidateId as string);
			expect(candidate?.phone).toEqual([items[index].phone]);
			expect(candidate?.taskId).toBe(taskId);
			expect(result.items[index].pairedItem).toEqual({ item: index });
		});
	});

	test('an answer that is not the spec\'s list of lists is not a success: outcome unknown, and no other batch is sent (needs the transport\'s answer check)', async () => {
		sim.injectFault({ path: '/cis/api/v1/telephony/autoCallCandidate/single/batch', status: 200, body: { accepted: 2 } });
		const result = await runAction(
			sim,
			{ resource: 'candidate', operation: 'createBatch', phone: '={{ $json.phone }}', options: { batchSize: 2 } },
			[{ phone: '79990000201' }, { phone: '79990000202' }, { phone: '79990000203' }],
			{ continueOnFail: true },
		);
		const outputs = jsonOf(result);
		expect(outputs).toHaveLength(3);
		for (const output of outputs.slice(0, 2)) expect(String(output.error)).toMatch(/outcome unknown/i);
		expect(String(outputs[2].error)).toMatch(/^Not sent: .*whether the task exists is unknown/);
		expect(apiRequests(sim)).toHaveLength(1);
	});
});

describe('privacy operations (spec 4.1, 4.2, 4.3)', () => {
	test('Call → Depersonalize keeps or deletes the recording', async () => {
		const kept = sim.addCall();
		const deleted = sim.addCall();
		const result = await runAction(
			sim,
			{ resource: 'call', operation: 'depersonalize', callId: '={{ $json.callId }}', skipDeleteRecord: '={{ $json.keep }}' },
			[
				{ callId: kept.id, keep: true },
				{ callId: deleted.id, keep: false },
			],
		);
		expect(result.error).toBeUndefined();
		const requests = apiRequests(sim);
		expect(requests.map((request) => [request.method, request.path, request.body, request.rawBody !== '' ? 'has body' : ''])).toEqual(
			expect.arrayContaining([
				['POST', `/cis/api/v1/calls/${kept.id}/depersonalization`, { skipDeleteRecord: true }, 'has body'],
				['POST', `/cis/api/v1/calls/${deleted.id}/depersonalization`, { skipDeleteRecord: false }, 'has body'],
			]),
		);
		expect(jsonOf(result)).toEqual([
			{ success: true, callId: kept.id, recordingKept: true },
			{ success: true, callId: deleted.id, recordingKept: false },
		]);
		expect(sim.state.calls.get(kept.id)?.depersonalized).toBe(true);
		expect(sim.state.calls.get(kept.id)?.record).not.toBeNull();
		expect(sim.state.calls.get(deleted.id)?.record).toBeNull();
	});

	test('Candidate → Depersonalize', async () => {
		const created = await runAction(sim, {
			resource: 'candidate',
			operation: 'createAndRun',
			botSettingsId: 'bot-1',
			phone: '79990000301',
		});
		const candidateId = jsonOf(created)[0].autoCallCandidateId as string;
		await sim.idle();
		sim.requests.length = 0;
		const result = await runAction(sim, {
			resource: 'candidate',
			operation: 'depersonalize',
			autoCallCandidateId: candidateId,
			skipDeleteRecord: false,
		});
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => [request.method, request.path, request.body])).toEqual([
			['POST', `/cis/api/v1/telephony/autoCallCandidate/${candidateId}/depersonalization`, { skipDeleteRecord: false }],
		]);
		expect(jsonOf(result)).toEqual([{ success: true, autoCallCandidateId: candidateId, recordingKept: false }]);
		expect(sim.state.candidates.get(candidateId)?.depersonalized).toBe(true);
	});

	test('Call → Delete Recording', async () => {
		const call = sim.addCall();
		const result = await runAction(sim, { resource: 'call', operation: 'deleteRecording', callId: call.id });
		expect(result.error).toBeUndefined();
		const [request] = apiRequests(sim);
		expect([request.method, request.path, request.rawBody]).toEqual(['DELETE', `/cis/api/v1/calls/${call.id}/record`, '']);
		expect(jsonOf(result)).toEqual([{ success: true, deleted: true, callId: call.id }]);
		expect(sim.state.calls.get(call.id)?.record).toBeNull();
	});
});
