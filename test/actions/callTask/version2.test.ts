/**
 * Node version 2 (the default for new nodes): Call Task → Create's short panel, Simplify on Get and
 * Get Many, and how many people a started task holds. Version 1 (stored workflows) is held by the
 * other tests of this folder. Through n8n-core's engine with real HTTP to the simulator.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { CisAutoCall } from '../../../nodes/CisAutoCall/CisAutoCall.node';
import {
	apiRequests,
	byId,
	CAMPAIGN_FIELDS,
	createTaskInState,
	jsonOf,
	runAction,
	useActionSimulator,
} from '../fixtures';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { fieldCount } = require('../../ui/expected') as {
	fieldCount: (description: unknown, values: IDataObject) => number;
};

jest.setTimeout(60_000);

const sim = useActionSimulator();

const V2 = { typeVersion: 2 };

async function createdBody(parameters: INodeParameters, typeVersion: number): Promise<IDataObject> {
	sim.requests.length = 0;
	const result = await runAction(
		sim,
		{ resource: 'callTask', operation: 'create', ...parameters },
		[{}],
		{ typeVersion },
	);
	expect(result.error).toBeUndefined();
	const [request] = apiRequests(sim);
	return request.body as IDataObject;
}

describe('Call Task → Create, short panel (version 2)', () => {
	test('new nodes get version 2 or later (3: Callback Data pairs); its panel shows the few fields most users set, version 1 keeps every field', () => {
		const description = new CisAutoCall().description;
		expect(description.defaultVersion).toBeGreaterThanOrEqual(2);
		const values = { resource: 'callTask', operation: 'create' };
		const v2 = fieldCount({ ...description, defaultVersion: 2 }, values);
		const v1 = fieldCount({ ...description, defaultVersion: 1 }, values);
		expect([v1, v2]).toEqual([17, 9]);
	});

	test('the same task from either panel: settings in Campaign Settings and Advanced give the body version 1 gives', async () => {
		const onPanel = {
			name: 'Same task',
			defaultExecData: 'bot-42',
			startType: 'time',
			startMoment: '2026-12-01T09:30:00',
		};
		const campaign = {
			...CAMPAIGN_FIELDS,
			callWindow: 'candidateTime',
			allowCallTimeFrom: '09:00',
			allowCallTimeTo: '20:30',
			redialRules: { busy: { redial: true, time: 300, count: 2 } },
		};
		const campaignExtras = {
			taskComment: 'from n8n',
			callStrategy: 'PARALLEL',
			lifetime: 86400,
			candidateLimit: 4,
		};
		const advancedExtras = {
			detectRobot: true,
			detectRobotMode: 'block',
			detectRobotGreeting: 'audio-1',
			phoneNormalization: 'RU',
			checkPhone: true,
			extraFields: '{"additionalOptions": {"fz230": true}}',
		};
		const v1 = await createdBody(
			{
				...onPanel,
				...campaign,
				additionalFields: { ...campaignExtras, ...advancedExtras },
			} as INodeParameters,
			1,
		);
		const v2 = await createdBody(
			{
				...onPanel,
				campaignSettings: { ...campaign, ...campaignExtras },
				advanced: advancedExtras,
			} as INodeParameters,
			2,
		);
		expect(v2).toEqual(v1);
		// The check can fail: the settings really reached the body.
		expect(v2).toMatchObject({
			cidType: 'gornum',
			callStrategy: 'PARALLEL',
			cps: 1.03,
			additionalOptions: { detectRobot: true, fz230: true, recTrimLeft: 2 },
		});
	});

	test('a first task: only the name and the bot script; the defaults of the collections apply as in version 1', async () => {
		const minimal = { name: 'First', defaultExecData: 'bot-1' };
		expect(await createdBody(minimal, 2)).toEqual(await createdBody(minimal, 1));
	});
});

describe('Simplify on Get and Get Many (version 2, on by default)', () => {
	const simple = (task: IDataObject) => ({
		autoCallId: task.id,
		name: task.name,
		status: 'Draft',
		statusCode: 'BLANK',
		people: 0,
		peopleWaiting: 0,
		peopleInProgress: 0,
		peopleDone: 0,
		peopleSuccessful: 0,
		peopleFailed: 0,
		peopleCancelled: 0,
		calls: 0,
		createdAt: task.createdAt,
		updatedAt: task.updatedAt,
	});

	test('Get: ID, name, status in words, counts and dates; off: the full answer as in version 1', async () => {
		const stored = createTaskInState(sim, { name: 'Spring' });
		const simplified = await runAction(
			sim,
			{ resource: 'callTask', operation: 'get', autoCallId: byId(stored.id) },
			[{}],
			V2,
		);
		expect(jsonOf(simplified)).toEqual([simple(stored as unknown as IDataObject)]);
		const full = await runAction(
			sim,
			{ resource: 'callTask', operation: 'get', autoCallId: byId(stored.id), simplify: false },
			[{}],
			V2,
		);
		const v1 = await runAction(
			sim,
			{ resource: 'callTask', operation: 'get', autoCallId: byId(stored.id) },
			[{}],
			{ typeVersion: 1 },
		);
		expect(jsonOf(full)).toEqual(jsonOf(v1));
		expect(jsonOf(full)[0]).toHaveProperty('stats');
	});

	test('Get Many: every task simplified, each paired with its input item', async () => {
		const tasks = [
			createTaskInState(sim, { name: 'One' }),
			createTaskInState(sim, { name: 'Two' }),
		];
		const result = await runAction(
			sim,
			{ resource: 'callTask', operation: 'getMany', returnAll: true, options: {} },
			[{}],
			V2,
		);
		expect(result.error).toBeUndefined();
		expect(
			jsonOf(result)
				.map((task) => task.name)
				.sort(),
		).toEqual(['One', 'Two']);
		for (const task of jsonOf(result)) {
			const stored = tasks.find(
				(candidate) => candidate.id === task.autoCallId,
			) as unknown as IDataObject;
			expect(task).toEqual(simple(stored));
		}
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
	});

	test('a status the node does not know is passed through as the service wrote it', async () => {
		const stored = createTaskInState(sim, { name: 'Odd' });
		(sim.state.tasks.get(stored.id) as unknown as IDataObject).status = 'ARCHIVED';
		const result = await runAction(
			sim,
			{ resource: 'callTask', operation: 'get', autoCallId: byId(stored.id) },
			[{}],
			V2,
		);
		expect(jsonOf(result)[0]).toMatchObject({ status: 'ARCHIVED', statusCode: 'ARCHIVED' });
	});
});

describe('Call Task → Start says how many people the task holds', () => {
	test("from the answer's statistics, with no request of its own", async () => {
		const stored = createTaskInState(sim, { name: 'Three people' });
		for (const phone of ['79990000501', '79990000502', '79990000503']) {
			await runAction(sim, {
				resource: 'candidate',
				operation: 'addToTask',
				autoCallId: byId(stored.id),
				phone,
			});
		}
		sim.requests.length = 0;
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'start',
			autoCallId: byId(stored.id),
		});
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0]).toMatchObject({
			success: true,
			autoCallId: stored.id,
			action: 'play',
			peopleInTask: 3,
		});
		expect(apiRequests(sim).map((request) => `${request.method} ${request.path}`)).toEqual([
			`POST /cis/api/v1/telephony/autoCall/${stored.id}/play`,
		]);
	});
});
