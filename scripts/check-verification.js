#!/usr/bin/env node
'use strict';
/**
 * n8n's verification guidelines, checked where a machine can check them (docs/verification.md maps
 * every guideline to its evidence; n8n's scanner is its own CI step, scripts/scan-package.js).
 *
 *   node scripts/check-verification.js [--no-node-cli]
 *
 * Checks (each prints "ok" or "FAIL" with the reason):
 *   - package.json: MIT (and LICENSE.md is the MIT text); repository, homepage and bugs on one
 *     public GitHub repository; an author with name and email; the community package's name,
 *     keyword and `n8n` section, each listed file built in dist/;
 *   - no runtime dependencies (only the peer n8n-workflow) and no install-time scripts;
 *   - TypeScript only in nodes/ and credentials/;
 *   - node code reads no environment, files or processes: its imports are n8n-workflow, its own
 *     files and n8n Cloud's allowed modules; it uses none of `process`, timers, `globalThis`,
 *     `__dirname`, `require`, `eval` (TypeScript's checker resolves each name, so a local variable of
 *     the same name does not count); the built dist/ requires nothing else;
 *   - English only: no letter outside the Latin script in nodes/, credentials/, README.md, docs/,
 *     examples/;
 *   - the README has install, credentials (authentication) and usage sections and links the examples;
 *   - publishing: publish.yml publishes on a version tag, after CI, the tarball CI tested, with
 *     `npm publish --provenance` and `id-token: write`; ci.yml keeps that tarball;
 *   - n8n's own lint, `n8n-node lint` of @n8n/node-cli in strict mode (its template
 *     eslint.config.mjs), on the package's source as n8n-node's layout has it: package.json,
 *     tsconfig.json, nodes/, credentials/ (the tests stay out; docs/verification.md says why).
 *     @n8n/node-cli is installed once into the cache ($CIS_N8N_CACHE/node-cli-<version>), not into
 *     this project. --no-node-cli leaves this check out (counted as failed: not a green success).
 *
 * Last line: "verification: N passed, N failed". Exit code 1 when a check failed.
 * Plain Node (CommonJS); TypeScript from the project's devDependencies; needs `npm run build` first.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const ROOT = path.resolve(__dirname, '..');
const NODE_CLI_VERSION = '0.48.3';
/** What n8n Cloud's no-restricted-imports rule allows node code to import (besides relative paths). */
const ALLOWED_IMPORTS = new Set([
	'n8n-workflow',
	'lodash',
	'moment',
	'p-limit',
	'luxon',
	'zod',
	'crypto',
	'node:crypto',
]);
/**
 * Globals that reach the environment, files, processes or timers: n8n Cloud's no-restricted-globals
 * list, plus the ways to load code at run time (require, eval, Function).
 */
const FORBIDDEN_GLOBALS = new Set([
	'process',
	'setTimeout',
	'setInterval',
	'setImmediate',
	'clearTimeout',
	'clearInterval',
	'clearImmediate',
	'global',
	'globalThis',
	'__dirname',
	'__filename',
	'require',
	'module',
	'eval',
	'Function',
]);
const INSTALL_SCRIPTS = [
	'preinstall',
	'install',
	'postinstall',
	'prepare',
	'preprepare',
	'postprepare',
	'prepublish',
];

const results = [];
function say(line = '') {
	process.stdout.write(`${line}\n`);
}
/** Runs one check: `fn` returns a short note or throws with the reason. */
function check(name, fn) {
	try {
		const note = fn();
		results.push({ name, ok: true });
		say(`  ok    ${name}${note ? `: ${note}` : ''}`);
	} catch (error) {
		results.push({ name, ok: false });
		say(`  FAIL  ${name}`);
		for (const line of String(error && error.message ? error.message : error).split('\n'))
			say(`        ${line}`);
	}
}
function fail(message) {
	throw new Error(message);
}
const read = (file) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const exists = (file) => fs.existsSync(path.join(ROOT, file));

/** Files under `dir` (relative to the root) whose names pass `keep`. */
/** @param {string} dir @param {(name: string) => boolean} [keep] */
function filesUnder(dir, keep = () => true) {
	const out = [];
	const walk = (rel) => {
		for (const entry of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
			const child = path.posix.join(rel, entry.name);
			if (entry.isDirectory()) walk(child);
			else if (keep(entry.name)) out.push(child);
		}
	};
	if (exists(dir)) walk(dir);
	return out.sort();
}

const pkg = JSON.parse(read('package.json'));

/* ------------------------------------------------------------------ package.json */

function checkLicense() {
	if (pkg.license !== 'MIT')
		fail(`package.json "license" is ${JSON.stringify(pkg.license)}, n8n requires "MIT"`);
	const file = ['LICENSE.md', 'LICENSE', 'LICENSE.txt'].find(exists);
	if (!file) fail('no LICENSE.md / LICENSE file');
	const text = read(file);
	if (
		!/^#?\s*MIT License/m.test(text) ||
		!/Permission is hereby granted, free of charge/.test(text)
	)
		fail(`${file} is not the MIT license text`);
	return `"license": "MIT", ${file} is the MIT text`;
}

const GITHUB_REPO =
	/^(?:git\+)?https:\/\/github\.com\/([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+?)(?:\.git)?$/;
function checkRepository() {
	const repo = pkg.repository;
	const url = typeof repo === 'string' ? repo : repo && repo.url;
	if (!url)
		fail(
			'package.json has no "repository" (n8n checks that it is the public GitHub repository the package is published from)',
		);
	if (typeof repo === 'object' && repo.type !== 'git')
		fail(`"repository.type" is ${JSON.stringify(repo.type)}, expected "git"`);
	const m = GITHUB_REPO.exec(url);
	if (!m)
		fail(
			`"repository.url" ${url} is not a GitHub repository URL (https://github.com/<owner>/<name>.git)`,
		);
	const slug = `${m[1]}/${m[2]}`.toLowerCase();
	const homepage = String(pkg.homepage || '');
	const bugs = String((pkg.bugs && pkg.bugs.url) || pkg.bugs || '');
	if (!homepage.toLowerCase().startsWith(`https://github.com/${slug}`))
		fail(`"homepage" ${homepage || '(none)'} is not on github.com/${slug}`);
	if (!bugs.toLowerCase().startsWith(`https://github.com/${slug}/issues`))
		fail(`"bugs" ${bugs || '(none)'} is not github.com/${slug}/issues`);
	return `github.com/${m[1]}/${m[2]} (repository, homepage, bugs)`;
}

function checkAuthor() {
	const author = pkg.author;
	if (!author || typeof author !== 'object')
		fail(
			'"author" must be an object with name and email (n8n compares it with the npm maintainer)',
		);
	if (!author.name || !String(author.name).trim()) fail('"author.name" is empty');
	if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(String(author.email || '')))
		fail(`"author.email" ${JSON.stringify(author.email)} is not an email address`);
	return `${author.name} <${author.email}>`;
}

function checkCommunityPackage() {
	if (!/^(@[a-z0-9-~][a-z0-9-._~]*\/)?n8n-nodes-[a-z0-9-._~]+$/.test(pkg.name))
		fail(`name ${pkg.name} must start with n8n-nodes- (or @scope/n8n-nodes-)`);
	if (!(pkg.keywords || []).includes('n8n-community-node-package'))
		fail('keyword n8n-community-node-package missing');
	const n8n = pkg.n8n || {};
	if (n8n.n8nNodesApiVersion !== 1)
		fail(`n8n.n8nNodesApiVersion is ${JSON.stringify(n8n.n8nNodesApiVersion)}, expected 1`);
	const listed = [...(n8n.nodes || []), ...(n8n.credentials || [])];
	if (!(n8n.nodes || []).length) fail('n8n.nodes lists no node');
	if (!exists('dist')) fail('dist/ is missing: run `npm run build` first');
	const missing = listed.filter((file) => !exists(file));
	if (missing.length) fail(`listed in package.json "n8n" but not built: ${missing.join(', ')}`);
	if (JSON.stringify(pkg.files) !== JSON.stringify(['dist']))
		fail(`"files" is ${JSON.stringify(pkg.files)}: the package should ship dist/ only`);
	return `${pkg.name}, ${n8n.nodes.length} nodes and ${(n8n.credentials || []).length} credentials built, files ["dist"]`;
}

function checkNoRuntimeDependencies() {
	for (const field of [
		'dependencies',
		'optionalDependencies',
		'bundleDependencies',
		'bundledDependencies',
	]) {
		const value = pkg[field];
		const names = Array.isArray(value) ? value : Object.keys(value || {});
		if (names.length)
			fail(
				`"${field}": ${names.join(', ')} (n8n verifies only packages without runtime dependencies)`,
			);
	}
	const peers = Object.keys(pkg.peerDependencies || {});
	if (peers.some((name) => name !== 'n8n-workflow'))
		fail(`"peerDependencies" may hold only n8n-workflow, holds ${peers.join(', ')}`);
	const scripts = Object.keys(pkg.scripts || {}).filter((name) => INSTALL_SCRIPTS.includes(name));
	if (scripts.length) fail(`install-time scripts in package.json: ${scripts.join(', ')}`);
	if (pkg.overrides) fail('"overrides" is set (n8n\'s no-overrides-field rule)');
	return `no dependencies; peer ${peers.join(', ') || '(none)'}; no install-time scripts`;
}

function checkTypeScriptOnly() {
	const js = [...filesUnder('nodes'), ...filesUnder('credentials')].filter((f) =>
		/\.(c|m)?js$/.test(f),
	);
	if (js.length) fail(`JavaScript source in the package: ${js.join(', ')}`);
	const ts = [...filesUnder('nodes'), ...filesUnder('credentials')].filter((f) =>
		f.endsWith('.ts'),
	);
	return `${ts.length} TypeScript files, no JavaScript`;
}

/* ------------------------------------------------------------------ node code */

/** Imports and forbidden globals in nodes/ and credentials/, resolved by TypeScript's checker. */
function checkNodeCodeAccess() {
	let ts;
	try {
		ts = require(require.resolve('typescript', { paths: [ROOT] }));
	} catch (error) {
		fail(`typescript is not installed (npm ci): ${error.message}`);
	}
	const configPath = path.join(ROOT, 'tsconfig.json');
	const parsed = ts.parseJsonConfigFileContent(
		ts.readConfigFile(configPath, ts.sys.readFile).config,
		ts.sys,
		ROOT,
	);
	const program = ts.createProgram({
		rootNames: parsed.fileNames,
		options: { ...parsed.options, noEmit: true },
	});
	const checker = program.getTypeChecker();
	const ours = (file) => {
		const rel = path.relative(ROOT, file).split(path.sep).join('/');
		return (rel.startsWith('nodes/') || rel.startsWith('credentials/')) && rel.endsWith('.ts')
			? rel
			: null;
	};
	const problems = [];
	let files = 0;
	for (const sf of program.getSourceFiles()) {
		const rel = ours(sf.fileName);
		if (!rel) continue;
		files++;
		const where = (node) =>
			`${rel}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
		const visit = (node) => {
			if (
				(ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
				node.moduleSpecifier &&
				ts.isStringLiteral(node.moduleSpecifier)
			) {
				const spec = node.moduleSpecifier.text;
				if (!spec.startsWith('.') && !ALLOWED_IMPORTS.has(spec))
					problems.push(`${where(node)}: imports "${spec}"`);
			}
			if (ts.isImportEqualsDeclaration(node))
				problems.push(`${where(node)}: import = require(...)`);
			if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
				problems.push(`${where(node)}: dynamic import()`);
			if (ts.isIdentifier(node) && FORBIDDEN_GLOBALS.has(node.text)) {
				const symbol = checker.getSymbolAtLocation(node);
				const declarations = (symbol && symbol.declarations) || [];
				const global =
					declarations.length > 0 && declarations.every((d) => !ours(d.getSourceFile().fileName));
				// a property or key of that name (options.process) is not the global
				const parent = node.parent;
				const isName =
					parent &&
					((ts.isPropertyAccessExpression(parent) && parent.name === node) ||
						(ts.isPropertyAssignment(parent) && parent.name === node) ||
						(ts.isPropertySignature(parent) && parent.name === node));
				if (global && !isName) problems.push(`${where(node)}: uses the global ${node.text}`);
				if (!symbol && !isName) problems.push(`${where(node)}: ${node.text} (unresolved)`);
			}
			ts.forEachChild(node, visit);
		};
		visit(sf);
	}
	if (files === 0)
		fail('no TypeScript file of nodes/ or credentials/ in the program (tsconfig.json "include")');
	if (problems.length)
		fail(
			`${problems.length} place(s) reach the environment, files, processes or timers:\n${problems.join('\n')}`,
		);
	return `${files} files: imports only n8n-workflow, own files and allowed modules; none of ${[...FORBIDDEN_GLOBALS].slice(0, 6).join(', ')}…`;
}

/** What the published JavaScript requires. */
function checkBuiltRequires() {
	if (!exists('dist')) fail('dist/ is missing: run `npm run build` first');
	const problems = [];
	const js = filesUnder('dist', (name) => name.endsWith('.js'));
	for (const file of js) {
		const text = read(file);
		for (const m of text.matchAll(/\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)) {
			if (!m[1].startsWith('.') && !ALLOWED_IMPORTS.has(m[1]))
				problems.push(`${file}: require("${m[1]}")`);
		}
		if (/\bprocess\.env\b|\bchild_process\b/.test(text))
			problems.push(`${file}: process.env or child_process`);
	}
	if (problems.length) fail(problems.join('\n'));
	return `${js.length} files in dist/ require only n8n-workflow, crypto and their own files`;
}

/* ------------------------------------------------------------------ English, README */

function checkEnglishOnly() {
	const text = (name) => /\.(ts|json|md|svg)$/.test(name);
	const files = [
		...filesUnder('nodes', text),
		...filesUnder('credentials', text),
		'README.md',
		...filesUnder('docs', (n) => n.endsWith('.md')),
		...filesUnder('examples', text),
	];
	const problems = [];
	for (const file of files) {
		read(file)
			.split('\n')
			.forEach((line, i) => {
				const m = /(?![\p{Script=Latin}])\p{L}/u.exec(line);
				if (m) problems.push(`${file}:${i + 1}: "${m[0]}" in ${line.trim().slice(0, 80)}`);
			});
	}
	if (problems.length)
		fail(
			`letters outside the Latin script (n8n verifies English-only packages):\n${problems.slice(0, 20).join('\n')}`,
		);
	return `${files.length} files of the nodes, credentials, README, docs and examples`;
}

function checkReadme() {
	if (!exists('README.md')) fail('no README.md');
	const readme = read('README.md');
	const headings = readme.split('\n').filter((l) => /^#{2,3} /.test(l));
	/** @type {[string, RegExp][]} */
	const need = [
		['install', /install/i],
		['credentials (authentication)', /credential|authenticat/i],
		['usage (a first workflow)', /workflow|usage|how to use/i],
	];
	const missing = need.filter(([, re]) => !headings.some((h) => re.test(h))).map(([what]) => what);
	if (missing.length)
		fail(`README.md has no section for: ${missing.join(', ')} (headings: ${headings.join(' | ')})`);
	if (!/\]\(examples\//.test(readme)) fail('README.md links no example workflow (examples/)');
	return headings
		.filter((h) => need.some(([, re]) => re.test(h)))
		.map((h) => h.replace(/^#+ /, ''))
		.join(' | ');
}

/* ------------------------------------------------------------------ publishing */

function checkPublishing() {
	const publish = read('.github/workflows/publish.yml');
	const ci = read('.github/workflows/ci.yml');
	const need = (ok, what) => ok || fail(what);
	need(/on:\s*\n\s*push:\s*\n\s*tags:/.test(publish), 'publish.yml does not run on pushed tags');
	need(
		/-\s*'v\[0-9\]\+\.\[0-9\]\+\.\[0-9\]\+\*'/.test(publish),
		'publish.yml does not take a tag like v0.3.0',
	);
	need(
		/id-token:\s*write/.test(publish),
		'publish.yml has no "id-token: write" (the OIDC token that signs the provenance)',
	);
	need(
		/npm publish [^\n]*--provenance/.test(publish),
		'publish.yml does not run npm publish --provenance',
	);
	need(
		/needs:\s*checks/.test(publish) && /uses:\s*\.\/\.github\/workflows\/ci\.yml/.test(publish),
		'publish.yml does not publish after the CI job (needs: checks, uses ci.yml)',
	);
	need(
		/download-artifact@[\w.]+[\s\S]*?name:\s*package-tarball/.test(publish),
		'publish.yml does not publish the tarball CI tested (artifact package-tarball)',
	);
	need(
		/npm publish package\/\*\.tgz/.test(publish),
		'publish.yml publishes something else than the downloaded tarball',
	);
	const publishJob = publish.slice(publish.indexOf('\n  publish:'));
	need(
		!/actions\/checkout|npm (ci|install|run build)\b/.test(
			publishJob.replace(/npm install --global npm@[\d.]+/, ''),
		),
		'the publish job checks out or builds again: it must publish the tested tarball',
	);
	need(
		/upload-artifact@[\w.]+[\s\S]*?name:\s*package-tarball[\s\S]*?path:\s*\.cache\/package\/\*\.tgz/.test(
			ci,
		),
		'ci.yml does not keep .cache/package/*.tgz as artifact package-tarball',
	);
	need(/workflow_call/.test(ci), 'ci.yml cannot be called by publish.yml (workflow_call)');
	const ref = /uses:\s*[\w-]+\/[\w-]+@(\S+)/g;
	const unpinned = [...publish.matchAll(ref), ...ci.matchAll(ref)]
		.map((m) => m[0].replace(/^uses:\s*/, ''))
		.filter((u) => !/@(v\d+(\.\d+)*|[0-9a-f]{40})$/.test(u));
	need(unpinned.length === 0, `actions without a version: ${unpinned.join(', ')}`);
	// the job that holds the OIDC token runs only code pinned to a commit (a moved tag cannot change it)
	const movable = [...publishJob.matchAll(ref)]
		.map((m) => m[0].replace(/^uses:\s*/, ''))
		.filter((u) => !/@[0-9a-f]{40}$/.test(u));
	need(
		movable.length === 0,
		`the publish job (id-token: write) uses actions by tag, not by commit: ${movable.join(', ')}`,
	);
	need(
		!/npm@\d+(\s|$)/.test(publishJob),
		'the publish job installs npm by major version only: pin the exact version',
	);
	return 'tag v*.*.* → CI job → npm publish package/*.tgz --provenance (id-token: write, actions pinned to commits), the tarball CI packed';
}

/* ------------------------------------------------------------------ n8n-node lint */

function cacheRoot() {
	return path.resolve(process.env.CIS_N8N_CACHE || path.join(ROOT, '.cache', 'n8n'));
}

function npmCommand() {
	return process.platform === 'win32' ? 'npm.cmd' : 'npm';
}

/** @n8n/node-cli installed once into the cache; returns its folder. */
function ensureNodeCli() {
	const dir = path.join(cacheRoot(), `node-cli-${NODE_CLI_VERSION}`);
	const marker = path.join(dir, '.cis-install-ok.json');
	if (fs.existsSync(marker)) return dir;
	say(`  (installing @n8n/node-cli@${NODE_CLI_VERSION} into ${dir}; once)`);
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(
		path.join(dir, 'package.json'),
		JSON.stringify({ name: 'cis-node-cli', private: true, version: '0.0.0' }),
	);
	const res = spawnSync(
		npmCommand(),
		[
			'install',
			'--ignore-scripts',
			'--no-audit',
			'--no-fund',
			'--no-package-lock',
			`@n8n/node-cli@${NODE_CLI_VERSION}`,
		],
		{
			cwd: dir,
			encoding: 'utf8',
			shell: process.platform === 'win32',
			env: { ...process.env, npm_config_update_notifier: 'false' },
		},
	);
	fs.writeFileSync(path.join(dir, 'install.log'), `${res.stdout || ''}${res.stderr || ''}`);
	if (res.status !== 0)
		fail(
			`npm install @n8n/node-cli@${NODE_CLI_VERSION} failed (exit ${res.status}); see ${path.join(dir, 'install.log')}:\n${String(
				res.stderr || '',
			)
				.trim()
				.split('\n')
				.slice(-5)
				.join('\n')}`,
		);
	fs.writeFileSync(
		marker,
		JSON.stringify({
			package: `@n8n/node-cli@${NODE_CLI_VERSION}`,
			installedAt: new Date().toISOString(),
		}),
	);
	return dir;
}

function checkN8nNodeLint() {
	const cliDir = ensureNodeCli();
	const cliPackage = path.join(cliDir, 'node_modules', '@n8n', 'node-cli');
	const template = path.join(
		cliPackage,
		'dist',
		'template',
		'templates',
		'shared',
		'default',
		'eslint.config.mjs',
	);
	if (!fs.existsSync(template))
		fail(`no template eslint.config.mjs in @n8n/node-cli@${NODE_CLI_VERSION} (${template})`);
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cis-n8n-node-lint-'));
	try {
		for (const entry of ['package.json', 'tsconfig.json', 'nodes', 'credentials'])
			fs.cpSync(path.join(ROOT, entry), path.join(work, entry), { recursive: true });
		fs.copyFileSync(template, path.join(work, 'eslint.config.mjs'));
		fs.symlinkSync(
			path.join(cliDir, 'node_modules'),
			path.join(work, 'node_modules'),
			process.platform === 'win32' ? 'junction' : 'dir',
		);
		const res = spawnSync(
			process.execPath,
			[path.join(cliPackage, 'bin', 'n8n-node.mjs'), 'lint'],
			{
				cwd: work,
				encoding: 'utf8',
				env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
			},
		);
		// eslint prints nothing on success, so a 0 exit with no strict-mode violation is the pass
		// eslint-disable-next-line no-control-regex
		const output = `${res.stdout || ''}${res.stderr || ''}`.replace(/\x1b\[[0-9;]*m/g, '');
		if (res.status !== 0 || /Strict mode violation|problems? \(/.test(output)) {
			fail(
				`n8n-node lint (strict) exit ${res.status}:\n${output.trim().split('\n').slice(-40).join('\n')}`,
			);
		}
		if (JSON.parse(fs.readFileSync(path.join(work, 'package.json'), 'utf8')).n8n.strict !== true)
			fail('package.json n8n.strict is not true: the template config was not enforced');
		return `@n8n/node-cli ${NODE_CLI_VERSION}, strict (template eslint.config.mjs), on package.json, nodes/, credentials/: 0 problems`;
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

/* ------------------------------------------------------------------ main */

function main() {
	const args = process.argv.slice(2);
	for (const a of args)
		if (a !== '--no-node-cli')
			throw new Error(
				`unknown option ${a} (usage: node scripts/check-verification.js [--no-node-cli])`,
			);
	say(
		'n8n verification guidelines (docs/verification.md); the scanner is checked by node scripts/scan-package.js',
	);
	check('MIT license', checkLicense);
	check('repository, homepage and bugs: one public GitHub repository', checkRepository);
	check('author with name and email', checkAuthor);
	check('community package: name, keyword, n8n section, listed files built', checkCommunityPackage);
	check('no runtime dependencies, no install-time scripts', checkNoRuntimeDependencies);
	check('TypeScript source only', checkTypeScriptOnly);
	check(
		"node code: no environment, file, process or timer access (source, by TypeScript's checker)",
		checkNodeCodeAccess,
	);
	check('node code: the built dist/ requires nothing else', checkBuiltRequires);
	check('English only (no letters outside the Latin script)', checkEnglishOnly);
	check('README: install, credentials, usage, examples', checkReadme);
	check(
		'published from a GitHub Action with provenance: the tarball CI tested, on a version tag',
		checkPublishing,
	);
	if (args.includes('--no-node-cli')) {
		results.push({ name: 'n8n-node lint', ok: false });
		say(
			'  FAIL  n8n-node lint (strict) on package.json, nodes/, credentials/: left out (--no-node-cli)',
		);
	} else {
		check(
			"n8n-node lint (strict mode, n8n's template config) on package.json, nodes/, credentials/",
			checkN8nNodeLint,
		);
	}
	const passed = results.filter((r) => r.ok).length;
	const failed = results.length - passed;
	say(`verification: ${passed} passed, ${failed} failed`);
	process.exitCode = failed ? 1 : 0;
}

module.exports = { NODE_CLI_VERSION };

if (require.main === module) main();
