/**
 * runCredentialTest (credentialTest.ts): a credential type's declarative test run like n8n's
 * CredentialsTester, against the fake remote.
 */
import { runCredentialTest } from './harness';
import { FixtureApi, FixtureLoginApi, useFakeRemote } from './fixtures';

const { remote, replaceRemote, tokenCredentials, loginCredentials } = useFakeRemote();

test('OK when the declarative test request succeeds (with the credential auth applied)', async () => {
	const result = await runCredentialTest(new FixtureApi(), tokenCredentials().fixtureApi);
	expect(result).toMatchObject({ status: 'OK', message: 'Connection successful!' });
	const [request] = remote.requests;
	expect(request.path).toBe('/me');
	expect(request.headers.authorization).toBe('Bearer tok-1');
});

test('Error from a responseSuccessBody rule (2xx body describing a failure)', async () => {
	remote.disabledTokens.add('tok-1');
	const result = await runCredentialTest(new FixtureApi(), tokenCredentials().fixtureApi);
	expect(result).toMatchObject({
		status: 'Error',
		message: 'The service says the token is disabled',
	});
});

test('Error on an HTTP error status', async () => {
	const result = await runCredentialTest(new FixtureApi(), {
		baseUrl: remote.baseUrl,
		accessToken: 'wrong',
	});
	expect(result.status).toBe('Error');
	expect(result.message).toMatch(/Unauthorized|401/);
});

test('Error when nothing listens', async () => {
	const closed = remote.baseUrl;
	await remote.close();
	const result = await runCredentialTest(new FixtureApi(), { baseUrl: closed, accessToken: 'x' });
	await replaceRemote();
	expect(result).toMatchObject({ status: 'Error', message: 'ECONNREFUSED' });
});

test('login credential: the test always logs in (like n8n), then calls /me', async () => {
	const ok = await runCredentialTest(new FixtureLoginApi(), {
		...loginCredentials().fixtureLoginApi,
		sessionToken: 'old-token',
	});
	expect(ok.status).toBe('OK');
	expect(remote.logins).toBe(1);
	expect(remote.requests.find((r) => r.path === '/me')?.headers.authorization).toBe(
		'Bearer session-1',
	);

	const bad = await runCredentialTest(new FixtureLoginApi(), {
		...loginCredentials().fixtureLoginApi,
		password: 'wrong',
	});
	expect(bad.status).toBe('Error');
});
