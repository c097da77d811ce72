/**
 * Callback Data as name/value pairs (node version 3, the default), each value a plain text
 * or an expression, on every candidate operation; the service receives one object. Callback Data
 * (JSON) stays, merged with the pairs (the pairs win). Through n8n-core's engine against the
 * simulator. Workflows saved with versions 1 and 2 (JSON only): test/upgrade/callbackDataJson.test.ts.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { CisAutoCall } from '../../nodes/CisAutoCall/CisAutoCall.node';
import { apiRequests, byId, jsonOf, runAction, useSimulatorWithTask } from '../actions/fixtures';

jest.setTimeout(120_000);

const { sim, taskId } = useSimulatorWithTask('Callback task');

const LEAD = { body: { name: 'Ann Lee', phone: '+7 999 000-55-55', crmId: 'CRM-42', score: 7 } };

const pairs = (...fields: [string, string][]) => ({
	field: fields.map(([name, value]) => ({ name, value })),
});

const operations: Record<string, (candidateFields: INodeParameters) => INodeParameters> = {
	'Create and Run': (candidateFields) => ({
		resource: 'candidate',
		operation: 'createAndRun',
		botSettingsId: 'bot-1',
		phone: '={{ $json.body.phone }}',
		candidateFields,
	}),
	'Add to Task': (candidateFields) => ({
		resource: 'candidate',
		operation: 'addToTask',
		autoCallId: byId(taskId()),
		phone: '={{ $json.body.phone }}',
		candidateFields,
	}),
	'Add Many to Task': (candidateFields) => ({
		resource: 'candidate',
		operation: 'addManyToTask',
		autoCallId: byId(taskId()),
		phone: '={{ $json.body.phone }}',
		candidateFields,
	}),
	'Create Batch From Template': (candidateFields) => ({
		resource: 'candidate',
		operation: 'createBatch',
		phone: '={{ $json.body.phone }}',
		candidateFields,
	}),
};

/** The Callback Data of every candidate the simulator received. */
function callbackDataSent(): unknown[] {
	return apiRequests(sim).flatMap((request) => {
		const body = request.body as IDataObject;
		const entries = Array.isArray(body.batch) ? (body.batch as IDataObject[]) : [body];
		return entries.map((entry) => entry.callbackData);
	});
}

test('version 3 is the default, and its Additional Fields offer Callback Data as pairs; versions 1 and 2 only the JSON', () => {
	const description = new CisAutoCall().description;
	expect(description.defaultVersion).toBe(3);
	const collections = description.properties.filter(
		(p) =>
			p.name === 'candidateFields' && String(p.displayOptions?.show?.operation) === 'createAndRun',
	);
	const condition = (p: (typeof collections)[number]) =>
		(p.displayOptions?.show?.['@version'] as Array<{ _cnd: { gte?: number; lt?: number } }>)[0]
			._cnd;
	const names = (p: (typeof collections)[number] | undefined) =>
		((p?.options ?? []) as Array<{ displayName: string }>).map((option) => option.displayName);
	expect(collections).toHaveLength(2);
	const newer = collections.find((p) => condition(p).gte === 3);
	expect(names(newer)).toEqual(expect.arrayContaining(['Callback Data', 'Callback Data (JSON)']));
	const older = collections.find((p) => condition(p).lt === 3);
	expect(names(older)).toContain('Callback Data (JSON)');
	expect(names(older)).not.toContain('Callback Data');
});

describe.each(Object.keys(operations))('%s, version 3', (name) => {
	test('pairs (a fixed value and expressions) reach the service as one object', async () => {
		const parameters = operations[name]({
			callbackDataPairs: pairs(
				['crmId', '={{ $json.body.crmId }}'],
				['source', 'web form'],
				['score', '={{ $json.body.score }}'],
			),
		});
		const result = await runAction(sim, parameters, [LEAD]);
		expect(result.error).toBeUndefined();
		expect(callbackDataSent()).toEqual([{ crmId: 'CRM-42', source: 'web form', score: 7 }]);
	});

	test('the JSON field still works beside the pairs, merged (the pairs win)', async () => {
		const parameters = operations[name]({
			callbackData: '={{ JSON.stringify({ crmId: "old", campaign: "spring" }) }}',
			callbackDataPairs: pairs(['crmId', '={{ $json.body.crmId }}']),
		});
		await runAction(sim, parameters, [LEAD]);
		expect(callbackDataSent()).toEqual([{ crmId: 'CRM-42', campaign: 'spring' }]);
	});

	test('a value without a name is refused by name and item, before any request', async () => {
		const parameters = operations[name]({
			callbackDataPairs: pairs(['', '={{ $json.body.crmId }}']),
		});
		const result = await runAction(sim, parameters, [LEAD], { continueOnFail: true });
		expect(apiRequests(sim)).toHaveLength(0);
		expect(jsonOf(result)[0].error).toBe(
			'Invalid callbackData[0].name: "" is empty while the value is "CRM-42"; enter the field\'s name, e.g. lead [item 0]',
		);
	});
});
