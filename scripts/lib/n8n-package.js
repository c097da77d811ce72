'use strict';
/**
 * Installs this package into an n8n user folder the way a user installs a community node: from
 * its packed tarball, with npm, into $N8N_USER_FOLDER/.n8n/nodes/.
 *
 *   const { installPackageTarball } = require('./n8n-package');
 *   await installPackageTarball(userFolder, '/abs/pkg.tgz', '2.41.1');   // before startN8n
 *
 * Plain Node (CommonJS, built-ins only).
 */
const fs = require('fs');
const path = require('path');
const { ensureNode, npmCli, npmEnv, DEFAULT_VERSION } = require('./n8n-install');
const { runToEnd } = require('./supervisor');

/** The Node ({ nodeBin, nodedir }) for an n8n version string, or the one given. */
async function resolveNode(runtime) {
	if (!runtime) runtime = DEFAULT_VERSION;
	if (typeof runtime === 'string') return ensureNode(runtime);
	if (runtime.nodeBin) return { nodeBin: runtime.nodeBin, nodedir: runtime.nodedir || null };
	throw new Error('runtime must be an n8n version string or { nodeBin, nodedir }');
}

/**
 * Installs a packed community package the way a user does:
 * `npm install --omit=dev --omit=peer --ignore-scripts <tarball>` inside
 * $N8N_USER_FOLDER/.n8n/nodes/ (created with a minimal package.json).
 * `runtime` is an n8n version string (the Node that runs it is used) or { nodeBin, nodedir } (e.g. the
 * result of ensureN8n). Returns { name, version, dir } of the installed package. Call it before
 * startN8n (or restart).
 */
async function installPackageTarball(userFolder, tarballPath, runtime) {
	const node = await resolveNode(runtime);
	const tarball = path.resolve(tarballPath);
	if (!fs.existsSync(tarball)) throw new Error(`tarball not found: ${tarball}`);
	const nodesDir = path.join(path.resolve(userFolder), '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const pj = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(pj))
		fs.writeFileSync(
			pj,
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
		);
	const env = npmEnv(node);
	const res = await runToEnd(
		node.nodeBin,
		[
			npmCli(),
			'install',
			'--omit=dev',
			'--omit=peer',
			'--ignore-scripts',
			'--no-audit',
			'--no-fund',
			tarball,
		],
		{ cwd: nodesDir, env },
	);
	if (res.code !== 0)
		throw new Error(
			`npm install ${tarball} failed (exit ${res.code}):\n${res.stdout}\n${res.stderr}`,
		);
	// read the installed package's name from the tarball's package.json via the dependencies entry
	const deps = JSON.parse(fs.readFileSync(pj, 'utf8')).dependencies || {};
	const name =
		Object.keys(deps).find((k) => String(deps[k]).includes(path.basename(tarball))) ||
		Object.keys(deps)[0];
	const dir = path.join(nodesDir, 'node_modules', name);
	const version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
	return { name, version, dir };
}

module.exports = { installPackageTarball };
