/**
 * No request of the package follows a redirect. A server on 127.0.0.1 answers
 * every request with a redirect to a second server on 127.0.0.1 (another port); the second one
 * must receive nothing: from any action operation, from the credential test of both credential
 * types, from the login.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { runCredentialTest } from '../engine/harness';
import type { Simulator } from '../../simulator';
import {
	byId,
	EMAIL,
	jsonOf,
	PASSWORD,
	runAction,
	startSimulator,
	TOKEN,
} from '../actions/fixtures';

jest.setTimeout(60_000);

interface Seen {
	method: string;
	url: string;
	authorization?: string;
	body: string;
}

interface TinyServer {
	url: string;
	host: string;
	seen: Seen[];
	close(): Promise<void>;
}

async function startServer(
	handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TinyServer> {
	const seen: Seen[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			seen.push({
				method: req.method ?? '',
				url: req.url ?? '',
				authorization: req.headers.authorization,
				body: Buffer.concat(chunks).toString('utf8'),
			});
			handle(req, res);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		host: `127.0.0.1:${port}`,
		seen,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

let sim: Simulator;
let second: TinyServer;
let redirector: TinyServer;
let status = 302;

beforeAll(async () => {
	sim = await startSimulator();
	// What a leak would look like: a server that answers everything as the real one would.
	second = await startServer((_req, res) => {
		res.setHeader('content-type', 'application/json');
		res.end(
			JSON.stringify({
				token: 'stolen',
				id: { identity: 'x' },
				autoCallId: { identity: 'x' },
				autoCallCandidateId: { identity: 'y' },
			}),
		);
	});
	redirector = await startServer((req, res) => {
		res.statusCode = status;
		res.setHeader('location', `${second.url}${req.url ?? '/'}`);
		res.end();
	});
});
afterAll(async () => {
	await Promise.all([sim.close(), second.close(), redirector.close()]);
});
beforeEach(() => {
	sim.reset();
	second.seen.length = 0;
	redirector.seen.length = 0;
	status = 302;
});

const phone = '79990000001';

/** Every operation of the action node, with input that passes its checks. */
const operations: Array<[string, INodeParameters, IDataObject[]]> = [
	[
		'Call Task → Create',
		{ resource: 'callTask', operation: 'create', name: 'Leads', defaultExecData: 'bot-1' },
		[{}],
	],
	['Call Task → Get', { resource: 'callTask', operation: 'get', autoCallId: byId('task-1') }, [{}]],
	['Call Task → Get Many', { resource: 'callTask', operation: 'getMany', limit: 5 }, [{}]],
	[
		'Call Task → Start',
		{ resource: 'callTask', operation: 'start', autoCallId: byId('task-1') },
		[{}],
	],
	[
		'Call Task → Pause',
		{ resource: 'callTask', operation: 'pause', autoCallId: byId('task-1') },
		[{}],
	],
	[
		'Call Task → Stop',
		{ resource: 'callTask', operation: 'stop', autoCallId: byId('task-1') },
		[{}],
	],
	[
		'Candidate → Create and Run',
		{ resource: 'candidate', operation: 'createAndRun', botSettingsId: 'bot-1', phone },
		[{}],
	],
	[
		'Candidate → Create Batch From Template',
		{ resource: 'candidate', operation: 'createBatch', phone: '={{ $json.phone }}' },
		[{ phone }],
	],
	[
		'Candidate → Depersonalize',
		{ resource: 'candidate', operation: 'depersonalize', autoCallCandidateId: 'cand-1' },
		[{}],
	],
	[
		'Candidate → Add to Task',
		{ resource: 'candidate', operation: 'addToTask', autoCallId: byId('task-1'), phone },
		[{}],
	],
	[
		'Candidate → Add Many to Task',
		{ resource: 'candidate', operation: 'addManyToTask', autoCallId: byId('task-1'), phone },
		[{}],
	],
	[
		'Candidate → Cancel',
		{ resource: 'candidate', operation: 'cancel', autoCallId: byId('task-1'), phone },
		[{}],
	],
	[
		'Call → Depersonalize',
		{ resource: 'call', operation: 'depersonalize', callId: 'call-1' },
		[{}],
	],
	[
		'Call → Delete Recording',
		{ resource: 'call', operation: 'deleteRecording', callId: 'call-1' },
		[{}],
	],
];

const tokenCredentials = () => ({
	cisAutoCallApi: { baseUrl: redirector.url, accessToken: TOKEN },
});
const loginData = (loginUrl: string, baseUrl: string) => ({
	baseUrl,
	loginUrl,
	email: EMAIL,
	password: PASSWORD,
	ttl: 3600,
});

describe('a redirect is an error naming the status and the host; nothing reaches the other server', () => {
	test('all 14 operations, access token: 0 requests at the second server', async () => {
		expect(operations).toHaveLength(14);
		const perOperation: string[] = [];
		for (const [name, parameters, items] of operations) {
			const before = redirector.seen.length;
			const result = await runAction(sim, { ...parameters, options: { maxRetries: 3 } }, items, {
				credentials: tokenCredentials(),
				continueOnFail: true,
			});
			const [json] = jsonOf(result);
			perOperation.push(
				`${name}: ${redirector.seen.length - before} redirected, ${second.seen.length} at the second server`,
			);
			expect(redirector.seen.length - before).toBe(1);
			expect(json.error).toMatch(/302/);
			expect(json.error).toContain(second.host);
			expect(json.error).toMatch(/n8n does not follow/);
		}
		expect(second.seen).toEqual([]);
		expect(perOperation).toHaveLength(14);
	});

	test.each([301, 303, 307, 308])(
		'%s on a creating request: not followed, outcome unknown, never repeated',
		async (code) => {
			status = code;
			const result = await runAction(
				sim,
				{
					resource: 'candidate',
					operation: 'createAndRun',
					botSettingsId: 'bot-1',
					phone,
					options: { maxRetries: 3 },
				},
				[{}],
				{ credentials: tokenCredentials(), continueOnFail: true },
			);
			expect(redirector.seen).toHaveLength(1);
			expect(second.seen).toEqual([]);
			const [json] = jsonOf(result);
			expect(json.error).toMatch(
				new RegExp(`^Outcome unknown for POST .*answered ${code}, a redirect to ${second.host}`),
			);
			expect(json.error).toMatch(/may have been created; check the task before running again/);
		},
	);

	test('the login: the password does not reach the second server; no request is sent with a token', async () => {
		const result = await runAction(
			sim,
			{ authentication: 'login', resource: 'callTask', operation: 'getMany', limit: 5 },
			[{}],
			{
				credentials: {
					cisAutoCallLoginApi: loginData(`${redirector.url}/api/v1/auth/login`, sim.url),
				},
			},
		);
		expect(redirector.seen.map((seen) => `${seen.method} ${seen.url}`)).toEqual([
			'POST /api/v1/auth/login',
		]);
		expect(second.seen).toEqual([]);
		expect(result.error?.message).toMatch(
			new RegExp(`redirect \\(HTTP 302\\) to ${second.host}.*password was not sent there`),
		);
		expect(JSON.stringify(result.recordedError)).not.toContain(PASSWORD);
		expect(sim.requests).toEqual([]);
	});

	test('the login credential: a login that works, then API requests redirected: the token does not reach the second server', async () => {
		const result = await runAction(
			sim,
			{ authentication: 'login', resource: 'callTask', operation: 'getMany', limit: 5 },
			[{}],
			{
				credentials: {
					cisAutoCallLoginApi: loginData(`${sim.url}/api/v1/auth/login`, redirector.url),
				},
			},
		);
		expect(sim.logins).toBe(1);
		expect(redirector.seen).toHaveLength(1);
		expect(second.seen).toEqual([]);
		expect(result.error?.message).toMatch(/302/);
		expect(result.error?.message).toContain(second.host);
	});

	test('credential test, access token: Error naming the redirect; 0 requests at the second server', async () => {
		const result = await runCredentialTest(new CisAutoCallApi(), {
			baseUrl: redirector.url,
			accessToken: TOKEN,
		});
		expect(redirector.seen).toHaveLength(1);
		expect(second.seen).toEqual([]);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/redirect \(HTTP 302\).*does not follow redirects/);
	});

	test('credential test, login credential, API redirected: Error; 0 requests at the second server', async () => {
		const result = await runCredentialTest(
			new CisAutoCallLoginApi(),
			loginData(`${sim.url}/api/v1/auth/login`, redirector.url),
		);
		expect(sim.logins).toBe(1);
		expect(redirector.seen).toHaveLength(1);
		expect(second.seen).toEqual([]);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/redirect \(HTTP 302\)/);
	});

	test('credential test, login credential, login redirected: Error naming status and host; 0 requests at the second server', async () => {
		const result = await runCredentialTest(
			new CisAutoCallLoginApi(),
			loginData(`${redirector.url}/api/v1/auth/login`, sim.url),
		);
		expect(redirector.seen).toHaveLength(1);
		expect(second.seen).toEqual([]);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(new RegExp(`redirect \\(HTTP 302\\) to ${second.host}`));
		expect(result.message).not.toContain(PASSWORD);
	});
});
