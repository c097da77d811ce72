/**
 * ApiClient judges every answer. A 2xx that fails
 * the request's `expect` check (or is an HTML page) is not a success; for a creating request it
 * is "outcome unknown". With the login credential, requests in flight at once share one login.
 *
 * A small probe node (defined here) sends requests through ApiClient with a check written in
 * this test, run by n8n-core's engine against a tiny server or the simulator on 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { authenticationProperty, credentialDescriptions } from '../../nodes/shared/authentication';
import {
	type AnswerCheck,
	createApiClient,
	DEFAULT_TRANSPORT_SETTINGS,
	type Repeatability,
} from '../../nodes/shared/transport';
import { runNode, type RunResult } from '../engine/harness';
import type { Simulator } from '../../simulator';
import {
	apiRequests,
	credentialsFor,
	jsonOf,
	runAction,
	startSimulator,
	TOKEN,
} from '../actions/fixtures';

jest.setTimeout(30_000);

/** The check of this test: what the spec promises for a creation (4.4: `{ id: { identity } }`). */
const hasIdentity: AnswerCheck = (answer) => {
	const id = (answer as { id?: { identity?: unknown } } | undefined)?.id;
	return typeof id?.identity === 'string' ? undefined : 'no id.identity in the answer';
};

/** Sends every input item's request at once (no pool), each with `hasIdentity` when `check` is set. */
class TransportProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Transport Probe',
		name: 'transportProbe',
		group: ['transform'],
		version: 1,
		description: 'Sends the requests its items describe through ApiClient',
		defaults: { name: 'Transport Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: credentialDescriptions,
		properties: [authenticationProperty],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const client = await createApiClient(this, { ...DEFAULT_TRANSPORT_SETTINGS, maxRetries: 2 });
		const outputs = await Promise.all(
			this.getInputData().map(async (item, itemIndex) => {
				const spec = item.json as {
					path: string;
					method?: 'GET' | 'POST';
					repeatability?: Repeatability;
					check?: boolean;
				};
				try {
					const answer = await client.request(
						{
							method: spec.method ?? 'POST',
							path: spec.path,
							body: spec.method === 'GET' ? undefined : {},
							repeatability: spec.repeatability ?? 'create',
							expect: spec.check ? hasIdentity : undefined,
						},
						itemIndex,
					);
					return { json: { answer } as IDataObject, pairedItem: { item: itemIndex } };
				} catch (error) {
					const { message, description } = error as { message: string; description?: string };
					return {
						json: { error: message, description: description ?? null },
						pairedItem: { item: itemIndex },
					};
				}
			}),
		);
		return [outputs];
	}
}

type Credentials = Parameters<typeof runNode>[0]['credentials'];

async function probe(
	items: IDataObject[],
	credentials: Credentials,
	{
		authentication = 'accessToken',
		...extra
	}: Partial<Parameters<typeof runNode>[0]> & { authentication?: string } = {},
): Promise<RunResult> {
	return await runNode({
		node: new TransportProbe(),
		credentialTypes: [new CisAutoCallApi(), new CisAutoCallLoginApi()],
		parameters: { authentication },
		credentials,
		items,
		...extra,
	});
}

const LONG_TAIL = 'x'.repeat(10_000);

/** Answers by path; counts what it receives. */
const answers: Record<
	string,
	{ status: number; type: string; body: (authorization: string) => string }
> = {
	'/cis/api/v1/html': {
		status: 200,
		type: 'text/html; charset=utf-8',
		body: () => '<!doctype html><html><body>Sign in to continue</body></html>',
	},
	'/cis/api/v1/error-object': {
		status: 200,
		type: 'application/json',
		body: () => JSON.stringify({ error: 'Bot not found' }),
	},
	'/cis/api/v1/created': {
		status: 200,
		type: 'application/json',
		body: () => JSON.stringify({ id: { identity: 'cand-1' } }),
	},
	'/cis/api/v1/echo': {
		status: 200,
		type: 'application/json',
		body: (authorization) => JSON.stringify({ error: `refused ${authorization}`, tail: LONG_TAIL }),
	},
};

let server: Server;
let baseUrl: string;
const received: string[] = [];
let sim: Simulator;

beforeAll(async () => {
	sim = await startSimulator();
	server = createServer((req, res) => {
		received.push(`${req.method} ${req.url}`);
		const answer = answers[(req.url ?? '').split('?')[0]] ?? {
			status: 404,
			type: 'application/json',
			body: () => '{}',
		};
		req.resume();
		req.on('end', () => {
			res.statusCode = answer.status;
			res.setHeader('content-type', answer.type);
			res.end(answer.body(String(req.headers.authorization)));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
	await sim.close();
});
beforeEach(() => {
	received.length = 0;
	sim.reset();
});

const tokenCredential = () => ({ cisAutoCallApi: { baseUrl, accessToken: TOKEN } });

describe('a 2xx that is not what the API promises is not a success', () => {
	test('creating request, 200 HTML page: outcome unknown, not repeated', async () => {
		const result = await probe([{ path: 'html', check: true }], tokenCredential());
		const [json] = jsonOf(result);
		expect(received).toHaveLength(1);
		expect(json.error).toMatch(
			/^Outcome unknown for POST \/cis\/api\/v1\/html: the service answered 200 with an unexpected body \(an HTML or XML page, not JSON\)\. It may have been created; check the task before running again$/,
		);
		expect(json.description).toMatch(/The answer began with: <!doctype html>/);
	});

	test('creating request, 200 {error}: outcome unknown naming what is wrong, not repeated', async () => {
		const result = await probe([{ path: 'error-object', check: true }], tokenCredential());
		expect(received).toHaveLength(1);
		expect(jsonOf(result)[0].error).toMatch(
			/answered 200 with an unexpected body \(no id\.identity in the answer\)\. It may have been created/,
		);
	});

	test('a creation the service de-duplicates (createOnce) is not repeated after an unexpected answer either', async () => {
		const result = await probe(
			[{ path: 'error-object', check: true, repeatability: 'createOnce' }],
			tokenCredential(),
		);
		expect(received).toHaveLength(1);
		expect(jsonOf(result)[0].error).toMatch(/^Outcome unknown for POST /);
	});

	test('safe request: a clear "unexpected answer" error, not repeated', async () => {
		const result = await probe(
			[{ path: 'error-object', check: true, repeatability: 'safe' }],
			tokenCredential(),
		);
		expect(received).toHaveLength(1);
		const [json] = jsonOf(result);
		expect(json.error).toBe(
			'Unexpected answer from the service to POST /cis/api/v1/error-object: 200 with no id.identity in the answer',
		);
		expect(json.description).toMatch(/The answer began with: \{"error":"Bot not found"\}/);
	});

	test('an HTML page fails even without a check', async () => {
		const result = await probe([{ path: 'html', repeatability: 'safe' }], tokenCredential());
		expect(jsonOf(result)[0].error).toMatch(/^Unexpected answer .*an HTML or XML page/);
	});

	test('the answer the check expects is a success', async () => {
		const result = await probe([{ path: 'created', check: true }], tokenCredential());
		expect(jsonOf(result)).toEqual([{ answer: { id: { identity: 'cand-1' } } }]);
	});

	test('the error quotes only a short excerpt of the body, and never the token the server echoed', async () => {
		const result = await probe([{ path: 'echo', check: true }], tokenCredential());
		const text = JSON.stringify([result.items, result.runData]);
		expect(text).not.toContain(TOKEN);
		expect(text).not.toContain('x'.repeat(200));
		expect(String(jsonOf(result)[0].description)).toMatch(/refused Bearer \*\*\*/);
	});

	test('the action node: a 200 HTML page is not a success (call → depersonalize) and is outcome unknown for Create and Run', async () => {
		const html = { ...sim, url: baseUrl } as Simulator;
		answers['/cis/api/v1/calls/c-1/depersonalization'] = answers['/cis/api/v1/html'];
		answers['/cis/api/v1/telephony/autoCallCandidate/single'] = answers['/cis/api/v1/html'];
		const safe = await runAction(
			html,
			{ resource: 'call', operation: 'depersonalize', callId: 'c-1' },
			[{}],
			{
				credentials: tokenCredential(),
				continueOnFail: true,
			},
		);
		expect(jsonOf(safe)[0].error).toMatch(
			/^Unexpected answer from the service to POST .*an HTML or XML page/,
		);
		const creating = await runAction(
			html,
			{
				resource: 'candidate',
				operation: 'createAndRun',
				botSettingsId: 'bot-1',
				phone: '79990000001',
			},
			[{}],
			{ credentials: tokenCredential(), continueOnFail: true },
		);
		expect(jsonOf(creating)[0].error).toMatch(
			/^Outcome unknown for POST .*an HTML or XML page.*may have been created/,
		);
		expect(received).toHaveLength(2);
	});
});

describe('login credential: requests in flight at once share one login', () => {
	const list = { path: 'telephony/autoCall', method: 'GET', repeatability: 'safe' };
	const tenLists = Array.from({ length: 10 }, () => list);

	test('no saved token: 10 requests at once → 1 login', async () => {
		const result = await probe(tenLists, credentialsFor(sim), { authentication: 'login' });
		expect(jsonOf(result).every((json) => json.answer !== undefined)).toBe(true);
		expect(sim.logins).toBe(1);
		expect(result.credentialStore.preAuthCalls).toBe(1);
	});

	test('a saved token that expired: 10 requests at once → 1 login, each request sent again once', async () => {
		const first = await probe([list], credentialsFor(sim), { authentication: 'login' });
		sim.expireTokens();
		const [logins, requests] = [sim.logins, apiRequests(sim).length];
		const result = await probe(tenLists, undefined, {
			authentication: 'login',
			credentialStore: first.credentialStore,
		});
		expect(jsonOf(result).every((json) => json.answer !== undefined)).toBe(true);
		expect(sim.logins - logins).toBe(1);
		expect(apiRequests(sim).length - requests).toBe(20);
	});

	test('every token rejected: 10 requests at once → 1 fresh login, every item fails', async () => {
		const first = await probe([list], credentialsFor(sim), { authentication: 'login' });
		const logins = sim.logins;
		sim.injectFault({ path: /^\/cis\/api\/v1\//, status: 401, times: Infinity });
		const result = await probe(tenLists, undefined, {
			authentication: 'login',
			credentialStore: first.credentialStore,
		});
		expect(sim.logins - logins).toBe(1);
		expect(jsonOf(result).every((json) => /401/.test(String(json.error)))).toBe(true);
	});
});
