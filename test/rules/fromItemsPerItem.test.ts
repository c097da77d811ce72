/**
 * In the "Use Fields of the Input Items" mode, a parameter holding an expression
 * is resolved for every item, as in the other mode; before, item 0's value served every item
 * without a word (a candidate could go to another item's task or bot script).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	apiRequests,
	byId,
	candidate,
	createTaskInState,
	jsonOf,
	runAction,
	useActionSimulator,
} from '../actions/fixtures';

const sim = useActionSimulator();

const fromItems = (operation: string, extra: INodeParameters): INodeParameters => ({
	resource: 'candidate',
	operation,
	inputMode: 'fromItems',
	...extra,
});

const bodies = () => apiRequests(sim).map((request) => request.body as IDataObject);

test('Create and Run: the bot script given by an expression is read for each item', async () => {
	const result = await runAction(
		sim,
		fromItems('createAndRun', { botSettingsId: '={{ $json.bot }}', phoneField: 'phone' }),
		[
			{ bot: 'bot-A', phone: '79990000001' },
			{ bot: 'bot-B', phone: '79990000002' },
		],
	);
	expect(result.error).toBeUndefined();
	expect(bodies().map((body) => [body.botSettingsId, body.phone])).toEqual([
		['bot-A', ['79990000001']],
		['bot-B', ['79990000002']],
	]);
	expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
});

test('Create and Run: field names given by expressions are read for each item', async () => {
	const result = await runAction(
		sim,
		fromItems('createAndRun', {
			botSettingsId: 'bot-1',
			phoneField: '={{ $json.phoneIn }}',
			callbackDataFields: '={{ $json.keep }}',
		}),
		[
			{ phoneIn: 'tel', tel: '79990000001', keep: 'crmId', crmId: 'c-1' },
			{ phoneIn: 'mobile', mobile: '79990000002', keep: 'leadId', leadId: 'l-2' },
		],
	);
	expect(result.error).toBeUndefined();
	expect(bodies()).toEqual([
		{ phone: ['79990000001'], botSettingsId: 'bot-1', callbackData: { crmId: 'c-1' } },
		{ phone: ['79990000002'], botSettingsId: 'bot-1', callbackData: { leadId: 'l-2' } },
	]);
});

test('a value dragged in as the field name is refused on every item, not only the first', async () => {
	const result = await runAction(
		sim,
		fromItems('createAndRun', { botSettingsId: 'bot-1', phoneField: '={{ $json.phone }}' }),
		[{ phone: '79990000001' }, { phone: '79990000002' }],
		{ continueOnFail: true },
	);
	expect(result.error).toBeUndefined();
	for (const [index, json] of jsonOf(result).entries()) {
		expect(json.error).toMatch(
			new RegExp(
				`Invalid phoneField: "7999000000${index + 1}" is a value \\(the item's field "phone"\\), not a field name.*\\[item ${index}\\]`,
			),
		);
	}
	expect(apiRequests(sim)).toHaveLength(0);
});

/** Two tasks, and two items each naming its own task (autoCallId by expression): the run of that operation. */
async function runToTwoTasks(operation: string, phones: [string, string]) {
	const [first, second] = [
		createTaskInState(sim, { name: 'First' }),
		createTaskInState(sim, { name: 'Second' }),
	];
	const result = await runAction(
		sim,
		fromItems(operation, { autoCallId: byId('={{ $json.task }}'), phoneField: 'phone' }),
		[
			{ task: first.id, phone: phones[0] },
			{ task: second.id, phone: phones[1] },
		],
	);
	expect(result.error).toBeUndefined();
	return { first, second, result };
}

test('Add to Task: each item goes to the task its expression names', async () => {
	const { first, second, result } = await runToTwoTasks('addToTask', [
		'79990000011',
		'79990000012',
	]);
	expect(bodies().map((body) => [body.autoCallId, body.phone])).toEqual([
		[first.id, ['79990000011']],
		[second.id, ['79990000012']],
	]);
	expect(jsonOf(result).map((json) => json.autoCallId)).toEqual([first.id, second.id]);
});

test('Add Many to Task: each entry names the task of its item', async () => {
	const { first, second } = await runToTwoTasks('addManyToTask', ['79990000021', '79990000022']);
	const entries = bodies().flatMap((body) => body.batch as IDataObject[]);
	expect(entries.map((entry) => [entry.autoCallId, entry.phone])).toEqual([
		[first.id, ['79990000021']],
		[second.id, ['79990000022']],
	]);
});

test('Create Batch From Template: task settings given by expressions are read for each item (a task per bot script)', async () => {
	const result = await runAction(
		sim,
		fromItems('createBatch', {
			phoneField: 'phone',
			taskSettings: { botSettingsId: '={{ $json.bot }}' },
		}),
		[
			{ bot: 'bot-A', phone: '79990000031' },
			{ bot: 'bot-B', phone: '79990000032' },
			{ bot: 'bot-A', phone: '79990000033' },
		],
	);
	expect(result.error).toBeUndefined();
	const entries = bodies().flatMap((body) => body.batch as IDataObject[]);
	expect(entries.map((entry) => [entry.botSettingsId, entry.phone]).sort()).toEqual([
		['bot-A', ['79990000031']],
		['bot-A', ['79990000033']],
		['bot-B', ['79990000032']],
	]);
	const tasks = jsonOf(result).map((json) => json.autoCallId);
	expect(tasks[0]).toBe(tasks[2]);
	expect(tasks[1]).not.toBe(tasks[0]);
});

test('Add Many to Task: Start the Task Too given by an expression is read for each item (a request per value)', async () => {
	const task = createTaskInState(sim, { name: 'Campaign' });
	const result = await runAction(
		sim,
		candidate('addManyToTask', {
			autoCallId: byId(task.id),
			phone: '={{ $json.phone }}',
			forceStart: '={{ $json.start }}',
		}),
		[
			{ phone: '79990000051', start: false },
			{ phone: '79990000052', start: true },
			{ phone: '79990000053', start: false },
		],
	);
	expect(result.error).toBeUndefined();
	expect(
		bodies().map((body) => [
			body.forceStart,
			(body.batch as IDataObject[]).map((entry) => entry.phone),
		]),
	).toEqual([
		[false, [['79990000051'], ['79990000053']]],
		[true, [['79990000052']]],
	]);
	expect(
		bodies()
			.flatMap((body) => body.batch as IDataObject[])
			.every((entry) => !('forceStart' in entry)),
	).toBe(true);
	expect(result.items.map((item) => item.pairedItem)).toEqual([
		{ item: 0 },
		{ item: 1 },
		{ item: 2 },
	]);
});
