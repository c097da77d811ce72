/**
 * Call Task → Create (nodes/CisAutoCall/actions/callTask/create.operation.ts). Through n8n-core's
 * engine with real HTTP to the simulator (test/actions/fixtures).
 */
import { EVENT_NAMES } from '../../../nodes/shared/events';

import {
	apiRequests,
	callTaskCreate,
	CAMPAIGN_FIELDS,
	jsonOf,
	runAction,
	TOKEN,
	useActionSimulator,
} from '../fixtures';

const sim = useActionSimulator();

describe('Call Task → Create (spec 4.6)', () => {
	test('sends every field, converted, with the conditional ones the choices need', async () => {
		const result = await runAction(
			sim,
			callTaskCreate({
				name: 'November leads',
				defaultExecData: 'bot-42',
				...CAMPAIGN_FIELDS,
				startType: 'time',
				startMoment: '2026-12-01T09:30:00',
				redialRules: {
					busy: { redial: true, time: 300, count: 2 },
					noAnswer: { redial: true, time: 900, count: 3 },
				},
				webhookUrls: {
					target: [
						{
							url: 'https://crm.example.com/hooks/calls',
							CALL_ENDED: true,
							CANDIDATE_CHANGED: true,
							partialResults: true,
							delay: 5,
						},
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
			}),
		);
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
					// every event of the one list, the two chosen ones on
					events: Object.fromEntries(
						EVENT_NAMES.map((name) => [
							name,
							{ name, value: name === 'CALL_ENDED' || name === 'CANDIDATE_CHANGED' },
						]),
					),
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
		const result = await runAction(
			sim,
			callTaskCreate({
				name: 'Minimal',
				cpsMode: 'everyNSeconds',
				secondsBetweenCalls: 3,
				recordCall: false,
			}),
		);
		expect(result.error).toBeUndefined();
		const body = apiRequests(sim)[0].body;
		expect(body.cps).toBe(0.97);
		expect(body).not.toHaveProperty('secondExecData');
		expect(body).not.toHaveProperty('cidData');
		expect(body).not.toHaveProperty('startMoment');
		expect(body.additionalOptions).toEqual({
			fullListMethod: 'reject',
			fullListTime: 30,
			recordCall: false,
		});
		expect(body.redialStrategyOptions.redialStrategyEn).toBe(false);
		expect(apiRequests(sim)[0].status).toBe(200);
	});
});
