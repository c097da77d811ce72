#!/usr/bin/env node
'use strict';
/**
 * n8n's verification scanner (@n8n/scan-community-package, a devDependency) on this package as
 * `npm pack` makes it, offline.
 *
 *   node scripts/scan-package.js [--tarball path/to/pkg.tgz]     (default: npm pack of the built repo)
 *
 * The scanner's CLI takes a package name and downloads it from npm, its provenance and its GitHub
 * source; none of that exists before publishing. What decides its verdict is its analyser,
 * `analyzePackage(dir, patterns)` in scanner/scanner.mjs (ESLint with n8n's community rules,
 * inline `eslint-disable` ignored). This runs that analyser on the same inputs:
 *   1. the source, with the scanner's SOURCE_FILE_PATTERNS (package.json, nodes/, credentials/);
 *   2. the unpacked tarball, with the patterns the scanner uses for the download (**\/*.js, package.json);
 *   3. the unpacked tarball with the analyser's default patterns (every .js, .ts and .json), so that
 *      no published file can be misread (older scanners linted the whole download).
 * A part passes when the scanner passes it and ESLint reports 0 problems (warnings included).
 * Last line: "scanner: N passed, N failed" (parts). Exit code 1 when a part failed.
 *
 * The scanner's provenance check needs the published package and is not run here.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { pathToFileURL } = require('url');
const { npmCli } = require('./lib/n8n-install');

const REPO_ROOT = path.resolve(__dirname, '..');
const SCANNER_PACKAGE = '@n8n/scan-community-package';

function say(line = '') {
	process.stdout.write(`${line}\n`);
}

function parseArgs(argv) {
	const opts = {};
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].split(/=(.*)/s, 2);
		if (flag === '--tarball')
			opts.tarball = path.resolve(inline !== undefined ? inline : argv[++i]);
		else
			throw new Error(
				`unknown option ${argv[i]} (usage: node scripts/scan-package.js [--tarball file.tgz])`,
			);
	}
	return opts;
}

/** `npm pack` of the repository (dist/ must be built) into `dir`; returns the tarball path. */
function packRepository(dir) {
	if (!fs.existsSync(path.join(REPO_ROOT, 'dist')))
		throw new Error('dist/ is missing: run `npm run build` first');
	const out = execFileSync(
		process.execPath,
		[npmCli(), 'pack', '--json', '--ignore-scripts', '--pack-destination', dir],
		{
			cwd: REPO_ROOT,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	const info = JSON.parse(out.slice(out.indexOf('[')))[0];
	return path.join(dir, info.filename);
}

/** Unpacks a tarball the way the scanner does (`tar -xzf … --strip-components=1`). */
function unpack(tarball, dir) {
	fs.mkdirSync(dir, { recursive: true });
	execFileSync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1'], {
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	return dir;
}

async function loadScanner() {
	const entry = require.resolve(`${SCANNER_PACKAGE}/scanner/scanner.mjs`, { paths: [REPO_ROOT] });
	const scanner = await import(pathToFileURL(entry).href);
	const scannerRequire = require('module').createRequire(entry);
	// the scanner makes a temp folder when loaded; remove it when this process ends
	scannerRequire('tmp').setGracefulCleanup();
	const version = JSON.parse(
		fs.readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8'),
	).version;
	return {
		scanner,
		version,
		ESLint: scannerRequire('eslint').ESLint,
		glob: scannerRequire('fast-glob'),
	};
}

/**
 * One part: the scanner's own verdict (analyzePackage) and ESLint's problem count with the scanner's
 * config and options, on the same files.
 */
async function scanPart({ scanner, ESLint, glob }, { label, dir, patterns }) {
	const verdict = await scanner.analyzePackage(dir, patterns);
	const eslint = new ESLint({
		cwd: dir,
		allowInlineConfig: false,
		overrideConfigFile: true,
		overrideConfig: await scanner.buildScanConfig(),
	});
	const files = glob.sync(patterns, {
		cwd: dir,
		absolute: true,
		ignore: ['node_modules/**', '**/package-lock.json'],
	});
	const results = files.length ? await eslint.lintFiles(files) : [];
	const errors = results.reduce((n, r) => n + r.errorCount, 0);
	const warnings = results.reduce((n, r) => n + r.warningCount, 0);
	const passed = Boolean(verdict.passed) && errors + warnings === 0;
	say(`${passed ? 'PASS' : 'FAIL'}  ${label}`);
	say(
		`      patterns ${patterns.join(', ')}: ${files.length} files, ${errors + warnings} problems (${errors} errors, ${warnings} warnings); scanner verdict: ${verdict.passed ? 'passed' : `failed (${verdict.message})`}`,
	);
	if (errors + warnings > 0) {
		const formatter = await eslint.loadFormatter('stylish');
		say((await formatter.format(results)).replace(/^/gm, '      '));
	}
	return passed;
}

async function main() {
	const opts = parseArgs(process.argv.slice(2));
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cis-scan-'));
	try {
		const loaded = await loadScanner();
		const tarball = opts.tarball || packRepository(work);
		const packageDir = unpack(tarball, path.join(work, 'package'));
		const fileCount = loaded.glob.sync('**/*', { cwd: packageDir, dot: true }).length;
		say(
			`${SCANNER_PACKAGE} ${loaded.version}, analyser run offline on ${path.basename(tarball)} (${fileCount} files)`,
		);
		const parts = [
			{
				label:
					'source: package.json, nodes/, credentials/ (what the scanner lints in the attested commit)',
				dir: REPO_ROOT,
				patterns: loaded.scanner.SOURCE_FILE_PATTERNS,
			},
			{
				label:
					'packed package: compiled .js and package.json (what the scanner lints in the download)',
				dir: packageDir,
				patterns: ['**/*.js', 'package.json'],
			},
			{
				label: "packed package: every .js, .ts and .json file (the analyser's default patterns)",
				dir: packageDir,
				patterns: ['**/*.js', '**/*.ts', '**/*.json'],
			},
		];
		let passed = 0;
		let failed = 0;
		for (const part of parts) {
			if (await scanPart(loaded, part)) passed += 1;
			else failed += 1;
		}
		say(`scanner: ${passed} passed, ${failed} failed`);
		process.exitCode = failed ? 1 : 0;
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

if (require.main === module) {
	main().catch((err) => {
		process.stderr.write(`scan-package: ${err && err.message ? err.message : err}\n`);
		say('scanner: 0 passed, 1 failed');
		process.exitCode = 1;
	});
}
