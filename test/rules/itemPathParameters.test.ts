/**
 * Parameters whose expressions only copy fields of the item ({{ $json.phone }},
 * {{ { name: $json.name } }}) are read from each item's fields instead of n8n's expression engine
 * for every item (helpers/itemPaths.ts). Through n8n-core's engine with real HTTP: every item still
 * gets its own values, and the results are those of the same expressions evaluated by n8n.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { apiRequests, runAction, useActionSimulator } from '../actions/fixtures';

jest.setTimeout(60_000);

const sim = useActionSimulator();

const SINGLE = '/cis/api/v1/telephony/autoCallCandidate/single';

const createAndRun = (
	phone: string,
	variablesJson: string,
	callbackData: string,
): INodeParameters => ({
	resource: 'candidate',
	operation: 'createAndRun',
	botSettingsId: 'bot-1',
	inputMode: 'define',
	phone,
	candidateFields: { variablesJson, callbackData },
});

const bodies = () =>
	apiRequests(sim)
		.filter((request) => request.path === SINGLE)
		.map((request) => request.body as IDataObject);
const byPhone = (list: IDataObject[]) =>
	[...list].sort((a, b) => JSON.stringify(a.phone).localeCompare(JSON.stringify(b.phone)));

test('each item gets its own values from expressions of $json; the constant bot script reaches every item', async () => {
	const items = Array.from({ length: 30 }, (_, index) => ({
		phone: `7999${String(index).padStart(7, '0')}`,
		name: `Client ${index}`,
		crmId: `crm-${index}`,
	}));
	const result = await runAction(
		sim,
		createAndRun(
			'={{ $json.phone }}',
			'={{ { name: $json.name } }}',
			'={{ { crmId: $json.crmId } }}',
		),
		items,
	);
	expect(result.error).toBeUndefined();
	expect(byPhone(bodies())).toEqual(
		items.map((item) => ({
			phone: [item.phone],
			botSettingsId: 'bot-1',
			variables: { name: item.name },
			callbackData: { crmId: item.crmId },
		})),
	);
	expect(result.items.map((item) => [item.pairedItem, (item.json as IDataObject).phone])).toEqual(
		items.map((item, index) => [{ item: index }, [item.phone]]),
	);
});

test('odd items (missing, numeric, nested, empty fields) give what n8n gives for the same expressions', async () => {
	const items: IDataObject[] = [
		{ phone: '79990000001', name: 'Ann', crmId: 'c-1' },
		{ phone: 79990000002, name: 42, crmId: { nested: true } },
		{ name: 'No phone', crmId: 'c-3' },
		{ phone: '79990000004', crmId: 'c-4' },
		{ phone: ['79990000005', '79990000006'], name: '', crmId: null },
		{ phone: '79990000007', name: { first: 'Bo' }, crmId: 'c-7' },
	];
	const run = async (parameters: INodeParameters) => {
		sim.reset();
		const result = await runAction(sim, parameters, items, { continueOnFail: true });
		const outputs = result.items.map((item) => {
			const json = { ...(item.json as IDataObject) };
			delete json.autoCallCandidateId;
			delete json.autoCallId;
			delete json.response;
			return { json, pairedItem: item.pairedItem };
		});
		return { error: result.error, outputs, bodies: byPhone(bodies()) };
	};
	const read = await run(
		createAndRun(
			'={{ $json.phone }}',
			'={{ { name: $json.name } }}',
			'={{ { crmId: $json.crmId } }}',
		),
	);
	// The same expressions in parentheses are outside itemPaths.ts's grammar: n8n evaluates them.
	const evaluated = await run(
		createAndRun(
			'={{ ($json.phone) }}',
			'={{ ({ name: $json.name }) }}',
			'={{ ({ crmId: $json.crmId }) }}',
		),
	);
	expect(read).toEqual(evaluated);
	expect(read.bodies.length).toBeGreaterThanOrEqual(3);
	expect(read.outputs.some((output) => output.json.error !== undefined)).toBe(true);
});

/**
 * Each expression form helpers/itemPaths.ts reads from the item, against the same expression in
 * parentheses (outside its grammar, so n8n evaluates it): the same requests and outputs. Five items,
 * so that the middle ones are read from fields (n8n is asked on the first and the last).
 */
describe('every expression form read from the item gives what n8n gives', () => {
	const items: IDataObject[] = Array.from({ length: 5 }, (_, index) => {
		const phone = `7999000${String(index).padStart(4, '0')}`;
		return {
			phone,
			name: `Client ${index}`,
			'full name': phone,
			crm: { id: index, tags: ['lead', phone] },
			list: [{ x: phone }],
		};
	});
	const outcome = async (phone: string, variablesJson: string, callbackData: string) => {
		sim.reset();
		const result = await runAction(sim, createAndRun(phone, variablesJson, callbackData), items, {
			continueOnFail: true,
		});
		const outputs = result.items.map((item) => {
			const {
				autoCallCandidateId: _candidate,
				autoCallId: _task,
				response: _response,
				...json
			} = item.json as IDataObject;
			return { json, pairedItem: item.pairedItem };
		});
		return { error: result.error?.message, outputs, bodies: byPhone(bodies()) };
	};
	const inParentheses = (expression: string) =>
		expression.replace(/^=\{\{\s*([\s\S]*?)\s*\}\}$/, '={{ ($1) }}');

	test.each([
		['phone', '={{ $json.phone }}'],
		['phone', '={{$json.phone}}'],
		['phone', '={{ [$json.phone] }}'],
		['phone', '={{ $json["full name"] }}'],
		['phone', "={{ $json['crm'].tags[1] }}"],
		['phone', '={{ $json.list[0].x }}'],
		['phone', '={{ [] }}'],
		['variablesJson', '={{ { name: $json.name } }}'],
		['variablesJson', '={{ {} }}'],
		['callbackData', '={{ { crmId: $json.crm.id, "tag list": $json.crm.tags } }}'],
	])('%s = %s', async (parameterName, expression) => {
		const fields: Record<string, string> = {
			phone: '={{ $json.phone }}',
			variablesJson: '={{ { name: $json.name } }}',
			callbackData: '={{ {} }}',
		};
		const read = async (value: string) => {
			const chosen = { ...fields, [parameterName]: value };
			return await outcome(chosen.phone, chosen.variablesJson, chosen.callbackData);
		};
		const fromFields = await read(expression);
		const byN8n = await read(inParentheses(expression));
		expect(inParentheses(expression)).not.toBe(expression);
		expect(fromFields).toEqual(byN8n);
		expect(fromFields.outputs).toHaveLength(items.length);
	});
});
