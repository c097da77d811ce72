/**
 * scripts/lib/supervisor.js: a stop gives the command its signal once, so a program that shuts down on the first
 * SIGTERM and listens only once (n8n 1.x: process.once) finishes its shutdown instead of dying of a second one.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { spawnSupervised, stopSupervised } = require('../../scripts/lib/supervisor');

/** Like n8n: on the first SIGTERM it starts a shutdown that takes a while, and stops listening for SIGTERM. */
const SHUTS_DOWN_SLOWLY = `
process.once('SIGTERM', () => {
	console.log('shutting down');
	setTimeout(() => { console.log('stopped'); process.exit(0); }, 300);
});
console.log('ready');
setInterval(() => {}, 1000);
`;

test('stopSupervised sends SIGTERM once: the command finishes its shutdown and exits by itself', async () => {
	const child = spawnSupervised(process.execPath, ['-e', SHUTS_DOWN_SLOWLY]);
	let out = '';
	child.stdout.on('data', (chunk: Buffer) => (out += String(chunk)));
	await new Promise<void>((resolve) =>
		child.stdout.on('data', () => out.includes('ready') && resolve()),
	);
	await stopSupervised(child, { graceMs: 5000 });
	const { code } = await child.exited;
	expect(out).toContain('stopped');
	expect(code).toBe(0);
});
