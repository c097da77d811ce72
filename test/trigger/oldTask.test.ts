// What becomes of a call task the trigger stops using (settings changed, new webhook URL,
// deactivation), for each "Old Task" choice; and that test listens change nothing registered.
// Hooks run in n8n-core's HookContext (engine harness) against the service simulator.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { request } from 'undici';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import { runWebhookMethod } from '../engine/harness';
import { startQuickSimulator, useSimulator } from '../lib/simulator';
import { newTaskParameters } from './fixtures';

const TOKEN = 'sim-token';
const BASE = 'http://127.0.0.1:5678/webhook/';
const TEST_BASE = 'http://127.0.0.1:5678/webhook-test/';
const CREATE_PATH = '/cis/api/v1/telephony/autoCall';

const sim = useSimulator(startQuickSimulator, { settle: true, emptyAfter: true });
const node = new CisAutoCallTrigger();
const credentialTypes = [new CisAutoCallApi(), new CisAutoCallLoginApi()];

const parameters = (overrides: INodeParameters = {}) =>
	newTaskParameters('Old task campaign', overrides);

type Method = 'checkExists' | 'create' | 'delete';

function hook(
	method: Method,
	staticData: IDataObject,
	params: INodeParameters,
	extra: { webhookBaseUrl?: string; mode?: 'trigger' | 'internal' | 'manual' } = {},
) {
	return runWebhookMethod({
		node,
		credentialTypes,
		credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: TOKEN } },
		parameters: params,
		method,
		staticData,
		webhookBaseUrl: extra.webhookBaseUrl ?? BASE,
		mode: extra.mode,
		// Stored with version 1.1: "Old Task" at the top level (version 2 keeps it under Advanced).
		typeVersion: 1.1,
	});
}

/** n8n's activation: checkExists, then create when it answered false. */
async function activate(staticData: IDataObject, params: INodeParameters, webhookBaseUrl = BASE) {
	const exists = await hook('checkExists', staticData, params, { webhookBaseUrl });
	if (exists.error) return exists;
	if (exists.result) return exists;
	return await hook('create', staticData, params, { webhookBaseUrl });
}

async function play(autoCallId: string): Promise<void> {
	const answer = await request(`${sim.url}/cis/api/v1/telephony/autoCall/${autoCallId}/play`, {
		method: 'POST',
		headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
	});
	await answer.body.text();
	expect(answer.statusCode).toBe(200);
}

const statusOf = (autoCallId: string) => sim.state.tasks.get(autoCallId)?.status;
const creates = () =>
	sim.requests.filter((r) => r.method === 'POST' && r.path === CREATE_PATH).length;

/** A trigger whose task is running (PROCESS), with the given "Old Task" choice. */
async function runningTrigger(oldTask?: string) {
	const params = parameters(oldTask === undefined ? {} : { oldTask });
	const staticData: IDataObject = {};
	const activated = await activate(staticData, params);
	expect(activated.error).toBeUndefined();
	const taskId = (staticData.registration as IDataObject).autoCallId as string;
	await play(taskId);
	expect(statusOf(taskId)).toBe('PROCESS');
	return { params, staticData, taskId };
}

describe('settings changed while active: a new task replaces the old one', () => {
	test.each([
		['default (Pause It)', 'PAUSED', undefined],
		['Pause It', 'PAUSED', 'pause'],
		['Stop It When Replaced', 'HALTED', 'stop'],
		['Leave It Running', 'PROCESS', 'leave'],
	])('%s: the old task ends %s', async (_label, expected, oldTask) => {
		const { params, staticData, taskId } = await runningTrigger(oldTask);
		const changed = { ...params, name: 'Old task campaign v2' };
		const activated = await activate(staticData, changed);
		expect(activated.error).toBeUndefined();
		const newTaskId = (staticData.registration as IDataObject).autoCallId as string;
		expect(newTaskId).not.toBe(taskId);
		expect(creates()).toBe(2);
		expect(statusOf(taskId)).toBe(expected);
		expect(statusOf(newTaskId)).toBe('BLANK');
		expect(staticData.parkedRegistration).toBeUndefined();
	});

	test('a new webhook URL (another n8n address) counts as a change: the old task is paused', async () => {
		const { params, staticData, taskId } = await runningTrigger();
		const activated = await activate(staticData, params, 'https://n8n.example.com/webhook/');
		expect(activated.error).toBeUndefined();
		expect(creates()).toBe(2);
		expect(statusOf(taskId)).toBe('PAUSED');
		expect((staticData.registration as IDataObject).webhookUrl).toMatch(
			/^https:\/\/n8n\.example\.com\/webhook\//,
		);
	});

	test('when the old task cannot be paused, activation fails with what to do, and no second task is created', async () => {
		const { params, staticData, taskId } = await runningTrigger();
		const before = JSON.stringify(staticData);
		sim.injectFault({
			method: 'POST',
			path: `${CREATE_PATH}/${taskId}/pause`,
			status: 403,
			body: { error: 'Forbidden' },
		});
		const activated = await activate(staticData, { ...params, name: 'Old task campaign v2' });
		expect(activated.error).toBeInstanceOf(NodeOperationError);
		expect(activated.error?.message).toBe(
			`The call task ${taskId} could not be paused: The service answered 403 to POST /cis/api/v1/telephony/autoCall/${taskId}/pause: Forbidden`,
		);
		expect((activated.error as NodeOperationError).description).toMatch(
			/none was created.*"Leave It Running"/,
		);
		expect(creates()).toBe(1);
		expect(statusOf(taskId)).toBe('PROCESS');
		expect(JSON.stringify(staticData)).toBe(before);
		expect(JSON.stringify(activated.error)).not.toContain(TOKEN);
	});

	test('a pause answered 200 with an error in its body is not taken for a pause: activation fails, nothing new is created', async () => {
		const { params, staticData, taskId } = await runningTrigger();
		const before = JSON.stringify(staticData);
		sim.injectFault({
			method: 'POST',
			path: `${CREATE_PATH}/${taskId}/pause`,
			status: 200,
			body: { error: 'Task is locked' },
		});
		const activated = await activate(staticData, { ...params, name: 'Old task campaign v2' });
		expect(activated.error).toBeInstanceOf(NodeOperationError);
		expect(activated.error?.message).toMatch(
			new RegExp(`^The call task ${taskId} could not be paused: Unexpected answer`),
		);
		expect(creates()).toBe(1);
		expect(statusOf(taskId)).toBe('PROCESS');
		expect(JSON.stringify(staticData)).toBe(before);
	});

	test('old task paused but the new one refused: going back to the old settings resumes the old task', async () => {
		const { params, staticData, taskId } = await runningTrigger();
		sim.injectFault({ method: 'POST', path: CREATE_PATH, status: 400, body: { error: 'Bad bot' } });
		const failed = await activate(staticData, { ...params, defaultExecData: 'no-such-bot' });
		expect(failed.error?.message).toMatch(/400/);
		expect(statusOf(taskId)).toBe('PAUSED');
		expect(staticData.registration).toBeUndefined();
		const reverted = await activate(staticData, params);
		expect(reverted.error).toBeUndefined();
		expect(statusOf(taskId)).toBe('PROCESS');
		expect((staticData.registration as IDataObject).autoCallId).toBe(taskId);
		expect(sim.state.tasks.size).toBe(1);
	});

	test('a task deleted in the service meanwhile is no obstacle: the new task is created', async () => {
		const { params, staticData, taskId } = await runningTrigger();
		sim.state.tasks.delete(taskId);
		const activated = await activate(staticData, { ...params, name: 'Old task campaign v2' });
		expect(activated.error).toBeUndefined();
		expect(creates()).toBe(2);
	});
});

describe('deactivation', () => {
	test.each([
		['default (Pause It)', 'PAUSED', undefined],
		['Pause It', 'PAUSED', 'pause'],
		// Stopping is final and n8n also deactivates a trigger when its workflow is saved (1.x) or
		// the trigger is changed (2.x): the task is paused now and stopped only once replaced.
		['Stop It When Replaced', 'PAUSED', 'stop'],
		['Leave It Running', 'PROCESS', 'leave'],
	])('%s: the task ends %s', async (_label, expected, oldTask) => {
		const { params, staticData, taskId } = await runningTrigger(oldTask);
		const deleted = await hook('delete', staticData, params);
		expect(deleted.error).toBeUndefined();
		expect(deleted.result).toBe(true);
		expect(statusOf(taskId)).toBe(expected);
		expect(staticData.registration).toBeUndefined();
		expect((staticData.parkedRegistration as IDataObject).autoCallId).toBe(taskId);
		expect(creates()).toBe(1);
	});

	test('Pause It: activating again with unchanged settings takes the task back and resumes it', async () => {
		const { params, staticData, taskId } = await runningTrigger('pause');
		await hook('delete', staticData, params);
		expect(statusOf(taskId)).toBe('PAUSED');
		const activated = await activate(staticData, params);
		expect(activated.error).toBeUndefined();
		expect(creates()).toBe(1);
		expect(statusOf(taskId)).toBe('PROCESS');
		expect((staticData.registration as IDataObject).autoCallId).toBe(taskId);
		expect(staticData.registration).not.toHaveProperty('pausedByTrigger');
		expect(staticData.parkedRegistration).toBeUndefined();
	});

	test('a task that was already paused by someone is taken back as it is (not resumed)', async () => {
		const { params, staticData, taskId } = await runningTrigger('pause');
		const answer = await request(`${sim.url}/cis/api/v1/telephony/autoCall/${taskId}/pause`, {
			method: 'POST',
			headers: { authorization: `Bearer ${TOKEN}` },
		});
		await answer.body.text();
		await hook('delete', staticData, params);
		await activate(staticData, params);
		expect(statusOf(taskId)).toBe('PAUSED');
		expect(sim.requests.filter((r) => r.path.endsWith('/play'))).toHaveLength(1);
	});

	test('Stop It When Replaced: deactivate (paused), then activate with changed settings: the old task is stopped', async () => {
		const { params, staticData, taskId } = await runningTrigger('stop');
		await hook('delete', staticData, params);
		expect(statusOf(taskId)).toBe('PAUSED');
		const activated = await activate(staticData, { ...params, name: 'Old task campaign v2' });
		expect(activated.error).toBeUndefined();
		expect(statusOf(taskId)).toBe('HALTED');
		expect(creates()).toBe(2);
	});

	test('a task stopped meanwhile cannot be taken back: a new one is created', async () => {
		const { params, staticData, taskId } = await runningTrigger('pause');
		await hook('delete', staticData, params);
		const answer = await request(`${sim.url}/cis/api/v1/telephony/autoCall/${taskId}/halted`, {
			method: 'POST',
			headers: { authorization: `Bearer ${TOKEN}` },
		});
		await answer.body.text();
		const activated = await activate(staticData, params);
		expect(activated.error).toBeUndefined();
		expect(creates()).toBe(2);
		expect((staticData.registration as IDataObject).autoCallId).not.toBe(taskId);
	});

	test('when the task cannot be paused, delete() fails saying so (n8n logs it and deactivates) and the registration stays', async () => {
		const { params, staticData, taskId } = await runningTrigger();
		const before = JSON.stringify(staticData);
		sim.injectFault({
			method: 'POST',
			path: `${CREATE_PATH}/${taskId}/pause`,
			status: 403,
			body: { error: 'Forbidden' },
		});
		const deleted = await hook('delete', staticData, params);
		expect(deleted.error).toBeInstanceOf(NodeOperationError);
		expect(deleted.error?.message).toMatch(
			new RegExp(`^The call task ${taskId} could not be paused: The service answered 403`),
		);
		expect((deleted.error as NodeOperationError).description).toMatch(/may still be calling/);
		expect(statusOf(taskId)).toBe('PROCESS');
		expect(JSON.stringify(staticData)).toBe(before);
		// n8n retries a failed delete(); once it goes through, the task is paused
		const again = await hook('delete', staticData, params);
		expect(again.error).toBeUndefined();
		expect(statusOf(taskId)).toBe('PAUSED');
	});
});

describe('a task is taken back to the state it was in, never further', () => {
	/** A trigger whose task waits for its start moment (READY), as a task with Start Type "time" does. */
	async function scheduledTrigger() {
		const params = parameters();
		const staticData: IDataObject = {};
		expect((await activate(staticData, params)).error).toBeUndefined();
		const taskId = (staticData.registration as IDataObject).autoCallId as string;
		sim.state.tasks.get(taskId)!.status = 'READY';
		return { params, staticData, taskId };
	}
	const plays = () => sim.requests.filter((r) => r.path.endsWith('/play'));

	test('Get answering {"item": {...}}: a READY task is paused on deactivation and not started on re-activation', async () => {
		const { params, staticData, taskId } = await scheduledTrigger();
		sim.injectFault({
			method: 'GET',
			path: `${CREATE_PATH}/${taskId}`,
			status: 200,
			body: { item: { id: taskId, status: 'READY' } },
		});
		expect((await hook('delete', staticData, params)).error).toBeUndefined();
		expect(statusOf(taskId)).toBe('PAUSED');
		expect((await activate(staticData, params)).error).toBeUndefined();
		expect(plays()).toHaveLength(0);
		expect(statusOf(taskId)).toBe('PAUSED');
		expect((staticData.registration as IDataObject).autoCallId).toBe(taskId);
	});

	test('a status that cannot be read (500, or an answer without a status) is not taken for "running": no /play', async () => {
		for (const fault of [
			{ status: 500 },
			{ status: 200, body: { task: { id: 'x', status: 'READY' } } },
		]) {
			sim.reset();
			sim.requests.length = 0;
			const { params, staticData, taskId } = await scheduledTrigger();
			sim.injectFault({ method: 'GET', path: `${CREATE_PATH}/${taskId}`, times: 10, ...fault });
			expect((await hook('delete', staticData, params)).error).toBeUndefined();
			expect(statusOf(taskId)).toBe('PAUSED');
			expect((await activate(staticData, params)).error).toBeUndefined();
			expect([fault, plays().length, statusOf(taskId)]).toEqual([fault, 0, 'PAUSED']);
		}
	});
});

describe('test listens never change the production registration', () => {
	test('n8n\'s sequence ("Listen for test event": checkExists/create on the test URL with the test\'s own static data, then delete): nothing sent, nothing changed', async () => {
		const { params, staticData, taskId } = await runningTrigger();
		const production = JSON.stringify(staticData);
		const requestsBefore = sim.requests.length;
		const testStaticData: IDataObject = {};
		expect(
			(
				await hook('checkExists', testStaticData, params, {
					mode: 'manual',
					webhookBaseUrl: TEST_BASE,
				})
			).result,
		).toBe(false);
		expect(
			(await hook('create', testStaticData, params, { mode: 'manual', webhookBaseUrl: TEST_BASE }))
				.result,
		).toBe(true);
		// n8n's TestWebhooks.deactivateWebhooks runs delete() in mode 'internal'
		expect(
			(
				await hook('delete', testStaticData, params, {
					mode: 'internal',
					webhookBaseUrl: TEST_BASE,
				})
			).result,
		).toBe(true);
		expect(testStaticData).toEqual({});
		expect(sim.requests.length).toBe(requestsBefore);
		expect(JSON.stringify(staticData)).toBe(production);
		expect(statusOf(taskId)).toBe('PROCESS');
	});

	test('even handed the production static data, test-mode hooks send nothing and change nothing', async () => {
		for (const oldTask of ['pause', 'stop']) {
			const { params, staticData, taskId } = await runningTrigger(oldTask);
			const production = JSON.stringify(staticData);
			const requestsBefore = sim.requests.length;
			const changed = { ...params, name: 'Changed while testing' };
			for (const method of ['checkExists', 'create', 'delete'] as const) {
				const result = await hook(method, staticData, changed, {
					mode: 'manual',
					webhookBaseUrl: TEST_BASE,
				});
				expect(result.error).toBeUndefined();
			}
			expect(sim.requests.length).toBe(requestsBefore);
			expect(JSON.stringify(staticData)).toBe(production);
			expect(statusOf(taskId)).toBe('PROCESS');
		}
	});
});
