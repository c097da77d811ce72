/**
 * Retries: what is repeated (429 after its Retry-After, 5xx, dropped connections and timeouts of
 * safe requests, a creation the platform de-duplicates) and what never is (a creating request whose
 * outcome is unknown: one request, and the item says why). Through n8n-core's engine with real HTTP
 * to the simulator and its injected faults.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { FaultSpec, Simulator } from '../../simulator';
import {
	apiRequests,
	byId,
	candidate,
	candidateIdFor,
	closedPortUrl,
	createAndRunByExpression,
	createBatch,
	createTaskInState,
	depersonalizeCall,
	jsonOf,
	numberedPhones,
	runAction,
	startGarbageServer,
	useActionSimulator,
} from '../actions/fixtures';

jest.setTimeout(60_000);

const SINGLE = '/cis/api/v1/telephony/autoCallCandidate/single';
const TEMPLATE_BATCH = '/cis/api/v1/telephony/autoCallCandidate/single/batch';

const sim = useActionSimulator();
const { phoneOf, phoneItems } = numberedPhones('7999');
const createAndRun = (options: INodeParameters = {}) => createAndRunByExpression({ options });

describe('retries', () => {
	test('429 is retried after Retry-After given in seconds', async () => {
		const [call] = [sim.addCall()];
		sim.injectFault({
			path: `/cis/api/v1/calls/${call.id}/depersonalization`,
			status: 429,
			headers: { 'retry-after': '1' },
		});
		const result = await runAction(sim, depersonalizeCall({ maxRetries: 1 }), [
			{ callId: call.id },
		]);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.status)).toEqual([429, 200]);
		// a lower bound only: a busy machine may take longer
		const [first, second] = apiRequests(sim);
		expect(second.at - first.at).toBeGreaterThanOrEqual(990);
	});

	test('429 is retried after Retry-After given as an HTTP date', async () => {
		const call = sim.addCall();
		const retryAt = Math.ceil(Date.now() / 1000) * 1000 + 2000;
		sim.injectFault({
			path: `/cis/api/v1/calls/${call.id}/depersonalization`,
			status: 429,
			headers: { 'retry-after': new Date(retryAt).toUTCString() },
		});
		const result = await runAction(sim, depersonalizeCall({ maxRetries: 1 }), [
			{ callId: call.id },
		]);
		expect(result.error).toBeUndefined();
		const [first, second] = apiRequests(sim);
		expect([first.status, second.status]).toEqual([429, 200]);
		// Longer than any first backoff (at most 500 ms): the date was honoured.
		expect(second.at).toBeGreaterThanOrEqual(retryAt - 15);
		expect(second.at - first.at).toBeGreaterThan(1000);
	});

	test('429 is retried for a creating operation too (nothing was created), without duplicates', async () => {
		sim.injectFault({ path: SINGLE, status: 429, headers: { 'retry-after': '0' }, times: 2 });
		const result = await runAction(sim, createAndRun({ maxRetries: 2 }), [{ phone: phoneOf(1) }]);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.status)).toEqual([429, 429, 200]);
		expect(jsonOf(result)[0].autoCallCandidateId).toBe(candidateIdFor(sim, phoneOf(1)));
	});

	test.each([
		['negative', () => '-5'],
		['zero', () => '0'],
		['a date in the past', () => new Date(Date.now() - 60_000).toUTCString()],
	])(
		'a Retry-After that is %s gets the normal backoff, not an immediate repeat',
		async (_name, retryAfter) => {
			const call = sim.addCall();
			sim.injectFault({
				path: `/cis/api/v1/calls/${call.id}/depersonalization`,
				status: 429,
				headers: { 'retry-after': retryAfter() },
			});
			const result = await runAction(sim, depersonalizeCall({ maxRetries: 1 }), [
				{ callId: call.id },
			]);
			expect(result.error).toBeUndefined();
			const [first, second] = apiRequests(sim);
			expect([first.status, second.status]).toEqual([429, 200]);
			// The first backoff is 250..500 ms.
			expect(second.at - first.at).toBeGreaterThanOrEqual(240);
		},
	);

	test('a Retry-After longer than the longest wait (60 s): the item fails at once, saying how long the service asked to wait', async () => {
		const call = sim.addCall();
		sim.injectFault({
			path: `/cis/api/v1/calls/${call.id}/depersonalization`,
			status: 429,
			headers: { 'retry-after': '120' },
		});
		const result = await runAction(
			sim,
			depersonalizeCall({ maxRetries: 3 }),
			[{ callId: call.id }],
			{ continueOnFail: true },
		);
		expect(apiRequests(sim)).toHaveLength(1);
		const [json] = jsonOf(result);
		expect(json.error).toMatch(
			/answered 429 .* asked to wait 120 s before the next request, longer than the 60 s this node waits/,
		);
		expect(json.description).toMatch(/Nothing was carried out/);
	}, 15_000);

	test('429 beyond Max Retries: the item fails after maxRetries + 1 attempts and says so', async () => {
		const call = sim.addCall();
		sim.injectFault({
			path: `/cis/api/v1/calls/${call.id}/depersonalization`,
			status: 429,
			headers: { 'retry-after': '0' },
			times: 10,
		});
		const result = await runAction(sim, depersonalizeCall({ maxRetries: 2 }), [
			{ callId: call.id },
		]);
		expect(apiRequests(sim)).toHaveLength(3);
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/429.*after 3 attempts/);
		expect(error.description).toMatch(/too many requests/i);
	});

	test('connection refused is retried; the failure names the cause and maxRetries + 1 attempts', async () => {
		const url = await closedPortUrl();
		const started = Date.now();
		const result = await runAction({ ...sim, url } as Simulator, createAndRun({ maxRetries: 2 }), [
			{ phone: phoneOf(1) },
		]);
		const elapsed = Date.now() - started;
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/refused/i);
		expect(error.message).toMatch(/ECONNREFUSED/);
		expect(error.message).toMatch(/after 3 attempts/);
		expect(error.message).not.toMatch(/outcome unknown/i);
		expect(error.description).toMatch(/Base URL/);
		// Two backoffs with jitter: 250..500 ms, then 500..1000 ms.
		expect(elapsed).toBeGreaterThanOrEqual(740);
	});

	test.each([
		['502', { status: 502 }],
		['503', { status: 503 }],
		['504', { status: 504 }],
		['a dropped connection', { drop: true }],
	])('%s is retried for a safe operation (call → depersonalize)', async (_name, fault) => {
		const call = sim.addCall();
		sim.injectFault({ path: `/cis/api/v1/calls/${call.id}/depersonalization`, times: 2, ...fault });
		const result = await runAction(sim, depersonalizeCall({ maxRetries: 2 }), [
			{ callId: call.id },
		]);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim)).toHaveLength(3);
		expect(jsonOf(result)).toEqual([{ success: true, callId: call.id, recordingKept: false }]);
		expect(sim.state.calls.get(call.id)?.depersonalized).toBe(true);
	});

	test('503 is retried for Call → Delete Recording and Candidate → Depersonalize', async () => {
		const call = sim.addCall();
		sim.injectFault({ path: `/cis/api/v1/calls/${call.id}/record`, status: 503 });
		const deleted = await runAction(sim, {
			resource: 'call',
			operation: 'deleteRecording',
			callId: call.id,
		});
		expect(deleted.error).toBeUndefined();
		expect(sim.state.calls.get(call.id)?.record).toBeNull();

		const created = await runAction(sim, createAndRun(), [{ phone: phoneOf(5) }]);
		const candidateId = jsonOf(created)[0].autoCallCandidateId as string;
		sim.injectFault({ path: /\/autoCallCandidate\/[^/]+\/depersonalization$/, drop: true });
		const result = await runAction(
			sim,
			candidate('depersonalize', { autoCallCandidateId: candidateId }),
		);
		expect(result.error).toBeUndefined();
		expect(apiRequests(sim).map((request) => request.status)).toEqual([503, 200, 200, 0, 200]);
		expect(sim.state.candidates.get(candidateId)?.depersonalized).toBe(true);
	});

	const creating: Array<[string, INodeParameters, IDataObject[], string]> = [
		[
			'Candidate → Create and Run',
			createAndRun({ maxRetries: 3, timeout: 1 }),
			[{ phone: phoneOf(1) }],
			SINGLE,
		],
		[
			'Candidate → Create Batch From Template',
			createBatch({ maxRetries: 3, timeout: 1 }),
			[{ phone: phoneOf(1) }],
			TEMPLATE_BATCH,
		],
		[
			'Call Task → Create',
			{
				resource: 'callTask',
				operation: 'create',
				name: 'Leads',
				defaultExecData: 'bot-1',
				options: { maxRetries: 3, timeout: 1 },
			},
			[{}],
			'/cis/api/v1/telephony/autoCall',
		],
	];
	const uncertainFaults: Array<[string, FaultSpec, RegExp]> = [
		['502', { status: 502 }, /the service answered 502/],
		['503 after handling', { status: 503, afterHandling: true }, /the service answered 503/],
		['504', { status: 504 }, /the service answered 504/],
		[
			'a dropped connection after handling',
			{ drop: true, afterHandling: true },
			/connection was dropped/,
		],
		['a timeout (the answer comes after 1 s)', { delayMs: 1300, afterHandling: true }, /timed out/],
	];
	describe.each(creating)(
		'%s is not repeated after an unknown outcome',
		(_name, parameters, items, path) => {
			test.each(uncertainFaults)(
				'%s: one request, the item says the outcome is unknown and why',
				async (_fault, fault, why) => {
					sim.injectFault({ path, ...fault });
					const result = await runAction(sim, parameters, items, { continueOnFail: true });
					expect(apiRequests(sim)).toHaveLength(1);
					const [json] = jsonOf(result);
					expect(json.error).toMatch(/^Outcome unknown for POST /);
					expect(json.error).toMatch(why);
					expect(json.error).toMatch(/may have been created; check the task before running again/);
					expect(json.description).toMatch(
						/not repeated, because repeating a creating request can call a person twice/,
					);
					expect(result.items[0].pairedItem).toEqual({ item: 0 });
				},
			);
		},
	);

	test('a timeout of a creating request: one request, outcome unknown, "timed out"', async () => {
		sim.injectFault({ path: SINGLE, delayMs: 1500 });
		const result = await runAction(sim, createAndRun({ timeout: 1, maxRetries: 3 }), [
			{ phone: phoneOf(1) },
		]);
		expect(apiRequests(sim)).toHaveLength(1);
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/Outcome unknown/);
		expect(error.message).toMatch(/timed out/);
	});

	test.each([
		[
			'Candidate → Create and Run',
			createAndRun({ maxRetries: 3, retryUncertainCreates: true }),
			[{ phone: phoneOf(1) }],
			SINGLE,
		],
		[
			'Candidate → Create Batch From Template',
			createBatch({ maxRetries: 3, retryUncertainCreates: true }),
			phoneItems(3),
			TEMPLATE_BATCH,
		],
	])(
		'%s saved with the removed option "Retry Creating Requests" on: runs, and still sends once after a 503',
		async (_name, parameters, items, path) => {
			sim.injectFault({ path, status: 503, afterHandling: true });
			const result = await runAction(sim, parameters, items, { continueOnFail: true });
			expect(apiRequests(sim)).toHaveLength(1);
			expect(sim.counts().duplicates).toBe(0);
			expect(jsonOf(result)[0].error).toMatch(
				/^Outcome unknown for POST .*may have been created; check the task before running again/,
			);
		},
	);

	test.each([
		['500', { status: 500, afterHandling: true } as FaultSpec, /the service answered 500/],
		['500 before handling', { status: 500 } as FaultSpec, /the service answered 500/],
	])('%s on a creating request: one request, outcome unknown', async (_name, fault, why) => {
		sim.injectFault({ path: SINGLE, ...fault });
		const result = await runAction(sim, createAndRun({ maxRetries: 3 }), [{ phone: phoneOf(1) }], {
			continueOnFail: true,
		});
		expect(apiRequests(sim)).toHaveLength(1);
		const [json] = jsonOf(result);
		expect(json.error).toMatch(/^Outcome unknown for POST /);
		expect(json.error).toMatch(why);
		expect(json.error).toMatch(/may have been created; check the task before running again/);
	});

	test('an unrecognised network error (a server that answers garbage) on a creating request: one request, outcome unknown', async () => {
		const garbage = await startGarbageServer();
		try {
			const result = await runAction(
				{ ...sim, url: garbage.url } as Simulator,
				createAndRun({ maxRetries: 3 }),
				[{ phone: phoneOf(1) }],
				{ continueOnFail: true },
			);
			expect(garbage.requests()).toBe(1);
			expect(jsonOf(result)[0].error).toMatch(
				/^Outcome unknown for POST .*may have been created; check the task before running again/,
			);
		} finally {
			await garbage.close();
		}
	});

	describe('a creation carrying Client External ID (Candidate → Add to Task)', () => {
		let taskId: string;
		beforeEach(() => {
			taskId = createTaskInState(sim, { name: 'Existing task' }).id;
		});
		const addToTask = (
			clientExternalId: string,
			options: INodeParameters = {},
		): INodeParameters => ({
			resource: 'candidate',
			operation: 'addToTask',
			autoCallId: byId(taskId),
			phone: '={{ $json.phone }}',
			candidateFields: { clientExternalId },
			options,
		});

		test('is repeated after a 503 that came after the candidate was added: the platform adds it once', async () => {
			sim.injectFault({
				path: '/cis/api/v1/telephony/autoCallCandidate',
				status: 503,
				afterHandling: true,
			});
			const result = await runAction(sim, addToTask('crm-1', { maxRetries: 2 }), [
				{ phone: phoneOf(1) },
			]);
			expect(result.error).toBeUndefined();
			expect(apiRequests(sim).map((request) => request.status)).toEqual([503, 200]);
			expect(sim.counts()).toMatchObject({ total: 1, duplicates: 0 });
			expect(jsonOf(result)[0].autoCallCandidateId).toBe(candidateIdFor(sim, phoneOf(1)));
		});

		test('is repeated after a timeout', async () => {
			sim.injectFault({
				path: '/cis/api/v1/telephony/autoCallCandidate',
				delayMs: 1300,
				afterHandling: true,
			});
			const result = await runAction(sim, addToTask('crm-2', { maxRetries: 2, timeout: 1 }), [
				{ phone: phoneOf(2) },
			]);
			expect(result.error).toBeUndefined();
			expect(apiRequests(sim)).toHaveLength(2);
			expect(sim.counts()).toMatchObject({ total: 1, duplicates: 0 });
		});

		test('without Client External ID it is not repeated', async () => {
			sim.injectFault({
				path: '/cis/api/v1/telephony/autoCallCandidate',
				status: 503,
				afterHandling: true,
			});
			const result = await runAction(sim, addToTask('', { maxRetries: 2 }), [
				{ phone: phoneOf(3) },
			]);
			expect(apiRequests(sim)).toHaveLength(1);
			expect((result.error as Error).message).toMatch(/Outcome unknown/);
		});
	});
});
