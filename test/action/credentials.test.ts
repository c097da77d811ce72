import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { runCredentialTest } from '../engine/harness';
import type { Simulator } from '../simulator';
import { credentialsFor, startSimulator, TOKEN } from './fixtures';

let sim: Simulator;
beforeAll(async () => {
	sim = await startSimulator();
});
afterAll(async () => {
	await sim.close();
});
beforeEach(() => sim.reset());

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
	const result = await runCredentialTest(new CisAutoCallApi(), { baseUrl: `${sim.url}/`, accessToken: 'revoked-token-123' });
	expect(result.status).toBe('Error');
	expect(result.message).toMatch(/Token rejected \(HTTP 401\)/);
	expect(result.message).not.toContain('revoked-token-123');
});

test('login: logs in, then tests with the token it got', async () => {
	const result = await runCredentialTest(new CisAutoCallLoginApi(), credentialsFor(sim).cisAutoCallLoginApi);
	expect(result.status).toBe('OK');
	expect(sim.logins).toBe(1);
	expect(sim.requests.map((request) => request.path)).toEqual(['/api/v1/auth/login', '/cis/api/v1/telephony/autoCall']);
});

test('login: a wrong password fails with the login\'s words and no password', async () => {
	const result = await runCredentialTest(new CisAutoCallLoginApi(), {
		...credentialsFor(sim).cisAutoCallLoginApi,
		password: 'wrong-pass-5521',
	});
	expect(result.status).toBe('Error');
	expect(result.message).toMatch(/Login at .* failed \(HTTP 401\)/);
	expect(result.message).not.toContain('wrong-pass-5521');
});
