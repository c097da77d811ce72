import { NodeApiError } from 'n8n-workflow';

import {
	apiRequests,
	EMAIL,
	jsonOf,
	PASSWORD,
	runAction,
	TOKEN,
	useActionSimulator,
} from '../actions/fixtures';

const sim = useActionSimulator();

const createAndRun = {
	resource: 'candidate',
	operation: 'createAndRun',
	botSettingsId: 'bot-1',
	phone: '79990000001',
};

function secretsIn(value: unknown): string[] {
	const text = JSON.stringify(value, (_key, inner) =>
		inner instanceof Error
			? { ...inner, message: inner.message, description: (inner as NodeApiError).description }
			: inner,
	);
	return [TOKEN, PASSWORD].filter((secret) => text.includes(secret));
}

describe("API failures become NodeApiError with the status, the service's words and a hint", () => {
	test('401: token invalid or expired', async () => {
		const result = await runAction(sim, createAndRun, [{}], {
			credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: 'wrong-token' } },
		});
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.httpCode).toBe('401');
		expect(error.message).toMatch(/401/);
		expect(error.description).toMatch(/token is invalid or expired/i);
		expect(error.context.itemIndex).toBe(0);
	});

	test('404: the id does not exist', async () => {
		const result = await runAction(sim, {
			resource: 'call',
			operation: 'deleteRecording',
			callId: 'no-such-call',
		});
		const error = result.error as NodeApiError;
		expect(error.httpCode).toBe('404');
		expect(error.description).toMatch(/id does not exist/);
		expect(error.message).toMatch(/Call not found/);
	});

	test("400 with the section 7 body: the service's own validation message, said once", async () => {
		sim.injectFault({
			path: '/cis/api/v1/telephony/autoCallCandidate/single',
			status: 400,
			body: {
				timestamp: 1764000000,
				type: 'ValidationException',
				error: 'Bot not found',
				details: { field: 'botSettingsId' },
			},
		});
		const result = await runAction(sim, createAndRun);
		const error = result.error as NodeApiError;
		expect(error.httpCode).toBe('400');
		expect(error.message).toMatch(/: Bot not found \{"field":"botSettingsId"\}$/);
		expect(error.description).toBe(
			'The service refused the values of this request, so nothing was created.',
		);
	});

	test("422 in the platform's {error, details} form", async () => {
		sim.injectFault({
			path: '/cis/api/v1/telephony/autoCall',
			status: 422,
			body: { error: { code: 'NAME_TAKEN' }, details: null },
		});
		const result = await runAction(sim, {
			resource: 'callTask',
			operation: 'create',
			name: 'T',
			defaultExecData: 'bot-1',
		});
		const error = result.error as NodeApiError;
		expect(error.httpCode).toBe('422');
		expect(error.message).toMatch(/NAME_TAKEN/);
		expect(error.description).not.toMatch(/NAME_TAKEN/);
	});

	test("the simulator's own spec validation (400) reaches the user too", async () => {
		// A phone with letters passes our lenient check only via the by-field mode's raw text; here the
		// service is told an empty bot id through an expression that resolves to spaces.
		sim.injectFault({
			path: '/cis/api/v1/calls/c-1/depersonalization',
			status: 500,
			body: 'upstream exploded',
		});
		const result = await runAction(
			sim,
			{ resource: 'call', operation: 'depersonalize', callId: 'c-1' },
			[{}],
			{
				parameters: {
					resource: 'call',
					operation: 'depersonalize',
					callId: 'c-1',
					options: { maxRetries: 0 },
				},
			},
		);
		const error = result.error as NodeApiError;
		expect(error.httpCode).toBe('500');
		expect(error.message).toMatch(/upstream exploded/);
	});

	test('Continue On Fail: one error item per failed item, in order, with pairedItem', async () => {
		const call = sim.addCall();
		const result = await runAction(
			sim,
			{ resource: 'call', operation: 'deleteRecording', callId: '={{ $json.id }}' },
			[{ id: call.id }, { id: 'missing-1' }, { id: 'missing-2' }],
			{ continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		const outputs = jsonOf(result);
		expect(outputs[0]).toEqual({ success: true, deleted: true, callId: call.id });
		expect(outputs[1]).toMatchObject({ httpCode: '404', error: expect.stringMatching(/404/) });
		expect(outputs[2]).toMatchObject({ httpCode: '404' });
		expect(result.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
	});

	test('no secret in outputs or errors', async () => {
		const failed = await runAction(sim, createAndRun, [{}], {
			credentials: { cisAutoCallApi: { baseUrl: sim.url, accessToken: `${TOKEN}-revoked` } },
		});
		expect(failed.error).toBeDefined();
		expect(secretsIn(failed.error)).toEqual([]);
		expect(secretsIn(failed.recordedError)).toEqual([]);
		const ok = await runAction(sim, createAndRun);
		expect(secretsIn(ok.items)).toEqual([]);
		expect(secretsIn(ok.runData)).toEqual([]);
	});
});

describe('the login credential', () => {
	const loginParameters = { ...createAndRun, authentication: 'login' };

	test('logs in once, reuses the token, renews it when the service says it expired', async () => {
		const first = await runAction(sim, loginParameters, [{}, {}]);
		expect(first.error).toBeUndefined();
		expect(sim.logins).toBe(1);
		const login = sim.requests.find((request) => request.path === '/api/v1/auth/login');
		expect(login?.body).toEqual({ email: EMAIL, password: PASSWORD, ttl: 3600 });
		const bearer = apiRequests(sim)[0].headers.authorization as string;
		expect(bearer).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);

		sim.expireTokens();
		const second = await runAction(sim, loginParameters, [{}], {
			credentialStore: first.credentialStore,
		});
		expect(second.error).toBeUndefined();
		expect(sim.logins).toBe(2);
		const statuses = apiRequests(sim).map((request) => request.status);
		expect(statuses.slice(-2)).toEqual([401, 200]);
		expect(jsonOf(second)[0].autoCallCandidateId).toEqual(expect.any(String));
		expect(secretsIn(second.items)).toEqual([]);
	});

	test('a wrong password fails clearly, without the password', async () => {
		const result = await runAction(sim, loginParameters, [{}], {
			credentials: {
				cisAutoCallLoginApi: {
					baseUrl: sim.url,
					loginUrl: `${sim.url}/api/v1/auth/login`,
					email: EMAIL,
					password: 'not-the-password-xyz',
					ttl: 3600,
				},
			},
		});
		expect(result.error?.message).toMatch(/Login at .* failed \(HTTP 401\)/);
		expect(JSON.stringify(result.recordedError)).not.toContain('not-the-password-xyz');
		expect(apiRequests(sim)).toHaveLength(0);
	});
});

describe('a rejected token stops the run: at most one fresh login, the other items fail at once, unsent', () => {
	const items = Array.from({ length: 20 }, (_, index) => ({
		phone: `7999100${String(index).padStart(4, '0')}`,
	}));
	const perItem = { ...createAndRun, phone: '={{ $json.phone }}' };
	const rejectEveryToken = () =>
		sim.injectFault({
			path: /^\/cis\/api\/v1\//,
			status: 401,
			body: { error: 'Token is expired.' },
			times: Infinity,
		});

	function expectStoppedRun(result: Awaited<ReturnType<typeof runAction>>) {
		const outputs = jsonOf(result);
		expect(outputs).toHaveLength(20);
		expect(outputs[0]).toMatchObject({
			httpCode: '401',
			error: expect.stringMatching(
				/^The service refused the token \(HTTP 401\): it is wrong or has expired \(POST /,
			),
		});
		for (const json of outputs.slice(1)) {
			expect(json).toMatchObject({
				httpCode: '401',
				error: expect.stringMatching(/^Not sent: The service refused the token \(HTTP 401\)/),
			});
		}
		expect(result.items.map((item) => item.pairedItem)).toEqual(items.map((_, item) => ({ item })));
		expect(secretsIn(result.items)).toEqual([]);
	}

	test('login credential with a saved token, every token rejected: 20 items → 1 login and 2 requests', async () => {
		const saved = await runAction(sim, { ...createAndRun, authentication: 'login' });
		expect(saved.error).toBeUndefined();
		const [logins, preAuthCalls, requests] = [
			sim.logins,
			saved.credentialStore.preAuthCalls,
			apiRequests(sim).length,
		];
		rejectEveryToken();
		const result = await runAction(sim, { ...perItem, authentication: 'login' }, items, {
			credentialStore: saved.credentialStore,
			continueOnFail: true,
		});
		expect(result.credentialStore.preAuthCalls - preAuthCalls).toBe(1);
		expect(sim.logins - logins).toBe(1);
		expect(apiRequests(sim).length - requests).toBe(2);
		expectStoppedRun(result);
		expect(jsonOf(result)[0].description).toMatch(/rejected the token even after a fresh login/);
	});

	test("login credential without a saved token: the run's own login is the fresh one: 1 login, 1 request", async () => {
		rejectEveryToken();
		const result = await runAction(sim, { ...perItem, authentication: 'login' }, items, {
			continueOnFail: true,
		});
		expect(result.credentialStore.preAuthCalls).toBe(1);
		expect(sim.logins).toBe(1);
		expect(apiRequests(sim)).toHaveLength(1);
		expectStoppedRun(result);
	});

	test('access token rejected: 20 items → 1 request', async () => {
		rejectEveryToken();
		const result = await runAction(sim, perItem, items, { continueOnFail: true });
		expect(apiRequests(sim)).toHaveLength(1);
		expectStoppedRun(result);
		expect(jsonOf(result)[0].description).toMatch(/token is invalid or expired/);
	});

	test('without Continue On Fail the run stops at the first item, nothing else is sent', async () => {
		rejectEveryToken();
		const result = await runAction(sim, { ...perItem, options: { concurrency: 5 } }, items);
		expect(apiRequests(sim)).toHaveLength(1);
		expect(result.error?.message).toMatch(/401/);
	});

	test('an expired saved token is renewed once and the run goes on: 20 items → 1 login, 21 requests, 20 successes', async () => {
		const saved = await runAction(sim, { ...createAndRun, authentication: 'login' });
		const [logins, requests] = [sim.logins, apiRequests(sim).length];
		sim.expireTokens();
		const result = await runAction(
			sim,
			{ ...perItem, authentication: 'login', options: { concurrency: 5 } },
			items,
			{
				credentialStore: saved.credentialStore,
			},
		);
		expect(result.error).toBeUndefined();
		expect(sim.logins - logins).toBe(1);
		expect(apiRequests(sim).length - requests).toBe(21);
		expect(jsonOf(result).every((json) => typeof json.autoCallCandidateId === 'string')).toBe(true);
	});
});
