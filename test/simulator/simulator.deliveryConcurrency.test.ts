// Webhook delivery at a concurrency, and kept back until released (the queue-mode scale benchmark's phases).
import http from 'http';
import type { AddressInfo } from 'net';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { WebhookDelivery } = require('../../simulator/delivery');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Scheduler } = require('../../simulator/scheduler');

let server: http.Server;
let url = '';
let inFlight = 0;
let mostInFlight = 0;
let received = 0;

beforeEach(async () => {
	inFlight = 0;
	mostInFlight = 0;
	received = 0;
	server = http.createServer((req, res) => {
		inFlight += 1;
		received += 1;
		mostInFlight = Math.max(mostInFlight, inFlight);
		req.resume();
		setTimeout(() => {
			inFlight -= 1;
			res.writeHead(200).end('{}');
		}, 30);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
});

afterEach(async () => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});

function deliver(options: { concurrency?: number }, events: number) {
	const scheduler = new Scheduler({ timeScale: 0.01 });
	const delivery = new WebhookDelivery({ scheduler, ...options });
	return {
		delivery,
		scheduler,
		send: () => {
			for (let i = 0; i < events; i++)
				delivery.enqueue({ url, event: 'CALL_ENDED', body: { candidateId: `c${i}` } });
		},
	};
}

it('sends first attempts to one URL one after another by default', async () => {
	const { send, scheduler } = deliver({}, 6);
	send();
	await scheduler.idle();
	expect(received).toBe(6);
	expect(mostInFlight).toBe(1);
});

it('sends up to `concurrency` first attempts to one URL at once, each event once', async () => {
	const { send, scheduler, delivery } = deliver({ concurrency: 3 }, 9);
	send();
	await scheduler.idle();
	expect(received).toBe(9);
	expect(mostInFlight).toBe(3);
	expect(
		delivery.log.map((e: { body: { candidateId: string } }) => e.body.candidateId).sort(),
	).toEqual(Array.from({ length: 9 }, (_, i) => `c${i}`).sort());
});

it('keeps first attempts back while held, and sends them all once released', async () => {
	const { send, scheduler, delivery } = deliver({ concurrency: 2 }, 4);
	delivery.hold();
	send();
	await new Promise((resolve) => setTimeout(resolve, 100));
	expect(received).toBe(0);
	delivery.release();
	await scheduler.idle();
	expect(received).toBe(4);
});
