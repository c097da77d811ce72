// The simulator against what docs/service.md says of the service: endpoints, shapes, auth, login,
// 404s, task list, status moves, clientExternalId, counts.
import { createSimulator } from '../../simulator';
import { startQuickSimulator, useSimulator } from '../lib/simulator';
import { CIS, createClient, validTaskBody } from './testkit';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const sim = useSimulator(startQuickSimulator, {
	settle: true,
	emptyAfter: true,
	closeAfterAll: () => client.close(),
});
const client = createClient(() => sim.url);
const call = client.call;

async function createManualTask(overrides: Record<string, unknown> = {}): Promise<string> {
	const answer = await call('POST', `${CIS}/telephony/autoCall`, {
		body: validTaskBody(overrides),
	});
	expect(answer.status).toBe(200);
	return answer.body.id.identity;
}

describe('server basics', () => {
	it('listens on 127.0.0.1 and answers unknown paths with 404', async () => {
		expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		const answer = await call('GET', `${CIS}/nothing/here`);
		expect(answer.status).toBe(404);
	});

	it('answers 405 for a known path with a wrong method', async () => {
		const answer = await call('GET', `${CIS}/telephony/autoCallCandidate/single`);
		expect(answer.status).toBe(405);
	});

	it('logs every API request with method, path, query, headers, body and answered status', async () => {
		await call('GET', `${CIS}/telephony/autoCall?limit=5&keyword=x`, {
			headers: { 'X-Trace': 'abc' },
		});
		const logged = sim.requests[sim.requests.length - 1];
		expect(logged).toMatchObject({
			method: 'GET',
			path: `${CIS}/telephony/autoCall`,
			query: { limit: '5', keyword: 'x' },
			status: 200,
			body: undefined,
			rawBody: '',
		});
		expect(logged.headers['x-trace']).toBe('abc');
		expect(logged.headers.authorization).toBe('Bearer sim-token');
		expect(typeof logged.at).toBe('number');
	});

	it('refuses a body that is not application/json (415) and malformed JSON (400)', async () => {
		const wrongType = await call('POST', `${CIS}/telephony/autoCall`, {
			rawBody: JSON.stringify(validTaskBody()),
			headers: { 'content-type': 'text/plain' },
		});
		expect(wrongType.status).toBe(415);
		const malformed = await call('POST', `${CIS}/telephony/autoCall`, { rawBody: '{"name": ' });
		expect(malformed.status).toBe(400);
		expect(malformed.body.type).toBe('ValidationException');
	});
});

describe('strictHeaders (section 5 headers of 4.4 and 4.5)', () => {
	it('refuses 4.4 / 4.5 without accept: application/json when strictHeaders is on (off by default)', async () => {
		const strict = await createSimulator({ strictHeaders: true });
		const strictClient = createClient(() => strict.url);
		try {
			const body = { phone: ['7001'], botSettingsId: 'b' };
			const noAccept = await strictClient.call(
				'POST',
				`${CIS}/telephony/autoCallCandidate/single`,
				{
					body,
					headers: { accept: '*/*' },
				},
			);
			expect(noAccept.status).toBe(406);
			const batch = await strictClient.call(
				'POST',
				`${CIS}/telephony/autoCallCandidate/single/batch`,
				{
					body: { batch: [body] },
					headers: { accept: 'text/html' },
				},
			);
			expect(batch.status).toBe(406);
			const good = await strictClient.call('POST', `${CIS}/telephony/autoCallCandidate/single`, {
				body,
			});
			expect(good.status).toBe(200);
			expect(strict.state.candidates.size).toBe(1);
		} finally {
			await strictClient.close();
			await strict.close();
		}
		const lax = await call('POST', `${CIS}/telephony/autoCallCandidate/single`, {
			body: { phone: ['7001'], botSettingsId: 'b' },
			headers: { accept: '*/*' },
		});
		expect(lax.status).toBe(200);
	});
});

describe('authentication (section 5)', () => {
	it('answers 401 Unauthorized without a token, with a wrong token, or a wrong scheme', async () => {
		const variants: Array<Record<string, string>> = [
			{},
			{ authorization: 'Bearer nope' },
			{ authorization: 'Basic c2ltLXRva2Vu' },
		];
		for (const headers of variants) {
			const answer = await call('GET', `${CIS}/telephony/autoCall`, { token: null, headers });
			expect(answer.status).toBe(401);
			expect(answer.body).toEqual({ error: 'Unauthorized' });
		}
	});

	it('checks auth before anything else on CIS paths, including unknown ones', async () => {
		const answer = await call('GET', `${CIS}/unknown`, { token: null });
		expect(answer.status).toBe(401);
	});

	it('accepts the static token', async () => {
		const answer = await call('GET', `${CIS}/telephony/autoCall`);
		expect(answer.status).toBe(200);
	});
});

describe('login, refresh and expiry', () => {
	function decodePayload(token: string) {
		const parts = token.split('.');
		expect(parts).toHaveLength(3);
		return JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
	}

	it('logs in with email and password and returns a JWT-shaped token with exp', async () => {
		const before = sim.logins;
		const answer = await call('POST', '/api/v1/auth/login', {
			token: null,
			body: { email: 'user@example.com', password: 'secret', ttl: 3600 },
		});
		expect(answer.status).toBe(200);
		expect(Object.keys(answer.body).sort()).toEqual(['refreshToken', 'token']);
		const payload = decodePayload(answer.body.token);
		const now = Math.floor(Date.now() / 1000);
		expect(payload.exp).toBeGreaterThanOrEqual(now + 3599);
		expect(payload.exp).toBeLessThanOrEqual(now + 3601);
		expect(sim.logins).toBe(before + 1);

		const used = await call('GET', `${CIS}/telephony/autoCall`, { token: answer.body.token });
		expect(used.status).toBe(200);
	});

	it('refuses wrong credentials with 401 Invalid credentials and does not count them', async () => {
		const answer = await call('POST', '/api/v1/auth/login', {
			token: null,
			body: { email: 'user@example.com', password: 'wrong' },
		});
		expect(answer.status).toBe(401);
		expect(answer.body).toEqual({ error: 'Invalid credentials' });
		expect(sim.logins).toBe(0);
	});

	it('validates the login body', async () => {
		const answer = await call('POST', '/api/v1/auth/login', {
			token: null,
			body: { email: 'user@example.com' },
		});
		expect(answer.status).toBe(400);
		expect(answer.body.details).toEqual({ field: 'password' });
	});

	it('expireTokens makes login tokens answer 401 Token is expired.; the static token keeps working', async () => {
		const login = await call('POST', '/api/v1/auth/login', {
			token: null,
			body: { email: 'user@example.com', password: 'secret' },
		});
		sim.expireTokens();
		const expired = await call('GET', `${CIS}/telephony/autoCall`, { token: login.body.token });
		expect(expired.status).toBe(401);
		expect(expired.body).toEqual({ error: 'Token is expired.' });
		const staticToken = await call('GET', `${CIS}/telephony/autoCall`);
		expect(staticToken.status).toBe(200);
	});

	it('a token past its exp answers Token is expired.', async () => {
		const login = await call('POST', '/api/v1/auth/login', {
			token: null,
			body: { email: 'user@example.com', password: 'secret', ttl: 1 },
		});
		await new Promise((r) => setTimeout(r, 1100));
		const expired = await call('GET', `${CIS}/telephony/autoCall`, { token: login.body.token });
		expect(expired.body).toEqual({ error: 'Token is expired.' });
	});

	it('refreshes with the refresh token (rotating it) and the new token works', async () => {
		const login = await call('POST', '/api/v1/auth/login', {
			token: null,
			body: { email: 'user@example.com', password: 'secret' },
		});
		sim.expireTokens();
		const refreshed = await call('POST', '/api/v1/auth/refresh', {
			token: null,
			body: { refreshToken: login.body.refreshToken, ttl: 600 },
		});
		expect(refreshed.status).toBe(200);
		expect(typeof refreshed.body.token).toBe('string');
		expect(typeof refreshed.body.refreshToken).toBe('string');
		expect(
			(await call('GET', `${CIS}/telephony/autoCall`, { token: refreshed.body.token })).status,
		).toBe(200);
		expect(sim.refreshes).toBe(1);

		const reused = await call('POST', '/api/v1/auth/refresh', {
			token: null,
			body: { refreshToken: login.body.refreshToken },
		});
		expect(reused.status).toBe(401);
	});
});

describe('4.6 create a call task', () => {
	it('answers {id: {identity}} and keeps the task with its body', async () => {
		const answer = await call('POST', `${CIS}/telephony/autoCall`, {
			body: validTaskBody({ extraField: 1 }),
		});
		expect(answer.status).toBe(200);
		expect(Object.keys(answer.body)).toEqual(['id']);
		expect(Object.keys(answer.body.id)).toEqual(['identity']);
		expect(answer.body.id.identity).toMatch(UUID);
		const task = sim.state.tasks.get(answer.body.id.identity)!;
		expect(task.status).toBe('BLANK');
		expect(task.body.name).toBe('Spring campaign');
		expect(task.body.extraField).toBe(1);
	});

	it('startType time in the past starts the task at once; in the future it is READY', async () => {
		const past = await createManualTask({ startType: 'time', startMoment: '2020-01-01 10:00' });
		expect(sim.state.tasks.get(past)!.status).toBe('PROCESS');
		const future = await createManualTask({ startType: 'time', startMoment: '2999-01-01 10:00' });
		expect(sim.state.tasks.get(future)!.status).toBe('READY');
	});

	it('lifetime halts the task when it expires (scaled)', async () => {
		const id = await createManualTask({ lifetime: 5 }); // 5 s × 0.001 = 5 ms
		await new Promise((r) => setTimeout(r, 60));
		expect(sim.state.tasks.get(id)!.status).toBe('HALTED');
	});
});

describe('4.4 single candidate', () => {
	const body = {
		phone: ['79990000001'],
		botSettingsId: 'bot-a',
		variables: { name: 'Ann' },
		timezone: 10800,
	};

	it('answers {id: {identity}} with the candidate id and starts the task', async () => {
		const answer = await call('POST', `${CIS}/telephony/autoCallCandidate/single`, { body });
		expect(answer.status).toBe(200);
		expect(Object.keys(answer.body)).toEqual(['id']);
		const candidate = sim.state.candidates.get(answer.body.id.identity)!;
		expect(candidate.phone).toEqual(['79990000001']);
		expect(candidate.variables).toEqual({ name: 'Ann' });
		const task = sim.state.tasks.get(candidate.taskId)!;
		expect(task.status).toBe('PROCESS');
		expect(task.body.defaultExecData).toBe('bot-a');
		expect(task.source).toBe('single');
	});

	it('reuses the task of the same bot within the day, and makes a new one for another bot', async () => {
		const first = await call('POST', `${CIS}/telephony/autoCallCandidate/single`, { body });
		const second = await call('POST', `${CIS}/telephony/autoCallCandidate/single`, {
			body: { ...body, phone: ['79990000002'] },
		});
		const other = await call('POST', `${CIS}/telephony/autoCallCandidate/single`, {
			body: { ...body, botSettingsId: 'bot-b' },
		});
		const taskOf = (a: any) => sim.state.candidates.get(a.body.id.identity)!.taskId;
		expect(taskOf(first)).toBe(taskOf(second));
		expect(taskOf(other)).not.toBe(taskOf(first));
		expect(sim.state.tasks.size).toBe(2);
	});

	it('needs a default template (422 with the section-7 body when there is none)', async () => {
		sim.setDefaultTemplate(null);
		const answer = await call('POST', `${CIS}/telephony/autoCallCandidate/single`, { body });
		expect(answer.status).toBe(422);
		expect(answer.body).toMatchObject({ type: expect.any(String), error: expect.any(String) });
		expect(Number.isInteger(answer.body.timestamp)).toBe(true);
		expect(sim.state.candidates.size).toBe(0);
	});
});

describe('4.5 batch from a template', () => {
	it('answers an array of arrays of {autoCallId, autoCallCandidateId}, one per item in order', async () => {
		const answer = await call('POST', `${CIS}/telephony/autoCallCandidate/single/batch`, {
			body: {
				batch: [
					{ phone: ['79990000001'], clientExternalId: 'c-1', callbackData: { lead: 1 } },
					{
						phone: ['79990000002'],
						botSettingsId: 'bot-x',
						variables: { a: 'b' },
						checkPhone: true,
					},
				],
			},
		});
		expect(answer.status).toBe(200);
		expect(Array.isArray(answer.body)).toBe(true);
		expect(answer.body).toHaveLength(2);
		answer.body.forEach((inner: any[]) => {
			expect(Array.isArray(inner)).toBe(true);
			expect(inner).toHaveLength(1);
			expect(Object.keys(inner[0]).sort()).toEqual(['autoCallCandidateId', 'autoCallId']);
			expect(inner[0].autoCallId.identity).toMatch(UUID);
		});
		const first = sim.state.candidates.get(answer.body[0][0].autoCallCandidateId.identity)!;
		const second = sim.state.candidates.get(answer.body[1][0].autoCallCandidateId.identity)!;
		expect(first.phone).toEqual(['79990000001']);
		expect(second.phone).toEqual(['79990000002']);
		expect(second.botSettingsId).toBe('bot-x');
		expect(first.botSettingsId).toBe(sim.state.defaultTemplate!.botSettingsId);
		const task = sim.state.tasks.get(first.taskId)!;
		expect(task.status).toBe('PROCESS');
		expect(task.source).toBe('batch');
	});

	it('uses a given template and answers 404 for an unknown one (creating nothing)', async () => {
		sim.addTemplate('tpl-7', { name: 'Seven', botSettingsId: 'bot-7' });
		const ok = await call('POST', `${CIS}/telephony/autoCallCandidate/single/batch`, {
			body: { batch: [{ phone: ['79990000001'], autoCallTemplateId: 'tpl-7' }] },
		});
		expect(ok.status).toBe(200);
		const task = sim.state.tasks.get(ok.body[0][0].autoCallId.identity)!;
		expect(task.templateId).toBe('tpl-7');
		expect(task.body.defaultExecData).toBe('bot-7');

		const before = sim.state.candidates.size;
		const unknown = await call('POST', `${CIS}/telephony/autoCallCandidate/single/batch`, {
			body: {
				batch: [{ phone: ['79990000002'] }, { phone: ['79990000003'], autoCallTemplateId: 'nope' }],
			},
		});
		expect(unknown.status).toBe(404);
		expect(sim.state.candidates.size).toBe(before);
	});
});

describe('batch answer shape and joining a 4.5 task', () => {
	it('batchAnswerShape "perTask": one inner array per task, candidates in request order', async () => {
		sim.setBatchAnswerShape('perTask');
		sim.addTemplate('tpl-b', { name: 'B', botSettingsId: 'bot-b' });
		const answer = await call('POST', `${CIS}/telephony/autoCallCandidate/single/batch`, {
			body: {
				batch: [
					{ phone: ['79990000001'] },
					{ phone: ['79990000002'], autoCallTemplateId: 'tpl-b' },
					{ phone: ['79990000003'] },
				],
			},
		});
		expect(answer.status).toBe(200);
		expect(answer.body.map((inner: any[]) => inner.length)).toEqual([2, 1]);
		const phoneOf = (entry: any) =>
			sim.state.candidates.get(entry.autoCallCandidateId.identity)!.phone[0];
		expect(answer.body[0].map(phoneOf)).toEqual(['79990000001', '79990000003']);
		expect(answer.body[1].map(phoneOf)).toEqual(['79990000002']);
		expect(new Set(answer.body[0].map((entry: any) => entry.autoCallId.identity)).size).toBe(1);
		sim.reset();
		expect(sim.config.batchAnswerShape).toBe('perCandidate');
	});

	it('candidates added with autoCallCandidate/batch to a task that 4.5 created join it and are called (no new task)', async () => {
		const created = await call('POST', `${CIS}/telephony/autoCallCandidate/single/batch`, {
			body: { batch: [{ phone: ['79990000001'] }] },
		});
		const taskId = created.body[0][0].autoCallId.identity;
		const joined = await call('POST', `${CIS}/telephony/autoCallCandidate/batch`, {
			body: {
				batch: [
					{ autoCallId: taskId, phone: ['79990000002'] },
					{ autoCallId: taskId, phone: ['79990000003'] },
				],
			},
		});
		expect(joined.status).toBe(200);
		expect(joined.body.map((inner: any[]) => inner[0].autoCallId.identity)).toEqual([
			taskId,
			taskId,
		]);
		expect(sim.state.tasks.size).toBe(1);
		await sim.idle();
		const called = [...sim.state.calls.values()].map((callRecord) => callRecord.callTo).sort();
		expect(called).toEqual(['79990000001', '79990000002', '79990000003']);
	});
});

describe('4.1, 4.2, 4.3 depersonalization and recordings', () => {
	it('4.1 answers 200 with an empty body, deletes the recording unless skipDeleteRecord', async () => {
		const kept = sim.addCall({ callTo: '79990000001' });
		const deleted = sim.addCall({ callTo: '79990000002' });
		const keep = await call('POST', `${CIS}/calls/${kept.id}/depersonalization`, {
			body: { skipDeleteRecord: true },
		});
		expect(keep.status).toBe(200);
		expect(keep.text).toBe('');
		expect(kept.depersonalized).toBe(true);
		expect(kept.record).not.toBeNull();

		const drop = await call('POST', `${CIS}/calls/${deleted.id}/depersonalization`);
		expect(drop.status).toBe(200);
		expect(drop.text).toBe('');
		expect(deleted.depersonalized).toBe(true);
		expect(deleted.record).toBeNull();
	});

	it('4.1 answers 404 Call not found for an unknown call', async () => {
		const answer = await call(
			'POST',
			`${CIS}/calls/00000000-0000-0000-0000-000000000000/depersonalization`,
		);
		expect(answer.status).toBe(404);
		expect(answer.body).toEqual({ error: 'Call not found', details: null });
	});

	it('4.2 depersonalizes the calls of a candidate; 404 for an unknown candidate', async () => {
		const single = await call('POST', `${CIS}/telephony/autoCallCandidate/single`, {
			body: { phone: ['79990000001'], botSettingsId: 'bot-a' },
		});
		await sim.idle();
		const candidateId = single.body.id.identity;
		const candidate = sim.state.candidates.get(candidateId)!;
		expect(candidate.callIds).toHaveLength(1);
		const answer = await call(
			'POST',
			`${CIS}/telephony/autoCallCandidate/${candidateId}/depersonalization`,
			{
				body: { skipDeleteRecord: false },
			},
		);
		expect(answer.status).toBe(200);
		expect(answer.text).toBe('');
		const theCall = sim.state.calls.get(candidate.callIds[0])!;
		expect(theCall.depersonalized).toBe(true);
		expect(theCall.record).toBeNull();

		const unknown = await call('POST', `${CIS}/telephony/autoCallCandidate/nope/depersonalization`);
		expect(unknown.status).toBe(404);
		expect(unknown.body).toEqual({ error: 'Candidate not found', details: null });
	});

	it('4.3 deletes a recording (200, empty body) and then answers 404', async () => {
		const theCall = sim.addCall();
		const answer = await call('DELETE', `${CIS}/calls/${theCall.id}/record`);
		expect(answer.status).toBe(200);
		expect(answer.text).toBe('');
		expect(theCall.record).toBeNull();
		expect((await call('DELETE', `${CIS}/calls/${theCall.id}/record`)).status).toBe(404);
		expect((await call('DELETE', `${CIS}/calls/unknown/record`)).body).toEqual({
			error: 'Call not found',
			details: null,
		});
	});
});

describe('task list and task', () => {
	async function createNamed(names: string[]) {
		const ids: string[] = [];
		for (const name of names) {
			ids.push(await createManualTask({ name }));
			await new Promise((r) => setTimeout(r, 2)); // distinct createdAt
		}
		return ids;
	}

	it('lists tasks as {items, total} with limit default 20, offset and page', async () => {
		await createNamed(Array.from({ length: 25 }, (_, i) => `Task ${String(i).padStart(2, '0')}`));
		const first = await call('GET', `${CIS}/telephony/autoCall`);
		expect(first.status).toBe(200);
		expect(first.body.total).toBe(25);
		expect(first.body.items).toHaveLength(20);
		const page2 = await call('GET', `${CIS}/telephony/autoCall?limit=10&page=3&sort=name`);
		expect(page2.body.items.map((t: any) => t.name)).toEqual([
			'Task 20',
			'Task 21',
			'Task 22',
			'Task 23',
			'Task 24',
		]);
		const offset = await call('GET', `${CIS}/telephony/autoCall?limit=2&offset=1&sort=name`);
		expect(offset.body.items.map((t: any) => t.name)).toEqual(['Task 01', 'Task 02']);
	});

	it('validates limit 1..1000', async () => {
		expect((await call('GET', `${CIS}/telephony/autoCall?limit=0`)).status).toBe(400);
		expect((await call('GET', `${CIS}/telephony/autoCall?limit=1001`)).status).toBe(400);
		expect((await call('GET', `${CIS}/telephony/autoCall?limit=abc`)).body.details).toEqual({
			field: 'limit',
		});
		expect((await call('GET', `${CIS}/telephony/autoCall?limit=1000`)).status).toBe(200);
	});

	it('filters by keyword (case-insensitive), status, from/to, and sorts', async () => {
		const [a, , c] = await createNamed(['Alpha sale', 'Beta', 'alphabet']);
		await call('POST', `${CIS}/telephony/autoCall/${c}/play`);
		const keyword = await call('GET', `${CIS}/telephony/autoCall?keyword=ALPHA&sort=name`);
		expect(keyword.body.items.map((t: any) => t.name)).toEqual(['Alpha sale', 'alphabet']);
		const status = await call('GET', `${CIS}/telephony/autoCall?status=PROCESS,PAUSED`);
		expect(status.body.items.map((t: any) => t.id)).toEqual([c]);
		const sortedDesc = await call('GET', `${CIS}/telephony/autoCall?sort=-updatedAt`);
		expect(sortedDesc.body.items[0].id).toBe(c);
		const createdA = sim.state.tasks.get(a)!.createdAt;
		const range = await call(
			'GET',
			`${CIS}/telephony/autoCall?from=${encodeURIComponent(createdA)}&to=${encodeURIComponent(createdA)}`,
		);
		expect(range.body.items.map((t: any) => t.id)).toEqual([a]);
		expect((await call('GET', `${CIS}/telephony/autoCall?status=DONE`)).status).toBe(400);
		expect((await call('GET', `${CIS}/telephony/autoCall?from=yesterday`)).status).toBe(400);
	});

	it('gets one task with its body, status and stats; 404 when unknown', async () => {
		const id = await createManualTask({ taskComment: 'hello' });
		const answer = await call('GET', `${CIS}/telephony/autoCall/${id}`);
		expect(answer.status).toBe(200);
		expect(answer.body).toMatchObject({
			id,
			name: 'Spring campaign',
			status: 'BLANK',
			taskComment: 'hello',
		});
		expect(answer.body.stats).toMatchObject({ candidates: 0, calls: 0 });
		expect(typeof answer.body.createdAt).toBe('string');
		expect((await call('GET', `${CIS}/telephony/autoCall/unknown`)).status).toBe(404);
	});

	it('moves status: BLANK→PROCESS (play), PROCESS→PAUSED, PAUSED→PROCESS, →HALTED final', async () => {
		const id = await createManualTask();
		const status = () => sim.state.tasks.get(id)!.status;
		expect((await call('POST', `${CIS}/telephony/autoCall/${id}/pause`)).status).toBe(422);
		expect((await call('POST', `${CIS}/telephony/autoCall/${id}/play`)).status).toBe(200);
		expect(status()).toBe('PROCESS');
		expect((await call('POST', `${CIS}/telephony/autoCall/${id}/pause`)).status).toBe(200);
		expect(status()).toBe('PAUSED');
		expect((await call('POST', `${CIS}/telephony/autoCall/${id}/play`)).body.status).toBe(
			'PROCESS',
		);
		expect((await call('POST', `${CIS}/telephony/autoCall/${id}/halted`)).status).toBe(200);
		expect(status()).toBe('HALTED');
		expect((await call('POST', `${CIS}/telephony/autoCall/${id}/play`)).status).toBe(422);
		expect((await call('POST', `${CIS}/telephony/autoCall/unknown/play`)).status).toBe(404);
	});
});

describe('candidates of existing tasks', () => {
	it('adds a candidate ({id:{identity}}); a repeated clientExternalId is added once', async () => {
		const taskId = await createManualTask();
		const item = { autoCallId: taskId, phone: ['79990000001'], clientExternalId: 'ext-1' };
		const first = await call('POST', `${CIS}/telephony/autoCallCandidate`, { body: item });
		const again = await call('POST', `${CIS}/telephony/autoCallCandidate`, { body: item });
		expect(first.status).toBe(200);
		expect(first.body.id.identity).toMatch(UUID);
		expect(again.body.id.identity).toBe(first.body.id.identity);
		expect(sim.state.candidates.size).toBe(1);
		expect(sim.createdByPhone()).toEqual({ '79990000001': 1 });
		expect(sim.state.tasks.get(taskId)!.status).toBe('BLANK');
	});

	it('forceStart starts the task; unknown task → 404; halted task → 422', async () => {
		const taskId = await createManualTask();
		await call('POST', `${CIS}/telephony/autoCallCandidate`, {
			body: { autoCallId: taskId, phone: ['79990000001'], forceStart: true },
		});
		expect(sim.state.tasks.get(taskId)!.status).toBe('PROCESS');
		expect(
			(
				await call('POST', `${CIS}/telephony/autoCallCandidate`, {
					body: { autoCallId: 'nope', phone: ['1'] },
				})
			).status,
		).toBe(404);
		await call('POST', `${CIS}/telephony/autoCall/${taskId}/halted`);
		expect(
			(
				await call('POST', `${CIS}/telephony/autoCallCandidate`, {
					body: { autoCallId: taskId, phone: ['1'] },
				})
			).status,
		).toBe(422);
	});

	it('batch answers the array-of-arrays shape and dedupes clientExternalId', async () => {
		const taskId = await createManualTask();
		const answer = await call('POST', `${CIS}/telephony/autoCallCandidate/batch`, {
			body: {
				batch: [
					{ autoCallId: taskId, phone: ['79990000001'], clientExternalId: 'x' },
					{ autoCallId: taskId, phone: ['79990000002'] },
					{ autoCallId: taskId, phone: ['79990000001'], clientExternalId: 'x' },
				],
				forceStart: false,
			},
		});
		expect(answer.status).toBe(200);
		expect(answer.body).toHaveLength(3);
		expect(answer.body[0][0].autoCallId.identity).toBe(taskId);
		expect(answer.body[2][0].autoCallCandidateId.identity).toBe(
			answer.body[0][0].autoCallCandidateId.identity,
		);
		expect(sim.counts()).toEqual({
			createdByPhone: { '79990000001': 1, '79990000002': 1 },
			duplicates: 0,
			total: 2,
		});
	});

	it('cancels a candidate by phone ({success:true}) or answers 404', async () => {
		const taskId = await createManualTask();
		await call('POST', `${CIS}/telephony/autoCallCandidate`, {
			body: { autoCallId: taskId, phone: ['79990000001'] },
		});
		const answer = await call(
			'POST',
			`${CIS}/telephony/autoCallCandidate/cancel?autoCallId=${taskId}&phone=79990000001`,
		);
		expect(answer.status).toBe(200);
		expect(answer.body).toEqual({ success: true });
		expect([...sim.state.candidates.values()][0].status).toBe('CANCELLED');
		const unknown = await call(
			'POST',
			`${CIS}/telephony/autoCallCandidate/cancel?autoCallId=${taskId}&phone=1`,
		);
		expect(unknown.status).toBe(404);
		const missing = await call(
			'POST',
			`${CIS}/telephony/autoCallCandidate/cancel?autoCallId=${taskId}`,
		);
		expect(missing.status).toBe(400);
	});
});

describe('createdByPhone', () => {
	it('counts candidates created per phone across all creating endpoints, duplicates included', async () => {
		const taskId = await createManualTask();
		await call('POST', `${CIS}/telephony/autoCallCandidate/single`, {
			body: { phone: ['7001'], botSettingsId: 'b' },
		});
		await call('POST', `${CIS}/telephony/autoCallCandidate/single`, {
			body: { phone: ['7001'], botSettingsId: 'b' },
		});
		await call('POST', `${CIS}/telephony/autoCallCandidate/single/batch`, {
			body: { batch: [{ phone: ['7002'] }] },
		});
		await call('POST', `${CIS}/telephony/autoCallCandidate`, {
			body: { autoCallId: taskId, phone: ['7003'] },
		});
		await call('POST', `${CIS}/telephony/autoCallCandidate/batch`, {
			body: { batch: [{ autoCallId: taskId, phone: ['7002'] }] },
		});
		expect(sim.createdByPhone()).toEqual({ '7001': 2, '7002': 2, '7003': 1 });
		expect(sim.counts()).toMatchObject({ duplicates: 2, total: 5 });
	});
});

describe('reset', () => {
	it('clears state and logs but keeps the configuration', async () => {
		await createManualTask();
		sim.injectFault({ status: 500, times: Infinity });
		sim.reset();
		expect(sim.state.tasks.size).toBe(0);
		expect(sim.requests).toHaveLength(0);
		expect(sim.state.defaultTemplate).not.toBeNull();
		expect((await call('GET', `${CIS}/telephony/autoCall`)).status).toBe(200);
	});
});
