/**
 * Node version 3 takes Callback Data as name/value pairs; a workflow saved with version 1
 * or 2 keeps its Callback Data (JSON) and sends it unchanged: as a fixed JSON text, as the README's
 * earlier expression inside the JSON, and as 0.1.0's example wrote it. Through n8n-core's engine
 * against the simulator. The same in a real n8n: test/e2e/upgrade.e2e.js (0.1.0's workflows).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { apiRequests, runAction, useActionSimulator } from '../actions/fixtures';

jest.setTimeout(120_000);

const sim = useActionSimulator({}, { settle: true });

const LEAD = { body: { phone: '+7 999 000-55-55', crmId: 'CRM-42' } };

const SAVED: [string, string, IDataObject][] = [
	['a fixed JSON text', '{"crmId": "CRM-1", "source": "web"}', { crmId: 'CRM-1', source: 'web' }],
	[
		"the README's expression inside the JSON",
		'={"crmId": "{{ $json.body.crmId }}"}',
		{ crmId: 'CRM-42' },
	],
	[
		"0.1.0's example expression",
		'={{ JSON.stringify({ crmId: String($json.body.crmId) }) }}',
		{ crmId: 'CRM-42' },
	],
];

const createAndRun = (callbackData: string): INodeParameters => ({
	resource: 'candidate',
	operation: 'createAndRun',
	botSettingsId: 'bot-1',
	phone: '={{ $json.body.phone }}',
	candidateFields: { callbackData },
});

describe.each([1, 2, 3])('version %s', (typeVersion) => {
	test.each(SAVED)(
		'Callback Data (JSON) as %s reaches the service unchanged',
		async (_name, saved, expected) => {
			const result = await runAction(sim, createAndRun(saved), [LEAD], { typeVersion });
			expect(result.error).toBeUndefined();
			const sent = apiRequests(sim).map((request) => (request.body as IDataObject).callbackData);
			expect(sent).toEqual([expected]);
		},
	);
});
