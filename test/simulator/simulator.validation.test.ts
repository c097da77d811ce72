// Each validation rule of the API contract (docs/service.md): a representative bad body gets 400 with the section-7
// body naming the field, and nothing is created.
import { createSimulator } from '../../simulator';
import { startQuickSimulator, useSimulator } from '../lib/simulator';
import { CIS, createClient, validTaskBody, withField } from './testkit';

const sim = useSimulator(startQuickSimulator, {
	settle: true,
	emptyAfter: true,
	closeAfterAll: () => client.close(),
});
const client = createClient(() => sim.url);
const call = client.call;

async function expectRejected(path: string, body: unknown, field: string) {
	const answer = await call('POST', `${CIS}${path}`, { body });
	expect({
		status: answer.status,
		field: answer.body && answer.body.details && answer.body.details.field,
	}).toEqual({
		status: 400,
		field,
	});
	expect(answer.body.type).toBe('ValidationException');
	expect(Number.isInteger(answer.body.timestamp)).toBe(true);
	expect(answer.body.error).toEqual(expect.stringContaining(field));
	expect(sim.state.tasks.size).toBe(0);
	expect(sim.state.candidates.size).toBe(0);
}

const valid = validTaskBody();
const redialOn = { redial: true, time: 60, count: 2 };

describe('4.6 create a call task: the valid body passes', () => {
	it('accepts the minimal valid body and every optional field set correctly', async () => {
		const full = validTaskBody({
			taskComment: '',
			secondExec: 'ch',
			secondExecData: 'channel-1',
			cidType: 'pool',
			cidData: 'pool-1',
			callStrategy: 'PARALLEL',
			startType: 'time',
			startMoment: '2030-02-28 09:30',
			scheduleId: 'schedule-1',
			cps: 0.97,
			checkPhone: true,
			sendReportAfterFinish: false,
			lifetime: 86400,
			phoneNormalization: 'RU',
			normalizationErrorAction: 'SET_NORMALIZATION_ERROR_FLAG',
			webhookUrls: [
				'http://127.0.0.1:9/plain',
				{
					url: 'http://127.0.0.1:9/hook',
					partialResults: true,
					delay: 5,
					events: {
						CALL_ENDED: { name: 'CALL_ENDED', value: true },
						CANDIDATE_CHANGED: { value: false },
					},
				},
				{},
			],
			additionalOptions: {
				fullListMethod: 'reject',
				fullListTime: 20,
				useTr: true,
				allowCallTimeFrom: 32400,
				allowCallTimeTo: 75600,
				recordCall: true,
				recTrimLeft: 2,
				detectRobot: true,
				detectRobotMode: 'block',
				detectRobotGreeting: 'greeting-1',
				providerId: '6f1c1d5e-0000-0000-0000-000000000000',
				fz230: true,
			},
			redialStrategyOptions: {
				redialStrategyEn: true,
				candidateLimit: { redial: true, count: 5 },
				numberLimit: { redial: false },
				busy: redialOn,
				noAnswer: redialOn,
				answerMash: { redial: false },
				congestion: redialOn,
				answerNoList: { redial: false },
			},
		});
		for (const body of [valid, full, validTaskBody({ phoneNormalization: null, lifetime: null })]) {
			const answer = await call('POST', `${CIS}/telephony/autoCall`, { body });
			expect({ status: answer.status, body: answer.body }).toEqual({
				status: 200,
				body: { id: { identity: expect.any(String) } },
			});
		}
	});
});

describe('4.6 create a call task: each rule', () => {
	const cases: Array<[string, Record<string, any>, string]> = [
		['no body object', [] as any, 'body'],
		['name missing', withField(valid, 'name', undefined), 'name'],
		['name not a string', withField(valid, 'name', 5), 'name'],
		['name empty', withField(valid, 'name', ''), 'name'],
		['taskComment not a string', withField(valid, 'taskComment', 3), 'taskComment'],
		['defaultExec missing', withField(valid, 'defaultExec', undefined), 'defaultExec'],
		['defaultExec not robot', withField(valid, 'defaultExec', 'human'), 'defaultExec'],
		['defaultExecData missing', withField(valid, 'defaultExecData', undefined), 'defaultExecData'],
		['secondExec missing', withField(valid, 'secondExec', undefined), 'secondExec'],
		['secondExec unknown', withField(valid, 'secondExec', 'forward'), 'secondExec'],
		['secondExecData missing with ch', withField(valid, 'secondExec', 'ch'), 'secondExecData'],
		['cidType missing', withField(valid, 'cidType', undefined), 'cidType'],
		['cidType unknown', withField(valid, 'cidType', 'random'), 'cidType'],
		['cidData missing with gornum', withField(valid, 'cidType', 'gornum'), 'cidData'],
		['cidData missing with pool', withField(valid, 'cidType', 'pool'), 'cidData'],
		['callStrategy unknown', withField(valid, 'callStrategy', 'RANDOM'), 'callStrategy'],
		['startType missing', withField(valid, 'startType', undefined), 'startType'],
		['startType unknown', withField(valid, 'startType', 'now'), 'startType'],
		['startMoment missing with time', withField(valid, 'startType', 'time'), 'startMoment'],
		[
			'startMoment ISO format',
			{ ...valid, startType: 'time', startMoment: '2030-01-01T10:00:00Z' },
			'startMoment',
		],
		[
			'startMoment with seconds',
			{ ...valid, startType: 'time', startMoment: '2030-01-01 10:00:00' },
			'startMoment',
		],
		[
			'startMoment impossible date',
			{ ...valid, startType: 'time', startMoment: '2030-02-30 10:00' },
			'startMoment',
		],
		[
			'startMoment hour 24',
			{ ...valid, startType: 'time', startMoment: '2030-02-03 24:00' },
			'startMoment',
		],
		['scheduleId not a string', withField(valid, 'scheduleId', 12), 'scheduleId'],
		['cps missing', withField(valid, 'cps', undefined), 'cps'],
		['cps as a string', withField(valid, 'cps', '1.03'), 'cps'],
		['checkPhone not boolean', withField(valid, 'checkPhone', 'true'), 'checkPhone'],
		[
			'sendReportAfterFinish not boolean',
			withField(valid, 'sendReportAfterFinish', 1),
			'sendReportAfterFinish',
		],
		['lifetime not an integer', withField(valid, 'lifetime', 1.5), 'lifetime'],
		['lifetime as a string', withField(valid, 'lifetime', '3600'), 'lifetime'],
		[
			'phoneNormalization unknown',
			withField(valid, 'phoneNormalization', 'US'),
			'phoneNormalization',
		],
		[
			'normalizationErrorAction unknown',
			{ ...valid, phoneNormalization: 'RU', normalizationErrorAction: 'SKIP' },
			'normalizationErrorAction',
		],
		[
			'normalizationErrorAction without normalization',
			withField(valid, 'normalizationErrorAction', 'IGNORE_NORMALIZATION_ERROR'),
			'normalizationErrorAction',
		],
		[
			'webhookUrls not an array',
			withField(valid, 'webhookUrls', { url: 'http://127.0.0.1/x' }),
			'webhookUrls',
		],
		['webhookUrls item a number', withField(valid, 'webhookUrls', [5]), 'webhookUrls[0]'],
		[
			'webhookUrls plain string not a URL',
			withField(valid, 'webhookUrls', ['not a url']),
			'webhookUrls[0]',
		],
		[
			'webhookUrls url not a URL',
			withField(valid, 'webhookUrls', [{ url: 'ftp://x' }]),
			'webhookUrls[0].url',
		],
		[
			'webhookUrls partialResults not boolean',
			withField(valid, 'webhookUrls', [{ url: 'http://127.0.0.1/x', partialResults: 'yes' }]),
			'webhookUrls[0].partialResults',
		],
		[
			'webhookUrls delay not an integer',
			withField(valid, 'webhookUrls', [{ url: 'http://127.0.0.1/x', delay: '5' }]),
			'webhookUrls[0].delay',
		],
		[
			'webhookUrls events not an object',
			withField(valid, 'webhookUrls', [{ url: 'http://127.0.0.1/x', events: ['CALL_ENDED'] }]),
			'webhookUrls[0].events',
		],
		[
			'webhookUrls unknown event',
			withField(valid, 'webhookUrls', [
				{ events: { CALL_STARTED: { name: 'CALL_STARTED', value: true } } },
			]),
			'webhookUrls[0].events.CALL_STARTED',
		],
		[
			'webhookUrls event value not boolean',
			withField(valid, 'webhookUrls', [
				{ events: { CALL_ENDED: { name: 'CALL_ENDED', value: 'true' } } },
			]),
			'webhookUrls[0].events.CALL_ENDED.value',
		],
		[
			'webhookUrls event name mismatch',
			withField(valid, 'webhookUrls', [
				{ events: { CALL_ENDED: { name: 'CANDIDATE_CHANGED', value: true } } },
			]),
			'webhookUrls[0].events.CALL_ENDED.name',
		],
		[
			'webhookUrls event setting a boolean',
			withField(valid, 'webhookUrls', [{ events: { CALL_ENDED: true } }]),
			'webhookUrls[0].events.CALL_ENDED',
		],
		[
			'additionalOptions missing',
			withField(valid, 'additionalOptions', undefined),
			'additionalOptions',
		],
		[
			'additionalOptions not an object',
			withField(valid, 'additionalOptions', 'x'),
			'additionalOptions',
		],
		[
			'fullListMethod missing',
			withField(valid, 'additionalOptions.fullListMethod', undefined),
			'additionalOptions.fullListMethod',
		],
		[
			'fullListMethod not reject',
			withField(valid, 'additionalOptions.fullListMethod', 'accept'),
			'additionalOptions.fullListMethod',
		],
		[
			'fullListTime missing',
			withField(valid, 'additionalOptions.fullListTime', undefined),
			'additionalOptions.fullListTime',
		],
		[
			'fullListTime not an integer',
			withField(valid, 'additionalOptions.fullListTime', 2.5),
			'additionalOptions.fullListTime',
		],
		[
			'useTr not boolean',
			withField(valid, 'additionalOptions.useTr', 'yes'),
			'additionalOptions.useTr',
		],
		[
			'allowCallTimeFrom missing with useTr',
			withField(valid, 'additionalOptions.useTr', true),
			'additionalOptions.allowCallTimeFrom',
		],
		[
			'allowCallTimeTo missing with useTr',
			withField(
				withField(valid, 'additionalOptions.useTr', true),
				'additionalOptions.allowCallTimeFrom',
				0,
			),
			'additionalOptions.allowCallTimeTo',
		],
		[
			'allowCallTimeTo out of the day',
			withField(valid, 'additionalOptions.allowCallTimeTo', 86400),
			'additionalOptions.allowCallTimeTo',
		],
		[
			'allowCallTimeFrom as "09:00"',
			withField(valid, 'additionalOptions.allowCallTimeFrom', '09:00'),
			'additionalOptions.allowCallTimeFrom',
		],
		[
			'recordCall missing',
			withField(valid, 'additionalOptions.recordCall', undefined),
			'additionalOptions.recordCall',
		],
		[
			'recordCall not boolean',
			withField(valid, 'additionalOptions.recordCall', 1),
			'additionalOptions.recordCall',
		],
		[
			'recTrimLeft missing with recordCall',
			withField(valid, 'additionalOptions.recTrimLeft', undefined),
			'additionalOptions.recTrimLeft',
		],
		[
			'recTrimLeft negative',
			withField(valid, 'additionalOptions.recTrimLeft', -1),
			'additionalOptions.recTrimLeft',
		],
		[
			'detectRobot not boolean',
			withField(valid, 'additionalOptions.detectRobot', 'on'),
			'additionalOptions.detectRobot',
		],
		[
			'detectRobotMode missing with detectRobot',
			withField(valid, 'additionalOptions.detectRobot', true),
			'additionalOptions.detectRobotMode',
		],
		[
			'detectRobotMode unknown',
			withField(valid, 'additionalOptions.detectRobotMode', 'front'),
			'additionalOptions.detectRobotMode',
		],
		[
			'detectRobotGreeting missing with block',
			withField(valid, 'additionalOptions.detectRobotMode', 'block'),
			'additionalOptions.detectRobotGreeting',
		],
		[
			'providerId not a string',
			withField(valid, 'additionalOptions.providerId', 1),
			'additionalOptions.providerId',
		],
		[
			'redialStrategyOptions missing',
			withField(valid, 'redialStrategyOptions', undefined),
			'redialStrategyOptions',
		],
		[
			'redialStrategyEn missing',
			withField(valid, 'redialStrategyOptions.redialStrategyEn', undefined),
			'redialStrategyOptions.redialStrategyEn',
		],
		[
			'redialStrategyEn not boolean',
			withField(valid, 'redialStrategyOptions.redialStrategyEn', 'false'),
			'redialStrategyOptions.redialStrategyEn',
		],
		[
			'candidateLimit redial missing',
			withField(valid, 'redialStrategyOptions.candidateLimit', { count: 3 }),
			'redialStrategyOptions.candidateLimit.redial',
		],
		[
			'candidateLimit count missing with redial',
			withField(valid, 'redialStrategyOptions.candidateLimit', { redial: true }),
			'redialStrategyOptions.candidateLimit.count',
		],
		[
			'numberLimit count missing with redial',
			withField(valid, 'redialStrategyOptions.numberLimit', { redial: true }),
			'redialStrategyOptions.numberLimit.count',
		],
		[
			'numberLimit count not an integer',
			withField(valid, 'redialStrategyOptions.numberLimit', { redial: true, count: '2' }),
			'redialStrategyOptions.numberLimit.count',
		],
		...(['busy', 'noAnswer', 'answerMash', 'congestion', 'answerNoList'] as const).flatMap(
			(rule): Array<[string, Record<string, any>, string]> => [
				[
					`${rule} missing`,
					withField(valid, `redialStrategyOptions.${rule}`, undefined),
					`redialStrategyOptions.${rule}`,
				],
				[
					`${rule}.redial missing`,
					withField(valid, `redialStrategyOptions.${rule}`, {}),
					`redialStrategyOptions.${rule}.redial`,
				],
				[
					`${rule}.time missing with redial`,
					withField(valid, `redialStrategyOptions.${rule}`, { redial: true, count: 1 }),
					`redialStrategyOptions.${rule}.time`,
				],
				[
					`${rule}.count missing with redial`,
					withField(valid, `redialStrategyOptions.${rule}`, { redial: true, time: 60 }),
					`redialStrategyOptions.${rule}.count`,
				],
			],
		),
	];

	it.each(cases)('%s → 400', async (_name, body, field) => {
		await expectRejected('/telephony/autoCall', body, field);
	});
});

describe('4.4 single candidate: each rule', () => {
	const base = { phone: ['79990000001'], botSettingsId: 'bot-1' };
	const cases: Array<[string, Record<string, any>, string]> = [
		['phone missing', { botSettingsId: 'bot-1' }, 'phone'],
		['phone a string', { ...base, phone: '79990000001' }, 'phone'],
		['phone empty', { ...base, phone: [] }, 'phone'],
		['phone item a number', { ...base, phone: [79990000001] }, 'phone[0]'],
		['phone item empty', { ...base, phone: ['79990000001', ''] }, 'phone[1]'],
		['botSettingsId missing', { phone: ['79990000001'] }, 'botSettingsId'],
		['botSettingsId not a string', { ...base, botSettingsId: 42 }, 'botSettingsId'],
		['variables an array', { ...base, variables: ['a'] }, 'variables'],
		['variables value not a string', { ...base, variables: { age: 42 } }, 'variables.age'],
		['timezone not an integer', { ...base, timezone: 3.5 }, 'timezone'],
		['timezone as a string', { ...base, timezone: '10800' }, 'timezone'],
		['timezone above 43200', { ...base, timezone: 43201 }, 'timezone'],
		['timezone below -43200', { ...base, timezone: -43201 }, 'timezone'],
		['callbackData an array', { ...base, callbackData: [1] }, 'callbackData'],
		['callbackData a string', { ...base, callbackData: '{"a":1}' }, 'callbackData'],
		['callbackData null', { ...base, callbackData: null }, 'callbackData'],
	];
	it.each(cases)('%s → 400', async (_name, body, field) => {
		await expectRejected('/telephony/autoCallCandidate/single', body, field);
	});

	it('accepts the timezone limits and unknown extra fields', async () => {
		for (const timezone of [-43200, 0, 43200]) {
			const answer = await call('POST', `${CIS}/telephony/autoCallCandidate/single`, {
				body: { ...base, timezone, callbackData: {}, variables: {}, somethingNew: true },
			});
			expect(answer.status).toBe(200);
		}
	});
});

describe('4.5 batch: each rule', () => {
	const item = { phone: ['79990000001'] };
	const cases: Array<[string, Record<string, any>, string]> = [
		['batch missing', {}, 'batch'],
		['batch not an array', { batch: item }, 'batch'],
		['batch empty', { batch: [] }, 'batch'],
		['item not an object', { batch: ['79990000001'] }, 'batch[0]'],
		['second item phone missing', { batch: [item, {}] }, 'batch[1].phone'],
		[
			'item variables array of strings',
			{ batch: [{ ...item, variables: ['a=b'] }] },
			'batch[0].variables',
		],
		[
			'item clientExternalId a number',
			{ batch: [{ ...item, clientExternalId: 7 }] },
			'batch[0].clientExternalId',
		],
		[
			'item botSettingsId a number',
			{ batch: [{ ...item, botSettingsId: 7 }] },
			'batch[0].botSettingsId',
		],
		[
			'item autoCallTemplateId a number',
			{ batch: [{ ...item, autoCallTemplateId: 7 }] },
			'batch[0].autoCallTemplateId',
		],
		['item timezone out of range', { batch: [{ ...item, timezone: 50000 }] }, 'batch[0].timezone'],
		[
			'item callbackData a string',
			{ batch: [{ ...item, callbackData: 'x' }] },
			'batch[0].callbackData',
		],
		[
			'item checkPhone not boolean',
			{ batch: [{ ...item, checkPhone: 'yes' }] },
			'batch[0].checkPhone',
		],
	];
	it.each(cases)('%s → 400', async (_name, body, field) => {
		await expectRejected('/telephony/autoCallCandidate/single/batch', body, field);
	});

	it('refuses a batch above maxBatchSize when one is configured', async () => {
		const small = await createSimulator({ maxBatchSize: 2 });
		const smallClient = createClient(() => small.url);
		try {
			const answer = await smallClient.call(
				'POST',
				`${CIS}/telephony/autoCallCandidate/single/batch`,
				{
					body: { batch: [item, item, item] },
				},
			);
			expect(answer.status).toBe(400);
			expect(answer.body.details).toEqual({ field: 'batch' });
		} finally {
			await smallClient.close();
			await small.close();
		}
	});
});

describe('4.1 / 4.2 body', () => {
	it('skipDeleteRecord must be a boolean; the body must be an object', async () => {
		const theCall = sim.addCall();
		const wrong = await call('POST', `${CIS}/calls/${theCall.id}/depersonalization`, {
			body: { skipDeleteRecord: 'true' },
		});
		expect(wrong.status).toBe(400);
		expect(wrong.body.details).toEqual({ field: 'skipDeleteRecord' });
		const notObject = await call('POST', `${CIS}/calls/${theCall.id}/depersonalization`, {
			body: [true],
		});
		expect(notObject.status).toBe(400);
		expect(theCall.depersonalized).toBe(false);
	});
});

describe('endpoints beyond the spec: each rule', () => {
	it('autoCallCandidate needs autoCallId and phone; forceStart boolean', async () => {
		await expectRejected('/telephony/autoCallCandidate', { phone: ['1'] }, 'autoCallId');
		await expectRejected('/telephony/autoCallCandidate', { autoCallId: 'x' }, 'phone');
		await expectRejected(
			'/telephony/autoCallCandidate',
			{ autoCallId: 'x', phone: ['1'], forceStart: 'yes' },
			'forceStart',
		);
		await expectRejected(
			'/telephony/autoCallCandidate/batch',
			{ batch: [{ phone: ['1'] }] },
			'batch[0].autoCallId',
		);
	});
});
