/**
 * The queue harness starts each worker and webhook process on a port chosen right before it starts,
 * and on another port when n8n finds that one taken (a CI run once lost its whole cluster to it).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { startOnFreePort } = require('../queue/cluster');

const taken = (port: number) =>
	new Error(
		`worker-2 exited during start-up (code 1, signal null). Last output:\nPort ${port} is already in use`,
	);

describe('startOnFreePort', () => {
	it('starts again on another port when n8n says the port is taken', async () => {
		const ports: number[] = [];
		const handle = await startOnFreePort(async (port: number) => {
			ports.push(port);
			if (ports.length === 1) throw taken(port);
			return { port };
		});
		expect(ports).toHaveLength(2);
		expect(handle).toEqual({ port: ports[1] });
		for (const port of ports) expect(port).toBeGreaterThan(0);
	});

	it("gives up after three taken ports, with n8n's words", async () => {
		let starts = 0;
		await expect(
			startOnFreePort(async (port: number) => {
				starts++;
				throw taken(port);
			}),
		).rejects.toThrow(/already in use/);
		expect(starts).toBe(3);
	});

	it('does not start again after any other failure', async () => {
		let starts = 0;
		await expect(
			startOnFreePort(async () => {
				starts++;
				throw new Error('worker-1 not ready after 240000ms');
			}),
		).rejects.toThrow(/not ready/);
		expect(starts).toBe(1);
	});
});
