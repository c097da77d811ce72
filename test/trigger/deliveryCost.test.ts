// What a delivery costs n8n besides the node's own checks (scenario 5 of the bench measures the
// effect): the secret credential is not read for every delivery, parameters without an expression
// are read without n8n's expression engine, and version 1.1 of the node lets n8n skip its
// expression for version-1 webhooks and reads other bodies itself.
import { WebhookContext } from 'n8n-core';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { Agent, request } from 'undici';

import { CisAutoCallApi } from '../../credentials/CisAutoCallApi.credentials';
import { CisAutoCallLoginApi } from '../../credentials/CisAutoCallLoginApi.credentials';
import { CisAutoCallWebhookSecretApi } from '../../credentials/CisAutoCallWebhookSecretApi.credentials';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import { startWebhookServer, type WebhookServer } from '../engine/harness';

const SECRET = 'a-credential-secret-for-the-cost-test';
const agent = new Agent({ keepAliveTimeout: 1000 });
const servers: WebhookServer[] = [];
let counter = 0;

afterEach(async () => {
	while (servers.length > 0) await servers.pop()?.close();
});
afterAll(async () => {
	await agent.close();
});

async function serveExisting(
	typeVersion?: number,
	parameters: INodeParameters = { connectTo: 'existing', events: ['CALL_ENDED'] },
): Promise<WebhookServer> {
	const server = await startWebhookServer({
		node: new CisAutoCallTrigger(),
		credentialTypes: [
			new CisAutoCallApi(),
			new CisAutoCallLoginApi(),
			new CisAutoCallWebhookSecretApi(),
		],
		credentials: { cisAutoCallWebhookSecretApi: { secret: SECRET } },
		parameters,
		staticData: {},
		...(typeVersion === undefined ? {} : { typeVersion }),
	});
	servers.push(server);
	return server;
}

function callEnded(event = 'CALL_ENDED'): IDataObject {
	return {
		event,
		type: 'OUTGOING',
		id: `cost-${process.pid}-${Date.now()}-${++counter}`,
		status: 'ANSWERED',
	};
}

async function post(
	url: string,
	body: string,
	{ secret = SECRET, contentType }: { secret?: string; contentType?: string } = {},
): Promise<number> {
	const target = new URL(url);
	target.searchParams.set('secret', secret);
	const answer = await request(target, {
		method: 'POST',
		dispatcher: agent,
		headers: contentType === undefined ? {} : { 'content-type': contentType },
		body,
	});
	await answer.body.text();
	return answer.statusCode;
}

/** Counts the reads of one credential type through n8n's credentials helper. */
function countReads(server: WebhookServer, type: string): { reads: number } {
	const counter = { reads: 0 };
	const store = server.credentialStore;
	const read = store.getDecrypted.bind(store);
	store.getDecrypted = async (...args: Parameters<typeof store.getDecrypted>) => {
		if (args[2] === type) counter.reads++;
		return await read(...args);
	};
	return counter;
}

/** How long a secret read serves later deliveries (SECRET_FRESH_MS of the trigger's secret module). */
const SECRET_SERVES_MS = 1000;

describe('the secret credential is not read for every delivery', () => {
	test('10 deliveries at once read the credential once, and each is still checked against its secret', async () => {
		const server = await serveExisting();
		const counted = countReads(server, 'cisAutoCallWebhookSecretApi');
		const started = Date.now();
		const statuses = await Promise.all(
			Array.from({ length: 10 }, () =>
				post(server.url, JSON.stringify(callEnded()), { contentType: 'application/json' }),
			),
		);
		expect(statuses).toEqual(new Array(10).fill(200));
		const wrong = await Promise.all([
			post(server.url, JSON.stringify(callEnded()), {
				contentType: 'application/json',
				secret: `${SECRET}x`,
			}),
			post(server.url, JSON.stringify(callEnded()), {
				contentType: 'application/json',
				secret: '',
			}),
		]);
		expect(wrong).toEqual([401, 401]);
		const tookMs = Date.now() - started;
		expect(server.started).toHaveLength(10);
		// one read serves the deliveries of the next second: a busy machine that took longer needs one more read per second it took
		expect(counted.reads).toBeGreaterThanOrEqual(1);
		expect(counted.reads).toBeLessThanOrEqual(1 + Math.floor(tookMs / SECRET_SERVES_MS));
		expect(counted.reads).toBeLessThan(12);
	});
});

/** Counts the reads of a webhook call's parameters through n8n (getNodeParameter, where expressions are resolved). */
function countParameterReads(): { names: string[]; restore(): void } {
	const names: string[] = [];
	type Read = (this: unknown, name: string, ...rest: unknown[]) => unknown;
	const prototype = Object.getPrototypeOf(WebhookContext.prototype) as { getNodeParameter: Read };
	const original = prototype.getNodeParameter;
	prototype.getNodeParameter = function (this: unknown, name: string, ...rest: unknown[]) {
		if (this instanceof WebhookContext) names.push(name);
		return original.call(this, name, ...rest);
	};
	return { names, restore: () => (prototype.getNodeParameter = original) };
}

describe("parameters without an expression are read without n8n's expression engine; with one, as n8n reads them", () => {
	test.each([
		['version 2', 2],
		['version 1', 1],
	])(
		'%s: deliveries with saved settings ask n8n for no parameter, and every check still applies',
		async (_name, typeVersion) => {
			const server = await serveExisting(typeVersion, {
				connectTo: 'existing',
				events: ['CALL_ENDED'],
				options: { allowedAddresses: '127.0.0.1, 10.0.0.0/8' },
			});
			const reads = countParameterReads();
			try {
				const sent = callEnded();
				const answers = [
					await post(server.url, JSON.stringify(sent), { contentType: 'application/json' }),
					await post(server.url, JSON.stringify(sent), { contentType: 'application/json' }),
					await post(server.url, JSON.stringify(callEnded('CANDIDATE_CHANGED')), {
						contentType: 'application/json',
					}),
					await post(server.url, JSON.stringify(callEnded()), {
						contentType: 'application/json',
						secret: `${SECRET}x`,
					}),
					await post(server.url, '{"no event": true}', { contentType: 'application/json' }),
				];
				expect(answers).toEqual([200, 200, 200, 401, 400]);
				// the repeat and the unselected event were answered without starting the workflow
				expect(server.started.map((workflowData) => workflowData[0][0].json.id)).toEqual([sent.id]);
				expect(reads.names).toEqual([]);
			} finally {
				reads.restore();
			}
		},
	);

	test('an allow-list from an expression still refuses an address it leaves out', async () => {
		const server = await serveExisting(2, {
			connectTo: 'existing',
			events: ['CALL_ENDED'],
			options: { allowedAddresses: '={{ "10.1.2." + "3" }}' },
		});
		expect(
			await post(server.url, JSON.stringify(callEnded()), { contentType: 'application/json' }),
		).toBe(403);
		expect(server.started).toHaveLength(0);
	});

	test('events and an allow-list from expressions: the expression is read through n8n and applies', async () => {
		const server = await serveExisting(2, {
			connectTo: 'existing',
			events: '={{ ["CALL_" + "ENDED"] }}',
			options: { allowedAddresses: '={{ "127.0.0." + "1" }}' },
		});
		const reads = countParameterReads();
		try {
			const ended = callEnded();
			expect(
				await post(server.url, JSON.stringify(ended), { contentType: 'application/json' }),
			).toBe(200);
			expect(
				await post(server.url, JSON.stringify(callEnded('CANDIDATE_CHANGED')), {
					contentType: 'application/json',
				}),
			).toBe(200);
			expect(server.started.map((workflowData) => workflowData[0][0].json.id)).toEqual([ended.id]);
			expect(reads.names).toEqual(expect.arrayContaining(['events', 'options']));
			expect(reads.names).not.toContain('connectTo');
		} finally {
			reads.restore();
		}
	});

	test('a secret typed into the node as an expression (earlier versions) is still the one expected', async () => {
		const server = await startWebhookServer({
			node: new CisAutoCallTrigger(),
			credentialTypes: [
				new CisAutoCallApi(),
				new CisAutoCallLoginApi(),
				new CisAutoCallWebhookSecretApi(),
			],
			parameters: {
				connectTo: 'existing',
				events: ['CALL_ENDED'],
				secret: `={{ "${SECRET.slice(0, 10)}" + "${SECRET.slice(10)}" }}`,
			},
			staticData: {},
			typeVersion: 1,
		});
		servers.push(server);
		expect(
			await post(server.url, JSON.stringify(callEnded()), { contentType: 'application/json' }),
		).toBe(200);
		expect(
			await post(server.url, JSON.stringify(callEnded()), {
				contentType: 'application/json',
				secret: `={{ "${SECRET}" }}`,
			}),
		).toBe(401);
		expect(server.started).toHaveLength(1);
	});
});

describe('version 1.1: n8n leaves bodies it does not parse to the node', () => {
	test('new nodes get version 2 (the short panel, reading bodies like 1.1); stored workflows keep 1 or 1.1', () => {
		const { description } = new CisAutoCallTrigger();
		expect(description.version).toEqual([1, 1.1, 2]);
		expect(description.defaultVersion).toBe(2);
	});

	test.each([
		['version 2', 2],
		['version 1.1', 1.1],
		['version 1', 1],
	])(
		'%s: an event sent as application/octet-stream or without a content type is read',
		async (_name, typeVersion) => {
			const server = await serveExisting(typeVersion);
			const first = callEnded();
			const second = callEnded();
			expect(
				await post(server.url, JSON.stringify(first), { contentType: 'application/octet-stream' }),
			).toBe(200);
			expect(await post(server.url, JSON.stringify(second))).toBe(200);
			expect(
				await post(server.url, 'not an event', { contentType: 'application/octet-stream' }),
			).toBe(400);
			const ids = server.started.map((workflowData) => workflowData[0][0].json.id);
			expect(ids).toEqual([first.id, second.id]);
		},
	);
});
