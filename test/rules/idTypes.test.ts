/**
 * One rule for every id the user gives (nodes/shared/validation.ts
 * optionalIdText / requireId): an id is text or a whole number. A true/false, an object, a list or
 * a fraction from an item is refused by name with the item, before any request, on every
 * operation that takes an id, instead of going out as `GET …/autoCall/true`. Through n8n-core's
 * engine against the simulator.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	API,
	apiRequests,
	byId,
	createTaskInState,
	fromList,
	jsonOf,
	runAction,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(120_000);

const sim = useActionSimulator();

/** Each operation that takes an id, with the id given by the expression {{ $json.id }}; `field`: the name errors use. */
const BY_ITEM = '={{ $json.id }}';
const OPERATIONS: Array<[string, string, INodeParameters]> = [
	[
		'Call Task → Get',
		'autoCallId',
		{ resource: 'callTask', operation: 'get', autoCallId: byId(BY_ITEM) },
	],
	[
		'Call Task → Start',
		'autoCallId',
		{ resource: 'callTask', operation: 'start', autoCallId: byId(BY_ITEM) },
	],
	[
		'Call Task → Pause',
		'autoCallId',
		{ resource: 'callTask', operation: 'pause', autoCallId: byId(BY_ITEM) },
	],
	[
		'Call Task → Stop',
		'autoCallId',
		{ resource: 'callTask', operation: 'stop', autoCallId: byId(BY_ITEM) },
	],
	[
		'Call Task → Get, picked "from the list" by an expression',
		'autoCallId',
		{ resource: 'callTask', operation: 'get', autoCallId: fromList(BY_ITEM) },
	],
	[
		'Call Task → Create (Bot Script ID)',
		'defaultExecData',
		{ resource: 'callTask', operation: 'create', name: 'Ids', defaultExecData: BY_ITEM },
	],
	[
		'Call Task → Create (Schedule ID)',
		'scheduleId',
		{
			resource: 'callTask',
			operation: 'create',
			name: 'Ids',
			defaultExecData: 'bot-1',
			additionalFields: { scheduleId: BY_ITEM },
		},
	],
	[
		'Candidate → Create and Run (Bot Script ID)',
		'botSettingsId',
		{
			resource: 'candidate',
			operation: 'createAndRun',
			phone: '79990004401',
			botSettingsId: BY_ITEM,
		},
	],
	[
		'Candidate → Create Batch From Template (Template ID)',
		'autoCallTemplateId',
		{
			resource: 'candidate',
			operation: 'createBatch',
			phone: '79990004402',
			taskSettings: { autoCallTemplateId: BY_ITEM },
		},
	],
	[
		'Candidate → Add to Task',
		'autoCallId',
		{
			resource: 'candidate',
			operation: 'addToTask',
			autoCallId: byId(BY_ITEM),
			phone: '79990004403',
		},
	],
	[
		'Candidate → Add Many to Task',
		'autoCallId',
		{
			resource: 'candidate',
			operation: 'addManyToTask',
			autoCallId: byId(BY_ITEM),
			phone: '79990004404',
		},
	],
	[
		'Candidate → Cancel',
		'autoCallId',
		{ resource: 'candidate', operation: 'cancel', autoCallId: byId(BY_ITEM), phone: '79990004405' },
	],
	[
		'Candidate → Depersonalize',
		'autoCallCandidateId',
		{ resource: 'candidate', operation: 'depersonalize', autoCallCandidateId: BY_ITEM },
	],
	[
		'Call → Depersonalize',
		'callId',
		{ resource: 'call', operation: 'depersonalize', callId: BY_ITEM },
	],
	[
		'Call → Delete Recording',
		'callId',
		{ resource: 'call', operation: 'deleteRecording', callId: BY_ITEM },
	],
];

const NOT_IDS: Array<[string, unknown, RegExp]> = [
	['true', true, /^true is a true\/false value, not an id/],
	['false', false, /^false is a true\/false value, not an id/],
	['an object', { id: 'task-1' }, /^\{"id":"task-1"\} is an object, not an id/],
	['a list', ['task-1'], /^\["task-1"\] is a list, not an id/],
	['a fraction', 1.5, /^1\.5 is not a whole number, not an id/],
];

describe('an id from an item that is not text or a whole number is refused by name, before any request', () => {
	describe.each(OPERATIONS)('%s', (_label, field, parameters) => {
		test.each(NOT_IDS)('%s', async (_kind, id, problem) => {
			// The bad id is on the second item: the first (a good id) is not sent either.
			const result = await runAction(sim, parameters, [{ id: 'fine-id-1' }, { id } as IDataObject]);
			const message = (result.error as Error | undefined)?.message ?? '';
			expect(message.startsWith(`Invalid ${field}: `)).toBe(true);
			expect(message.slice(`Invalid ${field}: `.length)).toMatch(problem);
			expect(message).toMatch(/\[item 1\]$/);
			expect(apiRequests(sim)).toEqual([]);
		});
	});
});

describe('text and whole numbers are ids', () => {
	test('a whole number from an item goes out as that number (Call Task → Get)', async () => {
		const task = createTaskInState(sim, { name: 'Numbered' });
		const numeric = 4242;
		sim.state.tasks.set(String(numeric), { ...task, id: String(numeric) });
		const result = await runAction(
			sim,
			{ resource: 'callTask', operation: 'get', autoCallId: byId(BY_ITEM) },
			[{ id: numeric }],
		);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.path)).toEqual([
			`${API}telephony/autoCall/4242`,
		]);
	});

	test('a text id from an item (Call Task → Start)', async () => {
		const task = createTaskInState(sim, { name: 'By text' });
		const result = await runAction(
			sim,
			{ resource: 'callTask', operation: 'start', autoCallId: byId(BY_ITEM) },
			[{ id: task.id }],
		);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.path)).toEqual([
			`${API}telephony/autoCall/${task.id}/play`,
		]);
		expect(jsonOf(result)[0]).toMatchObject({ autoCallId: task.id });
	});
});
