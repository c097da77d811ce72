import type { INodeParameters } from 'n8n-workflow';

import { apiRequests, callTaskCreate, runAction, useActionSimulator } from '../fixtures';

/**
 * The call window is one visible choice (hours and time zone shown when
 * chosen, defaults visible), the call limits are one number each (0 = no limit). Workflows saved
 * with 0.1.0 (window and limits under Additional Fields) keep sending what they sent.
 */
const sim = useActionSimulator();

const createTask = (fields: INodeParameters = {}, additionalFields: INodeParameters = {}) =>
	callTaskCreate({ name: 'Window', ...fields }, additionalFields);

async function sentBody(parameters: INodeParameters) {
	const result = await runAction(sim, parameters, [{}]);
	expect(result.error).toBeUndefined();
	return apiRequests(sim)[0].body;
}

describe('Call Window', () => {
	test('default: any time of day, nothing about a window is sent', async () => {
		const body = await sentBody(createTask());
		expect(body.additionalOptions).not.toHaveProperty('useTr');
		expect(body.additionalOptions).not.toHaveProperty('allowCallTimeFrom');
	});

	test('set hours: the window with its shown defaults 09:00–21:00', async () => {
		const body = await sentBody(createTask({ callWindow: 'candidateTime' }));
		expect(body.additionalOptions).toMatchObject({
			useTr: true,
			allowCallTimeFrom: 32400,
			allowCallTimeTo: 75600,
		});
	});

	test('set hours: the hours given', async () => {
		const body = await sentBody(
			createTask({
				callWindow: 'candidateTime',
				allowCallTimeFrom: '10:30',
				allowCallTimeTo: '18:00',
			}),
		);
		expect(body.additionalOptions).toMatchObject({
			useTr: true,
			allowCallTimeFrom: 37800,
			allowCallTimeTo: 64800,
		});
	});

	test('set hours across midnight: refused with the way to call overnight, nothing sent', async () => {
		const result = await runAction(
			sim,
			createTask({
				callWindow: 'candidateTime',
				allowCallTimeFrom: '22:00',
				allowCallTimeTo: '06:00',
			}),
			[{}],
		);
		expect(result.error?.message).toMatch(
			/Invalid allowCallTimeTo: "06:00" is not after the window start \("22:00"\).*cannot cross midnight.*\[item 0\]/,
		);
		expect(apiRequests(sim)).toHaveLength(0);
	});

	test('a workflow saved with 0.1.0 keeps its window under Additional Fields', async () => {
		const body = await sentBody(
			createTask({}, { useTr: true, allowCallTimeFrom: '08:00', allowCallTimeTo: '20:00' }),
		);
		expect(body.additionalOptions).toMatchObject({
			useTr: true,
			allowCallTimeFrom: 28800,
			allowCallTimeTo: 72000,
		});
	});
});

describe('Candidate and Number limits: one number each', () => {
	test('a number sets the limit', async () => {
		const body = await sentBody(createTask({}, { candidateLimit: 4, numberLimit: 2 }));
		expect(body.redialStrategyOptions).toMatchObject({
			candidateLimit: { redial: true, count: 4 },
			numberLimit: { redial: true, count: 2 },
		});
	});

	test('0 means no limit', async () => {
		const body = await sentBody(createTask({}, { candidateLimit: 0 }));
		expect(body.redialStrategyOptions.candidateLimit).toEqual({ redial: false });
	});

	test('not added: nothing sent, the service default applies', async () => {
		const body = await sentBody(createTask());
		expect(body.redialStrategyOptions).not.toHaveProperty('candidateLimit');
		expect(body.redialStrategyOptions).not.toHaveProperty('numberLimit');
	});

	test('a workflow saved with 0.1.0 keeps its {limit: {redial, count}}', async () => {
		const body = await sentBody(
			createTask({}, { numberLimit: { limit: { redial: true, count: 5 } } }),
		);
		expect(body.redialStrategyOptions.numberLimit).toEqual({ redial: true, count: 5 });
	});

	test('a negative limit is refused, nothing sent', async () => {
		const result = await runAction(sim, createTask({}, { candidateLimit: -1 }), [{}]);
		expect(result.error?.message).toMatch(/Invalid candidateLimit: -1 is below 0 \[item 0\]/);
		expect(apiRequests(sim)).toHaveLength(0);
	});
});
