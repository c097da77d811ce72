// The /__sim/ control API and the CLI (the simulator as its own process).
import { ChildProcess, spawn } from 'child_process';
import * as http from 'http';
import * as path from 'path';
import { startQuickSimulator, useSimulator } from '../lib/simulator';
import { CIS, createClient, startReceiver, target } from './testkit';

describe('/__sim/ control API', () => {
	const sim = useSimulator(startQuickSimulator, {
		settle: true,
		emptyAfter: true,
		closeAfterAll: () => client.close(),
	});
	const client = createClient(() => sim.url);
	const call = client.call;
	const control = (method: string, route: string, body?: unknown) =>
		call(method, `/__sim/${route}`, { body, token: null });

	it('control calls need no auth and are not logged as API requests', async () => {
		await call('GET', `${CIS}/telephony/autoCall`);
		const requests = await control('GET', 'requests');
		expect(requests.status).toBe(200);
		expect(requests.body).toHaveLength(1);
		expect(requests.body[0]).toMatchObject({
			method: 'GET',
			path: `${CIS}/telephony/autoCall`,
			status: 200,
		});
		expect(sim.requests).toHaveLength(1);
	});

	it('state, counts and reset', async () => {
		await call('POST', `${CIS}/telephony/autoCallCandidate/single`, {
			body: { phone: ['7001'], botSettingsId: 'b' },
		});
		await call('POST', `${CIS}/telephony/autoCallCandidate/single`, {
			body: { phone: ['7001'], botSettingsId: 'b' },
		});
		await control('GET', 'idle');
		const state = await control('GET', 'state');
		expect(state.body.tasks).toHaveLength(1);
		expect(state.body.candidates).toHaveLength(2);
		expect(state.body.calls).toHaveLength(2);
		expect(state.body.tasks[0].status).toBe('PROCESS');
		const counts = await control('GET', 'counts');
		expect(counts.body).toMatchObject({ createdByPhone: { '7001': 2 }, duplicates: 1, total: 2 });
		expect((await control('POST', 'reset')).body).toEqual({ ok: true });
		expect((await control('GET', 'counts')).body).toMatchObject({
			createdByPhone: {},
			duplicates: 0,
			total: 0,
		});
	});

	it('fault (string path and {regex}), fault-rate, rate-limit, latency', async () => {
		await control('POST', 'fault', { path: `${CIS}/telephony/autoCall`, status: 503, times: 1 });
		expect((await call('GET', `${CIS}/telephony/autoCall`)).status).toBe(503);
		await control('POST', 'fault', {
			path: { regex: 'autoCall$' },
			status: 500,
			times: 'Infinity',
		});
		expect((await call('GET', `${CIS}/telephony/autoCall`)).status).toBe(500);
		expect((await call('GET', `${CIS}/telephony/autoCall`)).status).toBe(500);
		await control('POST', 'reset');

		await control('POST', 'fault-rate', { rate: 1, kinds: ['429'], seed: 3 });
		expect((await call('GET', `${CIS}/telephony/autoCall`)).status).toBe(429);
		await control('POST', 'fault-rate', { rate: 0 });
		expect((await call('GET', `${CIS}/telephony/autoCall`)).status).toBe(200);

		await control('POST', 'rate-limit', { perSecond: 1 });
		expect((await call('GET', `${CIS}/telephony/autoCall`)).status).toBe(200);
		expect((await call('GET', `${CIS}/telephony/autoCall`)).status).toBe(429);
		await control('POST', 'rate-limit', null);
		expect((await call('GET', `${CIS}/telephony/autoCall`)).status).toBe(200);

		await control('POST', 'latency', { ms: 100 });
		const started = Date.now();
		await call('GET', `${CIS}/telephony/autoCall`);
		expect(Date.now() - started).toBeGreaterThanOrEqual(90);
	});

	it('connection-delay: the first API request of each new connection waits, and connections are counted', async () => {
		const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
		const get = () =>
			new Promise<number>((resolve, reject) => {
				const started = Date.now();
				const request = http.get(
					`${sim.url}${CIS}/telephony/autoCall`,
					{ agent, headers: { authorization: 'Bearer sim-token' } },
					(response) => {
						response.resume();
						response.on('end', () => resolve(Date.now() - started));
					},
				);
				request.on('error', reject);
			});
		try {
			await control('POST', 'connection-delay', { ms: 150 });
			expect(await get()).toBeGreaterThanOrEqual(140);
			await get();
			// the second request of the same connection is not delayed
			expect(sim.requests.map((request) => request.delayedMs)).toEqual([150, 0]);
			expect((await control('GET', 'counts')).body.connections).toBe(1);
			agent.destroy();
			await get();
			expect((await control('GET', 'counts')).body.connections).toBe(2);
			expect(sim.requests.map((request) => request.delayedMs)).toEqual([150, 0, 150]);
			await control('POST', 'reset');
			expect((await control('GET', 'counts')).body.connections).toBe(0);
			await get();
			// reset restores the configured connection delay (none)
			expect(sim.requests.map((request) => request.delayedMs)).toEqual([0]);
		} finally {
			agent.destroy();
		}
	});

	it('outcome, default-template and deliveries drive webhooks', async () => {
		const receiver = await startReceiver();
		try {
			await control('POST', 'outcome', { phone: '7002', script: { attempts: ['BUSY'] } });
			const template = await control('POST', 'default-template', {
				webhookUrls: [target(receiver.url, ['CALL_ENDED'])],
			});
			expect(template.body.webhookUrls).toHaveLength(1);
			await call('POST', `${CIS}/telephony/autoCallCandidate/single`, {
				body: { phone: ['7002'], botSettingsId: 'b' },
			});
			await control('GET', 'idle');
			const deliveries = await control('GET', 'deliveries');
			expect(deliveries.body).toHaveLength(1);
			expect(deliveries.body[0]).toMatchObject({
				url: receiver.url,
				status: 200,
				attempt: 1,
				body: { status: 'BUSY' },
			});
			const events = await control('GET', 'events');
			expect(events.body.map((e: any) => e.event)).toContain('CANDIDATE_CHANGED');
		} finally {
			await receiver.close();
		}
	});

	it('expire-tokens', async () => {
		const login = await call('POST', '/api/v1/auth/login', {
			token: null,
			body: { email: 'user@example.com', password: 'secret' },
		});
		await control('POST', 'expire-tokens');
		const answer = await call('GET', `${CIS}/telephony/autoCall`, { token: login.body.token });
		expect(answer.body).toEqual({ error: 'Token is expired.' });
	});

	it('template, task-webhooks and call helpers; bad control input → 400; unknown → 404', async () => {
		expect(
			(await control('POST', 'template', { id: 'tpl-1', template: { botSettingsId: 'b1' } })).body
				.id,
		).toBe('tpl-1');
		const added = await control('POST', 'call', { callTo: '7003' });
		expect(sim.state.calls.get(added.body.id)!.record).not.toBeNull();
		expect(
			(await control('POST', 'task-webhooks', { taskId: 'nope', webhookUrls: [] })).status,
		).toBe(400);
		expect(
			(await control('POST', 'outcome', { phone: '1', script: { attempts: ['MAYBE'] } })).status,
		).toBe(400);
		expect((await control('GET', 'nothing')).status).toBe(404);
	});

	it('default-template with null removes the default template', async () => {
		await control('POST', 'default-template', null);
		expect(sim.state.defaultTemplate).toBeNull();
		const answer = await call('POST', `${CIS}/telephony/autoCallCandidate/single`, {
			body: { phone: ['1'], botSettingsId: 'b' },
		});
		expect(answer.status).toBe(422);
	});
});

describe('CLI', () => {
	const cliPath = path.join(__dirname, '..', '..', 'simulator', 'cli.js');

	function startCli(args: string[]): Promise<{ child: ChildProcess; url: string }> {
		return new Promise((resolve, reject) => {
			const child = spawn(process.execPath, [cliPath, ...args], {
				stdio: ['ignore', 'pipe', 'pipe'],
			});
			let output = '';
			const timer = setTimeout(() => reject(new Error(`CLI did not start: ${output}`)), 10_000);
			child.stdout!.on('data', (chunk) => {
				output += chunk;
				const match = /^CIS simulator listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(output);
				if (match) {
					clearTimeout(timer);
					resolve({ child, url: match[1] });
				}
			});
			child.stderr!.on('data', (chunk) => (output += chunk));
			child.on('exit', (code) => {
				clearTimeout(timer);
				reject(new Error(`CLI exited with ${code}: ${output}`));
			});
		});
	}

	function exitOf(child: ChildProcess): Promise<number | null> {
		return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
	}

	it('prints one line with the URL, serves the API with the given token, stops cleanly on SIGTERM', async () => {
		const { child, url } = await startCli([
			'--port',
			'0',
			'--token',
			'cli-token',
			'--time-scale',
			'0.001',
			'--user',
			'a@b.c:pw',
		]);
		const client = createClient(() => url);
		try {
			expect(
				(await client.call('GET', `${CIS}/telephony/autoCall`, { token: 'cli-token' })).status,
			).toBe(200);
			expect(
				(await client.call('GET', `${CIS}/telephony/autoCall`, { token: 'sim-token' })).status,
			).toBe(401);
			const login = await client.call('POST', '/api/v1/auth/login', {
				token: null,
				body: { email: 'a@b.c', password: 'pw' },
			});
			expect(login.status).toBe(200);
			expect((await client.call('GET', '/__sim/counts', { token: null })).body.logins).toBe(1);
		} finally {
			await client.close();
		}
		const exited = exitOf(child);
		child.kill('SIGTERM');
		expect(await exited).toBe(0);
	});

	it('stops cleanly on SIGINT', async () => {
		const { child } = await startCli(['--port=0']);
		const exited = exitOf(child);
		child.kill('SIGINT');
		expect(await exited).toBe(0);
	});
});
