#!/usr/bin/env node
'use strict';
/**
 * Prints where a V8 CPU profile's time goes (markdown): share per category and the top functions by
 * self time. Made for the profiles `node test/bench/run.js --cpu-prof DIR` writes, any .cpuprofile works.
 *
 *   node test/bench/profile.js FILE.cpuprofile [--top 15] [--per N NAME]
 *
 * --per N NAME   add a column "ms per NAME" (e.g. --per 800 event)
 */
const fs = require('fs');
const path = require('path');
const { analyzeProfile, renderProfile } = require('./lib/profile');

function main(argv) {
	let file;
	let top = 15;
	let perUnit;
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === '--top') top = Number(argv[++i]);
		else if (argv[i] === '--per') perUnit = { count: Number(argv[++i]), name: argv[++i] };
		else if (argv[i] === '--help' || argv[i] === '-h') {
			process.stdout.write(fs.readFileSync(__filename, 'utf8').split('*/')[0]);
			return 0;
		} else if (!file) file = argv[i];
		else throw new Error(`unexpected argument ${argv[i]}`);
	}
	if (!file)
		throw new Error('usage: node test/bench/profile.js FILE.cpuprofile [--top 15] [--per N NAME]');
	const analysis = analyzeProfile(JSON.parse(fs.readFileSync(file, 'utf8')), { top });
	process.stdout.write(renderProfile(analysis, { title: path.basename(file), perUnit }));
	return 0;
}

try {
	process.exitCode = main(process.argv.slice(2));
} catch (e) {
	process.stderr.write(`${e.message}\n`);
	process.exitCode = 1;
}
