/**
 * One person, one number, everywhere: Cancel reads numbers exactly as the operations that dial (lists,
 * Default Country, validity), so the number that cancels is the number that was dialled. Through
 * n8n-core's engine against the simulator, which keeps the candidates and their status.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	apiRequests,
	byId,
	candidatesWithPhone,
	jsonOf,
	runAction,
	useSimulatorWithTask,
} from '../actions/fixtures';

jest.setTimeout(120_000);

const { sim, taskId } = useSimulatorWithTask('Cancel after Default Country');

const addToTask = (phone: string, options: IDataObject = {}) =>
	({
		resource: 'candidate',
		operation: 'addToTask',
		autoCallId: byId(taskId()),
		phone,
		options,
	}) as INodeParameters;
const cancel = (phone: string, options: IDataObject = {}) =>
	({
		resource: 'candidate',
		operation: 'cancel',
		autoCallId: byId(taskId()),
		phone,
		options,
	}) as INodeParameters;

/** The numbers Cancel sent, in order. */
function numbersCancelled(): unknown[] {
	return apiRequests(sim)
		.filter((request) => request.path.endsWith('autoCallCandidate/cancel'))
		.map((request) => (request.query as IDataObject).phone);
}

describe('Cancel after Default Country', () => {
	test('created from 020 7946 0958 with GB (dialled 442079460958): Cancel with the same input and GB sends 442079460958 and cancels the person', async () => {
		const created = await runAction(sim, addToTask('020 7946 0958', { defaultCountry: 'GB' }));
		expect(created.error).toBeUndefined();
		expect(jsonOf(created)[0].phone).toEqual(['442079460958']);
		const result = await runAction(sim, cancel('020 7946 0958', { defaultCountry: 'GB' }));
		expect(result.error).toBeUndefined();
		expect(numbersCancelled()).toEqual(['442079460958']);
		expect(candidatesWithPhone(sim, '442079460958')[0].status).toBe('CANCELLED');
	});

	test('Default Country from an expression, per item, as on creation', async () => {
		const items = [
			{ phone: '(212) 555-0147', country: 'US' },
			{ phone: '020 7946 0958', country: 'GB' },
		];
		await runAction(
			sim,
			addToTask('={{ $json.phone }}', { defaultCountry: '={{ $json.country }}' }),
			items,
		);
		const result = await runAction(
			sim,
			cancel('={{ $json.phone }}', { defaultCountry: '={{ $json.country }}' }),
			items,
		);
		expect(result.error).toBeUndefined();
		expect(numbersCancelled()).toEqual(['12125550147', '442079460958']);
	});

	test('a CRM list: the entries creation left out are not cancelled either, and the output names them', async () => {
		const phone = [{ VALUE: '123' }, { VALUE: '+7 999' }, { VALUE: '+7 999 000-55-57' }];
		await runAction(sim, addToTask('={{ $json.phone }}'), [{ phone }]);
		const result = await runAction(sim, cancel('={{ $json.phone }}'), [{ phone }]);
		expect(result.error).toBeUndefined();
		expect(numbersCancelled()).toEqual(['79990005557']);
		expect((jsonOf(result)[0].skippedNumbers as IDataObject[]).map(({ number }) => number)).toEqual(
			['123', '+7 999'],
		);
	});

	test('a number creation refuses as invalid is refused by Cancel too, naming the country, with no request', async () => {
		const result = await runAction(sim, cancel('999 000-99-93', { defaultCountry: 'US' }), [{}], {
			continueOnFail: true,
		});
		expect(numbersCancelled()).toEqual([]);
		expect(jsonOf(result)[0].error).toMatch(
			/^Refused: 999 000-99-93 is not a valid number of US \(Default Country\)/,
		);
	});
});
