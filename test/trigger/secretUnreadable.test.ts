/**
 * Existing Task mode reads the webhook secret from its credential, at most once a second per trigger
 * (a memory of this test file's own module state, so no other test's read is fresh here). When n8n
 * cannot read the credential (its database busy: "timeout exceeded when trying to connect"), the
 * delivery is answered 503 so that the service sends it again, never 401 "wrong secret".
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { Agent, request } from 'undici';

import { CisAutoCallWebhookSecretApi } from '../../credentials/CisAutoCallWebhookSecretApi.credentials';
import { CisAutoCallTrigger } from '../../nodes/CisAutoCallTrigger/CisAutoCallTrigger.node';
import { startWebhookServer } from '../engine/harness';

const SECRET = 'a-credential-secret-of-32-chars!';
const agent = new Agent({ keepAliveTimeout: 1000 });
afterAll(async () => await agent.close());

async function post(url: string, secret: string): Promise<{ status: number; body: unknown }> {
	const target = new URL(url);
	target.searchParams.set('secret', secret);
	const answer = await request(target, {
		method: 'POST',
		dispatcher: agent,
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			event: 'CALL_ENDED',
			id: 'call-s1',
			taskId: 't-s1',
			status: 'ANSWERED',
		}),
	});
	return { status: answer.statusCode, body: await answer.body.json() };
}

test('n8n cannot read the credential now: 503 and nothing started; once it can, the right secret is taken and a wrong one refused', async () => {
	const server = await startWebhookServer({
		node: new CisAutoCallTrigger(),
		credentialTypes: [new CisAutoCallWebhookSecretApi()],
		credentials: { cisAutoCallWebhookSecretApi: { secret: SECRET } },
		parameters: { connectTo: 'existing', events: ['CALL_ENDED'] },
		staticData: {},
	});
	try {
		const store = server.credentialStore;
		const read = store.getDecrypted.bind(store);
		store.getDecrypted = async () => {
			throw new Error('timeout exceeded when trying to connect');
		};
		const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => {});
		const busy = await post(server.url, SECRET);
		expect(busy).toEqual({
			status: 503,
			body: {
				received: false,
				error: 'n8n could not read the webhook secret now; send the event again',
			},
		});
		expect(server.started).toHaveLength(0);
		// Why, for the admin: in n8n's log only.
		expect(warn.mock.calls.map((call) => String(call[0]))).toEqual([
			expect.stringContaining(
				'refused an event with 503: n8n could not read the webhook secret now; send the event again (timeout exceeded when trying to connect)',
			),
		]);
		warn.mockRestore();

		// A failed read is not kept: the next delivery reads again.
		store.getDecrypted = read;
		expect((await post(server.url, SECRET)).status).toBe(200);
		expect((await post(server.url, `${SECRET}x`)).status).toBe(401);
		expect(server.started).toHaveLength(1);
	} finally {
		await server.close();
	}
});
