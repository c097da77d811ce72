'use strict';
/**
 * Credentials in a real n8n: the editor's credential test (POST /rest/credentials/test) of both
 * credential types against the simulator, and the login credential's token renewal in a run.
 */
const assert = require('assert');
const { cisNode, apiRequestsSince, assertSuccess } = require('./harness');

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

	await checks.check('credential test: wrong access token → Error saying the token was rejected', async () => {
		const res = await client.testCredential({ id: creds.badToken.id });
		assert.strictEqual(res.status, 'Error', `expected Error, got ${JSON.stringify(res)}`);
		// 2.x applies the credential's rules (its own message for 401); 1.123.x does not (the
		// error of its routing node carries no response there) and says so in its own words
		const expected = ctx.n8n.major >= 2 ? /^Token rejected \(HTTP 401\)/ : /^Token rejected \(HTTP 401\)|^Authorization failed - please check your credentials$/;
		assert.match(String(res.message), expected, `message: ${res.message}`);
		return `Error "${res.message}"`;
	});

	await checks.check('credential test: login credential (email + password) → OK, it logged in', async () => {
		const before = sim.logins;
		const res = await client.testCredential({ id: creds.login.id });
		assert.strictEqual(res.status, 'OK', `expected OK, got ${JSON.stringify(res)}`);
		assert.ok(sim.logins > before, `no login seen by the simulator (logins ${before} → ${sim.logins})`);
		return `${res.status}; logins ${before} → ${sim.logins}`;
	});

	await checks.check('credential test: login credential with a wrong password → Error saying the login failed', async () => {
		const res = await client.testCredential({ id: creds.badLogin.id });
		assert.strictEqual(res.status, 'Error', `expected Error, got ${JSON.stringify(res)}`);
		assert.match(String(res.message), /login|credentials|401/i, `message: ${res.message}`);
		return `Error "${res.message}"`;
	});

	await checks.check('login credential: a run gets a token; after the service expires it, the next run logs in again and succeeds', async () => {
		// a credential never used nor tested: its first run must log in
		const fresh = await client.createCredential({ name: 'e2e login (renewal)', type: 'cisAutoCallLoginApi', data: ctx.loginData });
		const node = cisNode('List tasks (login)', { authentication: 'login', resource: 'callTask', operation: 'getMany', limit: 1 }, { id: String(fresh.id), name: fresh.name });
		const wf = await ctx.createManualWorkflow('e2e login renewal', [node]);
		const l0 = sim.logins;
		const ex1 = await client.runWorkflowManually(wf.id);
		assertSuccess(ex1);
		const l1 = sim.logins;
		assert.strictEqual(l1, l0 + 1, `expected exactly one login in the first run (logins ${l0} → ${l1})`);
		const mark = sim.requests.length;
		sim.expireTokens();
		const ex2 = await client.runWorkflowManually(wf.id);
		assertSuccess(ex2);
		const l2 = sim.logins;
		assert.strictEqual(l2, l1 + 1, `expected exactly one more login after the expiry (logins ${l1} → ${l2})`);
		const seq = apiRequestsSince(sim, mark).map((r) => `${r.method} ${r.path} ${r.status}`);
		const expired = seq.findIndex((s) => /^GET \/cis\/api\/v1\/telephony\/autoCall 401$/.test(s));
		const login = seq.findIndex((s) => /^POST \/api\/v1\/auth\/login 200$/.test(s));
		const retried = seq.findIndex((s, i) => i > login && /^GET \/cis\/api\/v1\/telephony\/autoCall 200$/.test(s));
		assert.ok(expired >= 0 && login > expired && retried > login, `expected 401 → login → 200, saw: ${seq.join(' | ')}`);
		return `run 1: logins ${l0} → ${l1}; expire-tokens; run 2: ${seq.join(' → ')}`;
	});
};
