import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { runCredentialTest } from '../engine/harness';
import { credentialsFor, jsonOf, runAction, TOKEN, useActionSimulator } from '../actions/fixtures';

const sim = useActionSimulator();

test('access token: a read-only list call; a good token passes', async () => {
	const result = await runCredentialTest(new CisAutoCallApi(), credentialsFor(sim).cisAutoCallApi);
	expect(result.status).toBe('OK');
	const [request] = sim.requests;
	expect([request.method, request.path, request.query, request.headers.authorization]).toEqual([
		'GET',
		'/cis/api/v1/telephony/autoCall',
		{ limit: '1' },
		`Bearer ${TOKEN}`,
	]);
});

test('access token: a rejected token fails clearly, without the token', async () => {
	const result = await runCredentialTest(new CisAutoCallApi(), {
		baseUrl: `${sim.url}/`,
		accessToken: 'revoked-token-123',
	});
	expect(result.status).toBe('Error');
	expect(result.message).toMatch(
		/^The service refused the token \(HTTP 401\): it is wrong or has expired\. Log in to the service for a new token/,
	);
	expect(result.message).not.toContain('revoked-token-123');
});

test('login: logs in, then tests with the token it got', async () => {
	const result = await runCredentialTest(
		new CisAutoCallLoginApi(),
		credentialsFor(sim).cisAutoCallLoginApi,
	);
	expect(result.status).toBe('OK');
	expect(sim.logins).toBe(1);
	expect(sim.requests.map((request) => request.path)).toEqual([
		'/api/v1/auth/login',
		'/cis/api/v1/telephony/autoCall',
	]);
});

test("login: a wrong password fails with the login's words and no password", async () => {
	const result = await runCredentialTest(new CisAutoCallLoginApi(), {
		...credentialsFor(sim).cisAutoCallLoginApi,
		password: 'wrong-pass-5521',
	});
	expect(result.status).toBe('Error');
	expect(result.message).toMatch(/Login at .* failed \(HTTP 401\): check the email and password/);
	expect(result.message).not.toContain('wrong-pass-5521');
});

test('access token: a Base URL with a path (nothing answers there) says what the Base URL looks like', async () => {
	const result = await runCredentialTest(new CisAutoCallApi(), {
		baseUrl: `${sim.url}/cis/api/v1`,
		accessToken: TOKEN,
	});
	expect(result.status).toBe('Error');
	expect(result.message).toBe(
		"Nothing answered at this Base URL (HTTP 404). Give the service's address without any path, for example https://twin24.ai.",
	);
});

test('login: a Login URL where nothing answers says what the Login URL looks like', async () => {
	const result = await runCredentialTest(new CisAutoCallLoginApi(), {
		...credentialsFor(sim).cisAutoCallLoginApi,
		loginUrl: `${sim.url}/api/v1/auth/signin`,
	});
	expect(result.status).toBe('Error');
	expect(result.message).toMatch(
		/Login at .* failed \(HTTP 404\): nothing answers there\. Set the Login URL to the service's login address, such as https:\/\/iam\.twin24\.ai\/api\/v1\/auth\/login\./,
	);
});

describe('plain http:// is refused except for this machine (loopback), before anything is sent', () => {
	// 0.0.0.0 is not a loopback address, yet on this machine it reaches the simulator: a request
	// that was sent would show up in sim.requests.
	const viaOtherAddress = () => sim.url.replace('127.0.0.1', '0.0.0.0');

	test('credential test, access token: the Base URL is named, nothing is sent', async () => {
		const result = await runCredentialTest(new CisAutoCallApi(), {
			baseUrl: viaOtherAddress(),
			accessToken: TOKEN,
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/Base URL "http:\/\/0\.0\.0\.0:\d+" uses plain http:\/\/.*use https:\/\//,
		);
		expect(result.message).not.toContain(TOKEN);
		expect(sim.requests).toEqual([]);
	});

	test('credential test, login: an http:// Login URL is refused before the password is sent', async () => {
		const result = await runCredentialTest(new CisAutoCallLoginApi(), {
			...credentialsFor(sim).cisAutoCallLoginApi,
			loginUrl: `${viaOtherAddress()}/api/v1/auth/login`,
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/Login URL "http:\/\/0\.0\.0\.0:\d+\/api\/v1\/auth\/login" uses plain http:\/\//,
		);
		expect(sim.requests).toEqual([]);
	});

	test('credential test, login: an http:// Base URL is refused before the login', async () => {
		const result = await runCredentialTest(new CisAutoCallLoginApi(), {
			...credentialsFor(sim).cisAutoCallLoginApi,
			baseUrl: viaOtherAddress(),
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/Base URL .* uses plain http:\/\//);
		expect(sim.requests).toEqual([]);
	});

	test('credential test: http://localhost is this machine and is accepted', async () => {
		const result = await runCredentialTest(new CisAutoCallApi(), {
			baseUrl: sim.url.replace('127.0.0.1', 'localhost'),
			accessToken: TOKEN,
		});
		expect(result.status).toBe('OK');
	});

	test('the node, access token: each item fails naming the Base URL and the item; 0 requests', async () => {
		const result = await runAction(
			sim,
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				phone: '={{ $json.phone }}',
			},
			[{ phone: '79990000001' }, { phone: '79990000002' }],
			{
				credentials: { cisAutoCallApi: { baseUrl: viaOtherAddress(), accessToken: TOKEN } },
				continueOnFail: true,
			},
		);
		const errors = jsonOf(result).map((json) => json.error);
		expect(errors).toEqual([
			expect.stringMatching(
				/^Base URL "http:\/\/0\.0\.0\.0:\d+" uses plain http:\/\/.*\[item 0\]$/,
			),
			expect.stringMatching(/\[item 1\]$/),
		]);
		expect(jsonOf(result)[0].description).toMatch(/Nothing was sent/);
		expect(sim.requests).toEqual([]);
	});

	test('the node, login credential: an http:// Login URL fails the run before any login', async () => {
		const result = await runAction(
			sim,
			{ authentication: 'login', resource: 'callTask', operation: 'getMany', limit: 5 },
			[{}],
			{
				credentials: {
					cisAutoCallLoginApi: {
						...credentialsFor(sim).cisAutoCallLoginApi,
						loginUrl: `${viaOtherAddress()}/api/v1/auth/login`,
					},
				},
			},
		);
		expect(result.error?.message).toMatch(/^Login URL .* uses plain http:\/\/.*\[item 0\]$/);
		expect(sim.requests).toEqual([]);
	});

	test("another node using the credential (e.g. HTTP Request) gets the token added only for the Base URL's own address", async () => {
		const credential = new CisAutoCallApi();
		const data = { baseUrl: 'https://twin24.ai', accessToken: TOKEN };
		const own = await credential.authenticate(data, {
			url: 'https://twin24.ai/cis/api/v1/telephony/autoCall',
		});
		expect(own.headers?.Authorization).toBe(`Bearer ${TOKEN}`);
		expect(own.disableFollowRedirect).toBe(true);
		await expect(
			credential.authenticate(data, { url: 'https://elsewhere.example/collect' }),
		).rejects.toThrow(
			/sent only to its Base URL \(https:\/\/twin24\.ai\), not to https:\/\/elsewhere\.example/,
		);
	});
});
