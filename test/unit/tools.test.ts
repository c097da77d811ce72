/**
 * Programs the suites need from the machine (scripts/lib/tools.js): where they are looked for, the
 * rule for installing them (root: apt-get; not root: only allowed passwordless sudo; else never),
 * and the message that says what is missing and how to get it.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const {
	findTool,
	ensureTool,
	installDecision,
	missingMessage,
	ToolMissingError,
} = require('../../scripts/lib/tools');

const LINUX = { platform: 'linux', hasAptGet: true, isUbuntu: false };

describe('installDecision', () => {
	it('installs as root with apt-get', () => {
		expect(
			installDecision({
				tool: 'redis-server',
				...LINUX,
				isRoot: true,
				sudoAllowed: false,
				sudoWorks: false,
			}).how,
		).toBe('root');
	});

	it('uses sudo only when it is allowed and needs no password', () => {
		expect(
			installDecision({
				tool: 'redis-server',
				...LINUX,
				isRoot: false,
				sudoAllowed: true,
				sudoWorks: true,
			}).how,
		).toBe('sudo');
		const noPassword = installDecision({
			tool: 'redis-server',
			...LINUX,
			isRoot: false,
			sudoAllowed: true,
			sudoWorks: false,
		});
		expect(noPassword).toEqual({ how: 'none', why: 'not root and no passwordless sudo' });
		const notAllowed = installDecision({
			tool: 'redis-server',
			...LINUX,
			isRoot: false,
			sudoAllowed: false,
			sudoWorks: true,
		});
		expect(notAllowed.how).toBe('none');
		expect(notAllowed.why).toContain('CI=true');
	});

	it('never runs a package manager without apt-get, off Linux, or for a browser apt-get cannot install', () => {
		expect(
			installDecision({
				tool: 'redis-server',
				...LINUX,
				hasAptGet: false,
				isRoot: true,
				sudoAllowed: true,
				sudoWorks: true,
			}).how,
		).toBe('none');
		expect(
			installDecision({
				tool: 'redis-server',
				platform: 'darwin',
				hasAptGet: false,
				isUbuntu: false,
				isRoot: true,
				sudoAllowed: true,
				sudoWorks: true,
			}).how,
		).toBe('none');
		// Ubuntu's chromium is a snap: apt-get would not give a browser that runs here
		expect(
			installDecision({
				tool: 'chromium',
				...LINUX,
				isUbuntu: true,
				isRoot: true,
				sudoAllowed: true,
				sudoWorks: true,
			}).how,
		).toBe('none');
		expect(
			installDecision({
				tool: 'chromium',
				...LINUX,
				isUbuntu: false,
				isRoot: true,
				sudoAllowed: false,
				sudoWorks: false,
			}).how,
		).toBe('root');
		expect(
			installDecision({
				tool: 'redis-server',
				...LINUX,
				isUbuntu: true,
				isRoot: false,
				sudoAllowed: true,
				sudoWorks: true,
			}).how,
		).toBe('sudo');
	});
});

describe('findTool', () => {
	const only =
		(...files: string[]) =>
		(file: string) =>
			files.includes(file);

	it('takes the variable when it is set, and reports it when it points nowhere (no fallback)', () => {
		const env = { CIS_CHROMIUM: '/opt/chrome/chrome', PATH: '/usr/bin' };
		expect(
			findTool('chromium', {
				env,
				platform: 'linux',
				isExecutable: only('/opt/chrome/chrome', '/usr/bin/chromium'),
			}).found,
		).toBe('/opt/chrome/chrome');
		const missing = findTool('chromium', {
			env: { CIS_CHROMIUM: '/nonexistent', PATH: '/usr/bin' },
			platform: 'linux',
			isExecutable: only('/usr/bin/chromium'),
		});
		expect(missing.found).toBeNull();
		expect(missing.looked).toEqual(['$CIS_CHROMIUM=/nonexistent (not an executable file)']);
	});

	it('finds redis-server on PATH only (a PATH without it hides it)', () => {
		const isExecutable = only('/usr/bin/redis-server');
		expect(
			findTool('redis-server', {
				env: { PATH: '/usr/local/bin:/usr/bin' },
				platform: 'linux',
				isExecutable,
			}).found,
		).toBe('/usr/bin/redis-server');
		const hidden = findTool('redis-server', {
			env: { PATH: '/tmp/bin' },
			platform: 'linux',
			isExecutable,
		});
		expect(hidden).toEqual({
			found: null,
			source: null,
			looked: ['$CIS_REDIS_SERVER (not set)', 'PATH (redis-server)'],
		});
		expect(
			findTool('redis-server', {
				env: { PATH: '/usr/bin' },
				platform: 'darwin',
				isExecutable: only('/opt/homebrew/bin/redis-server'),
			}).found,
		).toBe('/opt/homebrew/bin/redis-server');
	});

	it("finds the hosted runner's Chrome (google-chrome on PATH, or CHROME_BIN) and the macOS app", () => {
		expect(
			findTool('chromium', {
				env: { PATH: '/usr/bin' },
				platform: 'linux',
				isExecutable: only('/usr/bin/google-chrome'),
			}).found,
		).toBe('/usr/bin/google-chrome');
		expect(
			findTool('chromium', {
				env: { PATH: '', CHROME_BIN: '/opt/google/chrome/chrome' },
				platform: 'linux',
				isExecutable: only('/opt/google/chrome/chrome'),
			}).found,
		).toBe('/opt/google/chrome/chrome');
		const app = '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome';
		expect(
			findTool('chromium', {
				env: { PATH: '/usr/bin' },
				platform: 'darwin',
				isExecutable: only(app),
			}).found,
		).toBe(app);
		// Ubuntu's chromium-browser (a stub pointing to the snap) only when nothing else is there
		expect(
			findTool('chromium', {
				env: { PATH: '/usr/bin' },
				platform: 'linux',
				isExecutable: only('/usr/bin/chromium-browser', '/usr/bin/google-chrome'),
			}).found,
		).toBe('/usr/bin/google-chrome');
	});
});

describe('missingMessage', () => {
	it('says what is missing, what needs it, where it looked, how to get it on Linux and macOS, and the variable', () => {
		const lookup = {
			found: null,
			source: null,
			looked: ['$CIS_REDIS_SERVER (not set)', 'PATH (redis-server)'],
		};
		const text = missingMessage('redis-server', lookup, {
			how: 'none',
			why: 'not root and no passwordless sudo',
		});
		expect(text.split('\n')).toEqual([
			'redis-server not found: the queue-mode suite (npm run test:queue) starts its own Redis with it.',
			'  looked at: $CIS_REDIS_SERVER (not set), PATH (redis-server)',
			'  get it:',
			'    Debian/Ubuntu: sudo apt-get install redis-server',
			'    macOS:         brew install redis',
			'  or set CIS_REDIS_SERVER to its path.',
			'  not installed automatically: not root and no passwordless sudo.',
		]);
	});

	it('names the browser variable and a way to get a browser on Debian, Ubuntu and macOS', () => {
		const text = missingMessage(
			'chromium',
			{
				found: null,
				source: null,
				looked: ['$CIS_CHROMIUM=/nonexistent (not an executable file)'],
			},
			null,
		);
		expect(text).toContain('Chromium or Google Chrome not found');
		expect(text).toContain('sudo apt-get install chromium');
		expect(text).toMatch(/Ubuntu: +Google Chrome/);
		expect(text).toMatch(/macOS: +Google Chrome/);
		expect(text).toContain('or set CIS_CHROMIUM to its path.');
		expect(text).not.toContain('not installed automatically');
	});
});

describe('ensureTool', () => {
	let dir: string;
	beforeEach(() => {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cis-tools-test-'));
	});
	afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

	it('returns the path of a program that is there', async () => {
		const server = path.join(dir, 'redis-server');
		fs.writeFileSync(server, '#!/bin/sh\n', { mode: 0o755 });
		await expect(ensureTool('redis-server', { env: { PATH: dir }, logDir: dir })).resolves.toBe(
			server,
		);
	});

	it('throws the message (and installs nothing) when the variable points nowhere', async () => {
		const err = await ensureTool('chromium', {
			env: { CIS_CHROMIUM: path.join(dir, 'none'), PATH: dir },
			logDir: dir,
		}).catch((e: Error) => e);
		expect(err).toBeInstanceOf(ToolMissingError);
		expect(err.message).toContain(
			`$CIS_CHROMIUM=${path.join(dir, 'none')} (not an executable file)`,
		);
		expect(fs.readdirSync(dir)).toEqual([]);
	});

	it('throws the message without running a package manager when apt-get is not on PATH', async () => {
		const err = await ensureTool('redis-server', {
			env: { PATH: dir, CI: 'true' },
			logDir: dir,
		}).catch((e: Error) => e);
		expect(err).toBeInstanceOf(ToolMissingError);
		expect(err.message).toContain('not installed automatically: no apt-get on PATH.');
		expect(fs.readdirSync(dir)).toEqual([]);
	});
});
