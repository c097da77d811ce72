'use strict';
/**
 * Builds and packs the repository the way it would be published, for installing into a
 * real n8n (see scripts/lib/n8n-instance.js installPackageTarball).
 *
 *   const { packRepo } = require('./pack');
 *   const r = await packRepo();            // { ok, tarball, dir, files, missing, steps }
 *
 * CLI: node scripts/lib/pack.js [--no-build]   -> prints the result as JSON, exit 1 if not ok
 *
 * Never throws for a failed build/pack: it reports { ok: false, error, steps[].output }.
 * Plain Node (CommonJS, built-ins only).
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { npmCli } = require('./n8n-install');
const { spawnTree, killTree } = require('./process-tree');

const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** `npm <args>`, run by this Node with the machine's npm-cli.js (no shell, on every platform). */
function npm(args, { cwd, timeoutMs = 10 * 60 * 1000 }) {
	return new Promise((resolve) => {
		const t0 = Date.now();
		const child = spawnTree(process.execPath, [npmCli(), ...args], {
			cwd,
			env: { ...process.env, npm_config_update_notifier: 'false' },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let out = '';
		let err = '';
		child.stdout.on('data', (c) => (out += c));
		child.stderr.on('data', (c) => (err += c));
		const kill = () => killTree(child, 'SIGKILL');
		const timer = setTimeout(kill, timeoutMs);
		// the build runs in its own process group: if this process exits first (e.g. Ctrl-C of
		// npm start), the group goes with it
		process.once('exit', kill);
		child.on('error', (e) => {
			clearTimeout(timer);
			process.removeListener('exit', kill);
			resolve({ code: 127, stdout: out, stderr: String(e), ms: Date.now() - t0 });
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			process.removeListener('exit', kill);
			kill(); // leave nothing behind
			resolve({
				code: code === null ? 128 : code,
				signal,
				stdout: out,
				stderr: err,
				ms: Date.now() - t0,
			});
		});
	});
}

function tail(text, n = 60) {
	return String(text || '')
		.split('\n')
		.slice(-n)
		.join('\n');
}

/**
 * options: repoDir (default: this repo), outDir (default: a fresh temp folder),
 * build (default true: `npm run build` first), quiet (default true).
 * @param {{ repoDir?: string, outDir?: string, build?: boolean, quiet?: boolean }} [options]
 */
async function packRepo({ repoDir = REPO_ROOT, outDir, build = true, quiet = true } = {}) {
	const steps = [];
	const result = { ok: false, tarball: null, dir: null, files: [], missing: [], steps };
	const say = (m) => {
		if (!quiet) process.stderr.write(`[pack] ${m}\n`);
	};
	let pkg;
	try {
		pkg = JSON.parse(fs.readFileSync(path.join(repoDir, 'package.json'), 'utf8'));
	} catch (e) {
		result.error = `cannot read package.json: ${e.message}`;
		return result;
	}
	result.name = pkg.name;
	result.version = pkg.version;

	if (build) {
		say('npm run build…');
		const b = await npm(['run', 'build'], { cwd: repoDir });
		steps.push({ step: 'build', code: b.code, ms: b.ms, output: tail(`${b.stdout}\n${b.stderr}`) });
		if (b.code !== 0) {
			result.error = `npm run build failed (exit ${b.code})`;
			return result;
		}
	}

	const dir = outDir ? path.resolve(outDir) : fs.mkdtempSync(path.join(os.tmpdir(), 'cis-pack-'));
	fs.mkdirSync(dir, { recursive: true });
	result.dir = dir;
	say(`npm pack into ${dir}…`);
	const p = await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
		cwd: repoDir,
	});
	steps.push({ step: 'pack', code: p.code, ms: p.ms, output: tail(p.stderr) });
	if (p.code !== 0) {
		result.error = `npm pack failed (exit ${p.code})`;
		return result;
	}
	let info;
	try {
		info = JSON.parse(p.stdout.slice(p.stdout.indexOf('[')))[0];
	} catch (e) {
		result.error = `cannot parse npm pack --json output: ${e.message}: ${p.stdout.slice(0, 300)}`;
		return result;
	}
	result.tarball = path.join(dir, info.filename);
	result.files = (info.files || []).map((f) => f.path);
	result.size = info.size;

	// every file the n8n section points at must be in the tarball
	const declared = [
		...((pkg.n8n && pkg.n8n.nodes) || []),
		...((pkg.n8n && pkg.n8n.credentials) || []),
	];
	result.missing = declared.filter((f) => !result.files.includes(f.replace(/^\.\//, '')));
	if (!fs.existsSync(result.tarball)) {
		result.error = `tarball not found at ${result.tarball}`;
		return result;
	}
	if (result.missing.length) {
		result.error = `tarball lacks files named in package.json "n8n": ${result.missing.join(', ')}`;
		return result;
	}
	result.ok = true;
	say(`packed ${result.tarball} (${result.files.length} files, ${result.size} bytes)`);
	return result;
}

module.exports = { packRepo, REPO_ROOT };

if (require.main === module) {
	packRepo({ build: !process.argv.includes('--no-build'), quiet: false }).then((r) => {
		process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
		if (!r.ok) process.exitCode = 1;
	});
}
