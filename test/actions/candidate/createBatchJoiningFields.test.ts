/**
 * Candidate → Create Batch, One Task for the Whole Run: the batches that join the run's task
 * (POST telephony/autoCallCandidate/batch) send only that endpoint's fields (docs/service.md);
 * Check Phones goes with the creating batch (spec 4.5) only, as its description says.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, createBatch, runAction, useActionSimulator } from '../fixtures';

const TEMPLATE_BATCH = '/cis/api/v1/telephony/autoCallCandidate/single/batch';
const ADD_BATCH = '/cis/api/v1/telephony/autoCallCandidate/batch';
const JOINING_FIELDS = [
	'autoCallId',
	'phone',
	'variables',
	'callbackData',
	'clientExternalId',
	'timezone',
];

const sim = useActionSimulator({ timeScale: 1000 });

const items = Array.from({ length: 5 }, (_, index) => ({
	phone: `7977000000${index}`,
	crm: `C-${index}`,
	name: `N${index}`,
	tz: 10800,
}));

test('joining batches carry only autoCallId, phone, variables, callbackData, clientExternalId, timezone; the creating batch keeps Check Phones', async () => {
	const parameters = createBatch(
		{ batchSize: 2, concurrency: 1 },
		{
			variablesFields: 'name',
			callbackDataFields: 'crm',
			clientExternalIdField: 'crm',
			timezoneField: 'tz',
			taskSettings: { checkPhone: true, botSettingsId: 'bot-1' },
		},
	);
	const result = await runAction(sim, parameters, items);
	expect(result.error).toBeUndefined();
	const requests = apiRequests(sim);
	expect(requests.map((request) => request.path)).toEqual([TEMPLATE_BATCH, ADD_BATCH, ADD_BATCH]);
	for (const entry of requests[0].body.batch as IDataObject[])
		expect(entry).toMatchObject({ checkPhone: true, botSettingsId: 'bot-1' });
	const joined = requests.slice(1).flatMap((request) => request.body.batch as IDataObject[]);
	expect(joined).toHaveLength(3);
	for (const entry of joined) expect(Object.keys(entry).sort()).toEqual([...JOINING_FIELDS].sort());
});

test('Check Phones says where it applies', () => {
	const { CisAutoCall } = jest.requireActual('../../../nodes/CisAutoCall/CisAutoCall.node');
	const settings = new CisAutoCall().description.properties.find(
		(p: IDataObject) => p.name === 'taskSettings',
	);
	const checkPhone = settings.options.find((option: IDataObject) => option.name === 'checkPhone');
	expect(checkPhone.hint).toMatch(/only the first batch/);
});
