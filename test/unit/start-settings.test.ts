/**
 * `npm start`'s kept folder and n8n settings, as read from the command line and the environment
 * (scripts/start.js). test/start/run.js shows both in a real n8n: the folder kept across a stop, and
 * the settings read back from the running n8n process.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import * as path from 'path';

const { parseArgs, n8nSettingsFrom, defaultUserFolder } = require('../../scripts/start');

test('the folder is kept by default; --fresh asks for a new one; --user-folder chooses it', () => {
	expect(parseArgs([], {})).toMatchObject({ fresh: false });
	expect(parseArgs(['--fresh'], {}).fresh).toBe(true);
	expect(parseArgs(['--user-folder', 'my-n8n'], {}).userFolder).toBe(path.resolve('my-n8n'));
	// --keep is what the folder does by default now: still accepted
	expect(() => parseArgs(['--keep'], {})).not.toThrow();
	expect(defaultUserFolder('2.41.1')).toBe(
		path.resolve(__dirname, '..', '..', '.cache', 'npm-start', 'n8n-2.41.1'),
	);
});

test("n8n's own settings pass to n8n; the few npm start sets itself are named, not taken", () => {
	// one of each kind n8n documents: N8N_*, DB_*, EXECUTIONS_*, QUEUE_*, GENERIC_TIMEZONE, WEBHOOK_URL, NODE_FUNCTION_ALLOW_*
	const n8nSettings = Object.fromEntries([
		['N8N_EVENTBUS_RECOVERY_MODE', 'simple'],
		['DB_TYPE', 'postgresdb'],
		['EXECUTIONS_TIMEOUT', '300'],
		['QUEUE_BULL_REDIS_HOST', 'redis'],
		['GENERIC_TIMEZONE', 'Europe/Berlin'],
		['WEBHOOK_URL', 'https://n8n.example.com/'],
		['NODE_FUNCTION_ALLOW_BUILTIN', 'crypto'],
	]);
	const others = { PATH: '/usr/bin', HOME: '/home/u', NODE_OPTIONS: '--inspect' };
	const { settings, ignored } = n8nSettingsFrom({
		...n8nSettings,
		...others,
		N8N_PORT: '9999',
		N8N_ENCRYPTION_KEY: 'other',
	});
	expect(settings).toEqual(n8nSettings);
	expect(ignored.map(([name]: [string]) => name).sort()).toEqual([
		'N8N_ENCRYPTION_KEY',
		'N8N_PORT',
	]);
});
