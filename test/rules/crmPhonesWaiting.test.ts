/**
 * Phones as CRMs keep them and Default Country on the waiting operations (Create and Run and Wait for
 * Result, Add to Task and Wait for Result), in both candidate input modes: the numbers sent, and the
 * execution waits for those items only. Through n8n-core's engine with n8n's waiting executions
 * (useWaitingN8n), against the simulator. The other operations: crmPhones.test.ts.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	BITRIX24,
	byId,
	createTaskInState,
	KOMMO,
	PIPEDRIVE,
	target,
	useWaitingN8n,
	waitParameters,
} from '../actions/fixtures';

const { sim, startN8n, runWaiting, resumedOnce } = useWaitingN8n();

function candidatesSent(): string[][] {
	return sim.requests
		.filter((request) => /\/cis\/api\/v1\/.*autoCallCandidate/.test(request.path))
		.map((request) => (request.body as IDataObject).phone as string[])
		.sort((a, b) => a[0].localeCompare(b[0]));
}

const modes: Record<string, IDataObject> = {
	'Define Each Field': { phone: '={{ $json.phones }}' },
	'Use Fields of the Input Items': { inputMode: 'fromItems', phoneField: 'phones' },
};

const operations: Record<string, () => INodeParameters> = {
	'Create and Run and Wait for Result': () => ({ ...waitParameters, candidateFields: {} }),
	'Add to Task and Wait for Result': () => ({
		authentication: 'accessToken',
		resource: 'candidate',
		operation: 'addToTaskAndWait',
		autoCallId: byId(createTaskInState(sim, { name: 'Waiting CRM phones' }).id),
		waitAtMost: 2,
		waitUnit: 'hours',
	}),
};

describe.each(Object.keys(operations))('%s', (name) => {
	describe.each(Object.keys(modes))('%s', (mode) => {
		const parameters = (options: IDataObject = {}) =>
			({ ...operations[name](), ...modes[mode], options }) as INodeParameters;

		test("a Pipedrive, a Bitrix24 and a Kommo contact: called in the CRM's order, primary first, and waited for", async () => {
			const { waiting, eventUrl } = await startN8n();
			sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)] });
			const execution = await runWaiting(
				waiting,
				[{ phones: PIPEDRIVE }, { phones: BITRIX24 }, { phones: KOMMO }],
				parameters(),
			);
			expect(execution.status).toBe('waiting');
			expect(candidatesSent()).toEqual([
				['79990005552', '79990005551'],
				['79990005553', '89990005554'],
				['79990005555', '79990005556'],
			]);
		});

		test('junk in a CRM list: the good number is called, and the result after the wait still names the entries left out', async () => {
			const { waiting, eventUrl } = await startN8n();
			sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)] });
			const execution = await runWaiting(
				waiting,
				[{ phones: [{ VALUE: '123' }, { VALUE: '+7 999 000-55-59' }] }],
				parameters(),
			);
			expect(candidatesSent()).toEqual([['79990005559']]);
			// Add to Task calls once its task runs (not started here); Create and Run calls at once.
			if (name !== 'Create and Run and Wait for Result') return;
			await resumedOnce(execution);
			expect(execution.items).toHaveLength(1);
			expect(execution.items?.[0].json.skippedNumbers).toEqual([
				{ number: '123', reason: 'an emergency number (123); no bot may call it' },
			]);
		});

		test('Default Country GB completes a national number; without it the number is refused by name and item, and not waited for', async () => {
			const { waiting, eventUrl } = await startN8n();
			sim.setDefaultTemplate({ webhookUrls: [target(eventUrl)] });
			const completed = await runWaiting(
				waiting,
				[{ phones: '020 7946 0958' }],
				parameters({ defaultCountry: 'GB' }),
			);
			expect(completed.status).toBe('waiting');
			expect(candidatesSent()).toEqual([['442079460958']]);
			const refused = await runWaiting(
				waiting,
				[{ phones: '+7 999 000-55-58' }, { phones: '020 7946 0959' }],
				parameters(),
				{ continueOnFail: true },
			);
			expect(refused.waitingItems.map((item) => item.json.error)).toEqual([
				undefined,
				'Refused: 02079460959 has no country code (a national number of 11 digits), so nothing was called; set Default Country in Options to the country of the number, or write it with + and its country code (+<country code> 2079460959, without the leading 0) [item 1]',
			]);
			expect(candidatesSent()).toEqual([['442079460958'], ['79990005558']]);
		});
	});
});
