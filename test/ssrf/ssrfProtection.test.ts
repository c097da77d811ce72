/**
 * n8n's SSRF protection (n8n 2.x, N8N_SSRF_PROTECTION_ENABLED=true) through n8n-core's real engine
 * and its real egress filter (@n8n/backend-network): the service allowed (127.0.0.2/32), n8n's own
 * address 127.0.0.1 blocked. A request n8n blocks is a sure "not sent" naming the address and the
 * setting; a wait whose result could never be handed over is refused before anyone is called; the
 * trigger publishes as before with one warning in n8n's log naming the setting, and at event time
 * answers so that the service stops, keeping the result in its own workflow's execution.
 */
import { ALLOWED_HOST } from './ssrfEnv';

import { Logger } from '@n8n/backend-common';
import { SsrfBlockedHostnameError, SsrfBlockedIpError } from '@n8n/backend-network';
import { Container } from '@n8n/di';
import { type IDataObject, type INodeParameters, NodeApiError } from 'n8n-workflow';
import { Agent, request } from 'undici';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCallWebhookSecretApi } from '../../credentials/CisAutoCallWebhookSecretApi.credentials';
import { CisAutoCall } from '../../nodes/CisAutoCall/CisAutoCall.node';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import { classify } from '../../nodes/shared/transport/classify';
import { readFailure } from '../../nodes/shared/transport/failure';
import { toNodeApiError } from '../../nodes/shared/transport/apiErrors';
import { WAIT_MARKER_FIELD } from '../../nodes/shared/waitForResult';
import { createSimulator, type Simulator } from '../../simulator';
import {
	HARNESS_WORKFLOW_ID,
	runCredentialTest,
	runNode,
	runWebhookMethod,
	startWebhookServer,
	WaitingExecutions,
	type WebhookServer,
} from '../engine/harness';

const TOKEN = 'sim-token';
const USER = { email: 'user@example.com', password: 'secret' };
const SECRET = 'trigger-secret-0123456789';
const credentialTypes = [
	new CisAutoCallApi(),
	new CisAutoCallLoginApi(),
	new CisAutoCallWebhookSecretApi(),
];
const NOT_SURE = /outcome unknown|may have been created/i;

let allowed: Simulator;
let blocked: Simulator;
/** Why 127.0.0.2 could not be used (macOS has only 127.0.0.1 until `sudo ifconfig lo0 alias 127.0.0.2 up`). */
let allowedHostProblem = '';
const needsAllowedHost = () => {
	if (allowedHostProblem)
		throw new Error(
			`the simulator could not listen on ${ALLOWED_HOST}: ${allowedHostProblem}. On macOS: sudo ifconfig lo0 alias ${ALLOWED_HOST} up`,
		);
};
let servers: WebhookServer[] = [];
const agent = new Agent({ keepAliveTimeout: 1000 });
beforeAll(async () => {
	blocked = await createSimulator({ port: 0, timeScale: 0.01, users: [USER] });
	try {
		allowed = await createSimulator({
			port: 0,
			host: ALLOWED_HOST,
			timeScale: 0.01,
			users: [USER],
		});
	} catch (error) {
		allowedHostProblem = (error as Error).message;
		allowed = blocked;
	}
});
afterEach(async () => {
	for (const server of servers) await server.close();
	servers = [];
	allowed.reset();
	blocked.reset();
	jest.restoreAllMocks();
});
afterAll(async () => {
	if (allowed !== blocked) await allowed.close();
	await blocked.close();
	await agent.close();
});

const createAndRun = {
	authentication: 'accessToken',
	resource: 'candidate',
	operation: 'createAndRun',
	botSettingsId: 'bot-1',
	phone: '={{ $json.phone }}',
};

describe("n8n's own SSRF error, classified", () => {
	const node = {
		id: 'n',
		name: 'CIS',
		type: 'cis',
		typeVersion: 2,
		position: [0, 0] as [number, number],
		parameters: {},
	};
	const context = { getNode: () => node } as never;
	const request = {
		method: 'POST' as const,
		path: 'telephony/autoCallCandidate/single',
		repeatability: 'create' as const,
	};

	test('an address n8n blocks (SsrfBlockedIpError, as n8n wraps it): not sent, not repeated, never "outcome unknown"', () => {
		const error = new NodeApiError(node, new SsrfBlockedIpError('10.1.2.3') as never);
		const failure = readFailure(
			error,
			'https://cis.internal.example/cis/api/v1/telephony/autoCallCandidate/single',
		);
		expect(failure.blocked).toEqual({
			ip: '10.1.2.3',
			hostname: 'cis.internal.example',
			byHostname: false,
		});
		const rule = classify(request, failure);
		expect(rule).toMatchObject({
			kind: 'blockedByN8n',
			nothingSent: true,
			repeat: false,
			mayHaveBeenCarriedOut: false,
			outcomeUnknown: false,
			overload: false,
		});
		const apiError = toNodeApiError(context, request, failure, { attempts: 1, itemIndex: 0 });
		expect(apiError.message).toBe(
			"Not sent: n8n's SSRF protection blocked the request to cis.internal.example (10.1.2.3) (POST /cis/api/v1/telephony/autoCallCandidate/single); nothing reached the service",
		);
		expect(apiError.description).toContain(
			'add cis.internal.example to N8N_SSRF_ALLOWED_HOSTNAMES (or 10.1.2.3/32 to N8N_SSRF_ALLOWED_IP_RANGES)',
		);
		expect(`${apiError.message} ${apiError.description}`).not.toMatch(NOT_SURE);
		expect(apiError.context.outcomeUnknown).toBe(false);
	});

	test('an IP address in the URL: only the range setting can allow it', () => {
		const failure = readFailure(
			new SsrfBlockedIpError('192.168.1.20'),
			'http://192.168.1.20:8080/cis/api/v1/x',
		);
		expect(failure.blocked).toEqual({ ip: '192.168.1.20', byHostname: false });
		const apiError = toNodeApiError(context, request, failure, { attempts: 1 });
		expect(apiError.description).toContain('add 192.168.1.20/32 to N8N_SSRF_ALLOWED_IP_RANGES');
		expect(apiError.description).not.toContain('N8N_SSRF_ALLOWED_HOSTNAMES');
	});

	test('a host name on the deny-list (SsrfBlockedHostnameError)', () => {
		const failure = readFailure(
			new SsrfBlockedHostnameError('cis.example.com'),
			'https://cis.example.com/cis/api/v1/x',
		);
		expect(classify(request, failure).kind).toBe('blockedByN8n');
		expect(toNodeApiError(context, request, failure, { attempts: 1 }).description).toContain(
			'remove cis.example.com from N8N_SSRF_BLOCKED_HOSTNAMES or add it to N8N_SSRF_ALLOWED_HOSTNAMES',
		);
	});
});

describe('the action node and the credentials, with the service blocked or allowed', () => {
	test('the service in a blocked range: every item says "not sent", the address and the setting; nothing reached the service', async () => {
		const result = await runNode({
			node: new CisAutoCall(),
			credentialTypes,
			parameters: createAndRun,
			credentials: { cisAutoCallApi: { baseUrl: blocked.url, accessToken: TOKEN } },
			items: [{ phone: '79990000001' }, { phone: '79990000002' }],
			continueOnFail: true,
		});
		const errors = result.items.map((item) => item.json.error as string);
		expect(errors).toHaveLength(2);
		expect(errors[0]).toBe(
			"Not sent: n8n's SSRF protection blocked the request to 127.0.0.1 (POST /cis/api/v1/telephony/autoCallCandidate/single); nothing reached the service",
		);
		expect(errors[1]).toBe(errors[0]);
		const text = JSON.stringify(result.items);
		expect(text).toContain('add 127.0.0.1/32 to N8N_SSRF_ALLOWED_IP_RANGES');
		expect(text).not.toMatch(NOT_SURE);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(blocked.requests).toHaveLength(0);
	});

	test('the same without Continue On Fail: the node fails with the same words', async () => {
		const result = await runNode({
			node: new CisAutoCall(),
			credentialTypes,
			parameters: createAndRun,
			credentials: { cisAutoCallApi: { baseUrl: blocked.url, accessToken: TOKEN } },
			items: [{ phone: '79990000003' }],
		});
		expect(result.error?.message).toMatch(
			/^Not sent: n8n's SSRF protection blocked the request to 127\.0\.0\.1/,
		);
		expect(
			`${result.error?.message} ${(result.error as { description?: string }).description}`,
		).not.toMatch(NOT_SURE);
		expect(blocked.requests).toHaveLength(0);
	});

	test('the login credential: the login is not sent, and the error says why and what allows it', async () => {
		const result = await runNode({
			node: new CisAutoCall(),
			credentialTypes,
			parameters: { ...createAndRun, authentication: 'login' },
			credentials: {
				cisAutoCallLoginApi: {
					baseUrl: blocked.url,
					loginUrl: `${blocked.url}/api/v1/auth/login`,
					...USER,
					ttl: 3600,
				},
			},
			items: [{ phone: '79990000004' }],
			continueOnFail: true,
		});
		const error = result.items[0].json.error as string;
		expect(error).toMatch(
			/^Login at http:\/\/127\.0\.0\.1:\d+\/api\/v1\/auth\/login not sent: n8n's SSRF protection blocks 127\.0\.0\.1, so nothing reached the service\. To allow it, the n8n administrator can add 127\.0\.0\.1\/32 to N8N_SSRF_ALLOWED_IP_RANGES and restart n8n\.$/,
		);
		expect(JSON.stringify(result.items)).not.toMatch(NOT_SURE);
		expect(blocked.requests).toHaveLength(0);
		expect(blocked.logins).toBe(0);
	});

	test('the credential tests: blocked, and no request reached the service; the login credential names the address and the setting', async () => {
		const token = await runCredentialTest(new CisAutoCallApi(), {
			baseUrl: blocked.url,
			accessToken: TOKEN,
		});
		// The token credential's test is declarative: n8n runs it and shows its own error's words
		// (they say "blocked"; the address and the setting are not in n8n's message).
		expect(token.status).toBe('Error');
		expect(token.message).toBe(
			'The request was blocked because it resolves to a restricted IP address',
		);
		const login = await runCredentialTest(new CisAutoCallLoginApi(), {
			baseUrl: blocked.url,
			loginUrl: `${blocked.url}/api/v1/auth/login`,
			...USER,
			ttl: 3600,
		});
		expect(login.status).toBe('Error');
		expect(login.message).toContain("not sent: n8n's SSRF protection blocks 127.0.0.1");
		expect(login.message).toContain('N8N_SSRF_ALLOWED_IP_RANGES');
		expect(blocked.requests).toHaveLength(0);
	});

	test('the service in the allowed range (N8N_SSRF_ALLOWED_IP_RANGES=127.0.0.2/32): sent and created as without SSRF protection', async () => {
		needsAllowedHost();
		const result = await runNode({
			node: new CisAutoCall(),
			credentialTypes,
			parameters: createAndRun,
			credentials: { cisAutoCallApi: { baseUrl: allowed.url, accessToken: TOKEN } },
			items: [{ phone: '79990000005' }],
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.error).toBeUndefined();
		expect(allowed.createdByPhone()['79990000005']).toBe(1);
	});
});

describe("waits, with n8n's own address blocked", () => {
	test('Create and Run and Wait for Result: nobody is called, and the error names the setting', async () => {
		const waiting = new WaitingExecutions({ checksToken: true });
		waiting.waitingBaseUrl = 'http://127.0.0.1:5678/webhook-waiting';
		const execution = await waiting.run({
			node: new CisAutoCall(),
			credentialTypes,
			credentials: { cisAutoCallApi: { baseUrl: allowed.url, accessToken: TOKEN } },
			parameters: {
				...createAndRun,
				operation: 'createAndRunAndWait',
				waitAtMost: 2,
				waitUnit: 'hours',
			},
			items: [{ phone: '79990000006' }],
		});
		const error = execution.run.data.resultData.error as
			{ message?: string; description?: string } | undefined;
		expect(error?.message).toBe(
			"Not sent: n8n's SSRF protection blocks n8n's own address 127.0.0.1, where the CIS Auto-Call Trigger hands over the result, so this wait could never end. To allow it, add 127.0.0.1/32 to N8N_SSRF_ALLOWED_IP_RANGES",
		);
		expect(execution.status).toBe('finished');
		expect(allowed.requests).toHaveLength(0);
	});

	/** Publishing as n8n does it (WebhookService.createWebhookIfNotExists): checkExists, then create when it answers false. */
	async function publish(opts: {
		typeVersion: number;
		parameters: INodeParameters;
		webhookBaseUrl: string;
		staticData: IDataObject;
	}) {
		const common = {
			node: new CisAutoCallTrigger(),
			credentialTypes,
			credentials: {
				cisAutoCallWebhookSecretApi: { secret: SECRET },
				cisAutoCallApi: { baseUrl: allowed.url, accessToken: TOKEN },
			},
			parameters: opts.parameters,
			staticData: opts.staticData,
			webhookBaseUrl: opts.webhookBaseUrl,
			typeVersion: opts.typeVersion,
		};
		const exists = await runWebhookMethod({ ...common, method: 'checkExists' });
		if (exists.error || exists.result) return exists;
		return runWebhookMethod({ ...common, method: 'create' });
	}
	const existingTask: INodeParameters = {
		connectTo: 'existing',
		events: ['CALL_ENDED', 'CANDIDATE_CHANGED'],
	};
	const newTask: INodeParameters = {
		connectTo: 'newTask',
		authentication: 'accessToken',
		events: ['CALL_ENDED', 'CANDIDATE_CHANGED'],
		name: 'SSRF campaign',
		defaultExecData: 'bot-1',
		options: { allowLocalUrl: true },
	};

	test("publishing the trigger succeeds (every version: 0.2.0's workflows publish as they did) and n8n's log gets one warning naming the setting", async () => {
		const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => {});
		const cases: Array<[number, INodeParameters, string, string, string]> = [];
		for (const typeVersion of [1, 1.1, 2]) {
			cases.push([
				typeVersion,
				existingTask,
				'http://127.0.0.1:5678/webhook/',
				'127.0.0.1',
				'Add 127.0.0.1/32 to N8N_SSRF_ALLOWED_IP_RANGES (or give n8n a host name in N8N_WEBHOOK_URL and add that name to N8N_SSRF_ALLOWED_HOSTNAMES), then restart n8n.',
			]);
			cases.push([
				typeVersion,
				existingTask,
				'http://localhost:5678/webhook/',
				'localhost (127.0.0.1)',
				'Add localhost to N8N_SSRF_ALLOWED_HOSTNAMES (or 127.0.0.1/32 to N8N_SSRF_ALLOWED_IP_RANGES), then restart n8n.',
			]);
		}
		for (const [typeVersion, parameters, webhookBaseUrl, address, setting] of cases) {
			warn.mockClear();
			const published = await publish({ typeVersion, parameters, webhookBaseUrl, staticData: {} });
			const where = `version ${typeVersion} at ${webhookBaseUrl}`;
			expect({ where, error: published.error?.message, result: published.result }).toEqual({
				where,
				error: undefined,
				result: true,
			});
			expect(warn.mock.calls.map((call) => String(call[0]))).toEqual([
				`CIS Auto-Call Trigger "CIS Auto-Call Trigger" (workflow ${HARNESS_WORKFLOW_ID}): n8n's SSRF protection blocks this trigger's own address ${address}, so waiting workflows could never get their results ("… and Wait for Result" calls nobody until then). ${setting}`,
			]);
		}
	});

	test('New Call Task: publishing registers the call task as before (one warning, though n8n runs checkExists and create)', async () => {
		needsAllowedHost();
		const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => {});
		for (const typeVersion of [1.1, 2]) {
			warn.mockClear();
			allowed.reset();
			const staticData: IDataObject = {};
			const published = await publish({
				typeVersion,
				parameters: newTask,
				webhookBaseUrl: 'http://localhost:5678/webhook/',
				staticData,
			});
			expect(published.error).toBeUndefined();
			expect(published.result).toBe(true);
			expect(
				allowed.requests.filter(
					(r) => r.method === 'POST' && r.path === '/cis/api/v1/telephony/autoCall',
				),
			).toHaveLength(1);
			const warnings = warn.mock.calls.map((call) => String(call[0]));
			expect(warnings).toHaveLength(1);
			expect(warnings[0]).toContain(
				'Add localhost to N8N_SSRF_ALLOWED_HOSTNAMES (or 127.0.0.1/32 to N8N_SSRF_ALLOWED_IP_RANGES), then restart n8n.',
			);
		}
	});

	test("n8n's own address allowed (127.0.0.2): publishing logs no warning", async () => {
		const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => {});
		const published = await publish({
			typeVersion: 2,
			parameters: existingTask,
			webhookBaseUrl: `http://${ALLOWED_HOST}:5678/webhook/`,
			staticData: {},
		});
		expect(published.error).toBeUndefined();
		expect(published.result).toBe(true);
		expect(warn).not.toHaveBeenCalled();
	});

	test("at event time (the trigger's hand-over blocked): answered 200 so that the service stops, the event starts the trigger's workflow, n8n's log says why", async () => {
		const errors = jest.spyOn(Container.get(Logger), 'error').mockImplementation(() => {});
		const server = await startWebhookServer({
			node: new CisAutoCallTrigger(),
			credentialTypes,
			credentials: { cisAutoCallWebhookSecretApi: { secret: SECRET } },
			parameters: { connectTo: 'existing', events: ['CALL_ENDED', 'CANDIDATE_CHANGED'] },
			staticData: {},
		});
		servers.push(server);
		const marker = {
			execution: '41',
			token: 'tok',
			node: 'waiting-node-1',
			item: 0,
			key: 'a'.repeat(64),
		};
		const event = {
			event: 'CALL_ENDED',
			id: 'call-1',
			taskId: 7,
			candidateId: 9,
			status: 'ANSWERED',
			result: { interested: 'yes' },
			callbackData: { crmId: 'S-1', [WAIT_MARKER_FIELD]: marker },
		};
		const answer = await request(`${server.url}?secret=${SECRET}`, {
			method: 'POST',
			dispatcher: agent,
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(event),
		});
		const body = JSON.parse(await answer.body.text()) as IDataObject;
		expect(answer.statusCode).toBe(200);
		// The service learns only that it was not handed over: n8n's addresses and settings stay in n8n.
		expect(body).toEqual({ received: true, deliveryId: expect.any(String), handedOver: false });
		expect(server.started).toHaveLength(1);
		const [item] = server.started[0][0];
		expect(item.json).toMatchObject({
			event: 'CALL_ENDED',
			status: 'ANSWERED',
			result: { interested: 'yes' },
			callbackData: { crmId: 'S-1' },
			notHandedOver: expect.stringMatching(
				/^n8n's SSRF protection blocked the hand-over of the call's result to n8n's own waiting address \(http:\/\/127\.0\.0\.1:\d+, 127\.0\.0\.1\)\. Add 127\.0\.0\.1\/32 to N8N_SSRF_ALLOWED_IP_RANGES/,
			),
		});
		expect(JSON.stringify(item.json)).not.toContain(marker.key);
		expect(errors.mock.calls.map((call) => String(call[0])).join('\n')).toMatch(
			/SSRF protection blocked the hand-over.*The waiting execution 41 ends at its time limit/,
		);
	});
});
