/**
 * `npm start`'s n8n port: set with --port or CIS_N8N_PORT, refused with a clear message when it is
 * taken (a real listening socket on 127.0.0.1), before anything is installed or started.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import { execFile } from 'child_process';
import * as net from 'net';
import * as path from 'path';

const { parseArgs, pickPort, PORT_VARIABLE, recheckN8nPort } = require('../../scripts/start');

const START = path.resolve(__dirname, '..', '..', 'scripts', 'start.js');

function listen(): Promise<net.Server> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve(server));
	});
}

function portOf(server: net.Server): number {
	return (server.address() as net.AddressInfo).port;
}

function runStart(
	args: string[],
	env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((resolve) => {
		const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
		if (!(PORT_VARIABLE in env)) delete childEnv[PORT_VARIABLE];
		execFile(
			process.execPath,
			[START, ...args],
			{ env: childEnv, timeout: 30000 },
			(error, stdout, stderr) => {
				resolve({
					code: error ? (typeof error.code === 'number' ? error.code : null) : 0,
					stdout,
					stderr,
				});
			},
		);
	});
}

describe('npm start: the n8n port', () => {
	let taken: net.Server;
	let port: number;

	beforeAll(async () => {
		taken = await listen();
		port = portOf(taken);
	});
	afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

	test('--port N on a taken port: exit 2 at once, the message names the port and how to choose another', async () => {
		const run = await runStart(['--port', String(port)]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(`port ${port} on 127.0.0.1 is taken`);
		expect(run.stderr).toContain(`--port N or ${PORT_VARIABLE}=N`);
		expect(run.stdout).not.toContain('[start 1/6]'); // nothing installed, built or started
	});

	test(`${PORT_VARIABLE}=N on a taken port: the same`, async () => {
		const run = await runStart([], { [PORT_VARIABLE]: String(port) });
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(`port ${port} on 127.0.0.1 is taken`);
	});

	test('a port that is not a number is refused, naming where it came from and the value', async () => {
		const run = await runStart(['--port', '56x8']);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain('--port must be a port number from 1 to 65535, got "56x8"');
		expect(() => parseArgs([], { [PORT_VARIABLE]: '70000' })).toThrow(
			`${PORT_VARIABLE} must be a port number from 1 to 65535, got "70000"`,
		);
	});

	test(`--port wins over ${PORT_VARIABLE}; neither means none asked for`, () => {
		expect(parseArgs(['--port', '5690'], { [PORT_VARIABLE]: '5691' }).port).toBe(5690);
		expect(parseArgs([], { [PORT_VARIABLE]: '5691' }).port).toBe(5691);
		expect(parseArgs([], {}).port).toBeUndefined();
	});

	test('the default port taken and none asked for: the next free one, with a note saying so', async () => {
		const chosen = await pickPort(port);
		expect(chosen.port).not.toBe(port);
		expect(chosen.note).toBe(`port ${port} is taken, using ${chosen.port}`);
	});

	test('a free port asked for is used as is; ports reserved for n8n are skipped for the others', async () => {
		const free = await listen();
		const freePort = portOf(free);
		await new Promise<void>((resolve) => free.close(() => resolve()));
		expect(await pickPort(5678, freePort)).toEqual({ port: freePort });
		const chosen = await pickPort(freePort, undefined, {}, [freePort]);
		expect(chosen.port).not.toBe(freePort);
	});

	test('checked again right before n8n starts: a port taken during the install is given up for the next free one, unless it was asked for', async () => {
		// the chosen port is taken by another program while n8n installs
		const meanwhile = await listen();
		const later = portOf(meanwhile);
		try {
			const moved = await recheckN8nPort({ port: later }, undefined, []);
			expect(moved.port).not.toBe(later);
			expect(moved.note).toBe(`port ${later} is taken, using ${moved.port}`);
			await expect(recheckN8nPort({ port: later }, later, [])).rejects.toThrow(
				`port ${later} on 127.0.0.1 is taken`,
			);
		} finally {
			await new Promise<void>((resolve) => meanwhile.close(() => resolve()));
		}
		// still free: kept as chosen, note and all
		expect(
			await recheckN8nPort({ port: later, note: 'port 5678 is taken, using x' }, undefined, []),
		).toEqual({ port: later, note: 'port 5678 is taken, using x' });
	});
});
