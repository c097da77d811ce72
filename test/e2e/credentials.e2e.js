'use strict';
/**
 * Credentials in a real n8n: the editor's credential test (POST /rest/credentials/test) of both
 * credential types against the simulator, and the login credential's token renewal in a run.
 * No redirect is followed, plain http:// only to loopback, one login per run after a
 * rejected token.
 */
const assert = require('assert');
const http = require('http');
const { cisNode, codeNode, apiRequestsSince, assertSuccess, errorOf } = require('./harness');

/** A server on 127.0.0.1 that logs what it receives and answers with `handle`. */
async function startServer(handle) {
	const seen = [];
	const server = http.createServer((req, res) => {
		req.resume();
		req.on('end', () => {
			seen.push(
				`${req.method} ${req.url}${req.headers.authorization ? ' (with Authorization)' : ''}`,
			);
			handle(req, res);
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
	const { port } = /** @type {import('net').AddressInfo} */ (server.address());
	return {
		url: `http://127.0.0.1:${port}`,
		host: `127.0.0.1:${port}`,
		seen,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(resolve);
			}),
	};
}

module.exports = async function credentialChecks(ctx) {
	const { client, sim, creds, checks } = ctx;

	await checks.check('credential test: access token accepted by the service → OK', async () => {
		const mark = sim.requests.length;
		const res = await client.testCredential({ id: creds.token.id });
		assert.strictEqual(res.status, 'OK', `expected OK, got ${JSON.stringify(res)}`);
		const sent = apiRequestsSince(sim, mark);
		assert.ok(sent.length >= 1, 'the simulator saw no request');
		const r = sent[sent.length - 1];
		assert.strictEqual(`${r.method} ${r.path}`, 'GET /cis/api/v1/telephony/autoCall');
		assert.strictEqual(r.headers.authorization, `Bearer ${sim.config.token}`);
		return `${res.status}; the simulator saw GET ${r.path}?limit=${r.query.limit} with the Bearer token`;
	});

	await checks.check(
		'credential test: wrong access token → Error saying the token was rejected',
		async () => {
			const res = await client.testCredential({ id: creds.badToken.id });
			assert.strictEqual(res.status, 'Error', `expected Error, got ${JSON.stringify(res)}`);
			// 2.x applies the credential's rules (its own message for 401); 1.123.x does not (the
			// error of its routing node carries no response there) and says so in its own words
			const expected =
				ctx.n8n.major >= 2
					? /^The service refused the token \(HTTP 401\)/
					: /^The service refused the token \(HTTP 401\)|^Authorization failed - please check your credentials$/;
			assert.match(String(res.message), expected, `message: ${res.message}`);
			return `Error "${res.message}"`;
		},
	);

	await checks.check(
		'credential test: login credential (email + password) → OK, it logged in',
		async () => {
			const before = sim.logins;
			const res = await client.testCredential({ id: creds.login.id });
			assert.strictEqual(res.status, 'OK', `expected OK, got ${JSON.stringify(res)}`);
			assert.ok(
				sim.logins > before,
				`no login seen by the simulator (logins ${before} → ${sim.logins})`,
			);
			return `${res.status}; logins ${before} → ${sim.logins}`;
		},
	);

	await checks.check(
		'credential test: login credential with a wrong password → Error saying the login failed',
		async () => {
			const res = await client.testCredential({ id: creds.badLogin.id });
			assert.strictEqual(res.status, 'Error', `expected Error, got ${JSON.stringify(res)}`);
			assert.match(String(res.message), /login|credentials|401/i, `message: ${res.message}`);
			return `Error "${res.message}"`;
		},
	);

	await checks.check(
		'login credential: a run gets a token; after the service expires it, the next run logs in again and succeeds',
		async () => {
			// a credential never used nor tested: its first run must log in
			const fresh = await client.createCredential({
				name: 'e2e login (renewal)',
				type: 'cisAutoCallLoginApi',
				data: ctx.loginData,
			});
			const node = cisNode(
				'List tasks (login)',
				{ authentication: 'login', resource: 'callTask', operation: 'getMany', limit: 1 },
				{ id: String(fresh.id), name: fresh.name },
			);
			const wf = await ctx.createManualWorkflow('e2e login renewal', [node]);
			const l0 = sim.logins;
			const ex1 = await client.runWorkflowManually(wf.id);
			assertSuccess(ex1);
			const l1 = sim.logins;
			assert.strictEqual(
				l1,
				l0 + 1,
				`expected exactly one login in the first run (logins ${l0} → ${l1})`,
			);
			const mark = sim.requests.length;
			sim.expireTokens();
			const ex2 = await client.runWorkflowManually(wf.id);
			assertSuccess(ex2);
			const l2 = sim.logins;
			assert.strictEqual(
				l2,
				l1 + 1,
				`expected exactly one more login after the expiry (logins ${l1} → ${l2})`,
			);
			const seq = apiRequestsSince(sim, mark).map((r) => `${r.method} ${r.path} ${r.status}`);
			const expired = seq.findIndex((s) => /^GET \/cis\/api\/v1\/telephony\/autoCall 401$/.test(s));
			const login = seq.findIndex((s) => /^POST \/api\/v1\/auth\/login 200$/.test(s));
			const retried = seq.findIndex(
				(s, i) => i > login && /^GET \/cis\/api\/v1\/telephony\/autoCall 200$/.test(s),
			);
			assert.ok(
				expired >= 0 && login > expired && retried > login,
				`expected 401 → login → 200, saw: ${seq.join(' | ')}`,
			);
			return `run 1: logins ${l0} → ${l1}; expire-tokens; run 2: ${seq.join(' → ')}`;
		},
	);

	// A redirect is never followed. The second server answers like the service
	// would; a leak would show up in second.seen.
	const second = await startServer((_req, res) => {
		res.setHeader('content-type', 'application/json');
		res.end(JSON.stringify({ token: 'stolen', data: [] }));
	});
	const redirector = await startServer((req, res) => {
		res.statusCode = 302;
		res.setHeader('location', `${second.url}${req.url}`);
		res.end();
	});
	try {
		await checks.check(
			'credential test, access token, Base URL answering 302 to a second server: Error, 0 requests there',
			async () => {
				const cred = await client.createCredential({
					name: 'e2e redirect token',
					type: 'cisAutoCallApi',
					data: { baseUrl: redirector.url, accessToken: sim.config.token },
				});
				const res = await client.testCredential({ id: String(cred.id) });
				assert.strictEqual(res.status, 'Error', `expected Error, got ${JSON.stringify(res)}`);
				assert.deepStrictEqual(
					second.seen,
					[],
					`the second server received: ${second.seen.join(', ')}`,
				);
				assert.ok(redirector.seen.length >= 1, 'the redirecting server saw nothing');
				return `Error "${res.message}"; redirecting server saw ${redirector.seen.length}, second server 0`;
			},
		);

		await checks.check(
			'credential test, login credential, Login URL answering 302: Error naming status and host, the password not sent on',
			async () => {
				const cred = await client.createCredential({
					name: 'e2e redirect login',
					type: 'cisAutoCallLoginApi',
					data: { ...ctx.loginData, loginUrl: `${redirector.url}/api/v1/auth/login` },
				});
				const res = await client.testCredential({ id: String(cred.id) });
				assert.strictEqual(res.status, 'Error', `expected Error, got ${JSON.stringify(res)}`);
				assert.ok(
					String(res.message).includes(`(HTTP 302) to ${second.host}`),
					`message: ${res.message}`,
				);
				assert.deepStrictEqual(
					second.seen,
					[],
					`the second server received: ${second.seen.join(', ')}`,
				);
				return `Error "${res.message}"`;
			},
		);

		await checks.check(
			'credential test, login credential, Base URL answering 302 (login works): Error, the token not sent on',
			async () => {
				const cred = await client.createCredential({
					name: 'e2e redirect login base',
					type: 'cisAutoCallLoginApi',
					data: { ...ctx.loginData, baseUrl: redirector.url },
				});
				const res = await client.testCredential({ id: String(cred.id) });
				assert.strictEqual(res.status, 'Error', `expected Error, got ${JSON.stringify(res)}`);
				assert.deepStrictEqual(
					second.seen,
					[],
					`the second server received: ${second.seen.join(', ')}`,
				);
				return `Error "${res.message}"`;
			},
		);

		await checks.check(
			'a run whose Base URL answers 302: the node fails naming the status and the host, 0 requests at the second server',
			async () => {
				const cred = await client.createCredential({
					name: 'e2e redirect run',
					type: 'cisAutoCallApi',
					data: { baseUrl: redirector.url, accessToken: sim.config.token },
				});
				const node = cisNode(
					'Create (redirected)',
					{
						resource: 'candidate',
						operation: 'createAndRun',
						botSettingsId: 'bot-1',
						phone: '79990000001',
					},
					{ id: String(cred.id), name: cred.name },
				);
				const execution = await ctx.run('e2e redirect run', [node]);
				const error = errorOf(execution);
				assert.ok(
					error,
					`expected a failed execution, got ${execution.status}: ${JSON.stringify(execution.data && execution.data.resultData).slice(0, 1500)}`,
				);
				assert.ok(
					/302/.test(String(error.message)) && String(error.message).includes(second.host),
					`message: ${error.message}`,
				);
				assert.deepStrictEqual(
					second.seen,
					[],
					`the second server received: ${second.seen.join(', ')}`,
				);
				return `"${error.message}"`;
			},
		);
	} finally {
		await Promise.all([second.close(), redirector.close()]);
	}

	// Plain http:// only for this machine. 0.0.0.0 is not loopback, yet reaches
	// the simulator here, so a request that went out would show up in its log.
	await checks.check(
		'credential test, Base URL http:// to a non-loopback address: Error naming it, nothing sent',
		async () => {
			const baseUrl = sim.url.replace('127.0.0.1', '0.0.0.0');
			const cred = await client.createCredential({
				name: 'e2e plain http',
				type: 'cisAutoCallApi',
				data: { baseUrl, accessToken: sim.config.token },
			});
			const mark = sim.requests.length;
			const res = await client.testCredential({ id: String(cred.id) });
			assert.strictEqual(res.status, 'Error', `expected Error, got ${JSON.stringify(res)}`);
			assert.match(String(res.message), /uses plain http:\/\//, `message: ${res.message}`);
			assert.strictEqual(apiRequestsSince(sim, mark).length, 0, 'a request reached the simulator');
			return `Error "${res.message}"`;
		},
	);

	// When the fresh token is rejected too, one login, and the other items are not sent.
	await checks.check(
		'login credential, saved token and the fresh one rejected: 5 items → 1 login, 2 API requests',
		async () => {
			const fresh = await client.createCredential({
				name: 'e2e login (rejected)',
				type: 'cisAutoCallLoginApi',
				data: ctx.loginData,
			});
			const ref = { id: String(fresh.id), name: fresh.name };
			const list = cisNode(
				'List (login)',
				{ authentication: 'login', resource: 'callTask', operation: 'getMany', limit: 1 },
				ref,
			);
			assertSuccess(await ctx.run('e2e login saves a token', [list]));
			const [logins, mark] = [sim.logins, sim.requests.length];
			// Two rejections: the request with the saved token, and the same request after a fresh login.
			// Under n8n's own rule (log in again after any 401, per request) items 2–5 would be sent too.
			sim.injectFault({
				path: /^\/cis\/api\/v1\//,
				status: 401,
				body: { error: 'Token is expired.' },
				times: 2,
			});
			const node = cisNode(
				'Depersonalize (login)',
				{
					authentication: 'login',
					resource: 'call',
					operation: 'depersonalize',
					callId: '={{ $json.id }}',
				},
				ref,
				{ onError: 'continueRegularOutput' },
			);
			await ctx.run('e2e rejected token', [
				codeNode(
					'Items',
					[1, 2, 3, 4, 5].map((n) => ({ id: `call-${n}` })),
				),
				node,
			]);
			const sent = apiRequestsSince(sim, mark).filter((r) => r.path.startsWith('/cis/'));
			const loginsMade = sim.logins - logins;
			assert.strictEqual(loginsMade, 1, `logins: ${loginsMade}`);
			assert.strictEqual(
				sent.length,
				2,
				`API requests: ${sent.map((r) => `${r.method} ${r.path} ${r.status}`).join(' | ')}`,
			);
			return `${loginsMade} login, ${sent.length} API requests (${sent.map((r) => r.status).join(', ')})`;
		},
	);
};
