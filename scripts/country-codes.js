#!/usr/bin/env node
'use strict';
/**
 * Writes nodes/shared/phones/countryCodes.json, the lengths of phone
 * numbers per country code, and each country's code and national trunk prefixes (the 0 of 020 7946 0958,
 * for Default Country), from the metadata of libphonenumber-js (a dev dependency: Google's
 * libphonenumber metadata, maintained upstream). A number's lengths are those of landlines and mobiles. The nodes read the small committed table, so the
 * package keeps no runtime dependency.
 *
 *   node scripts/country-codes.js           # regenerate the table
 *   node scripts/country-codes.js --check   # exit 1 when the committed table differs
 *
 * To update: `npm install --save-dev libphonenumber-js@latest`, then run this script and commit.
 */
const fs = require('fs');
const path = require('path');

const TARGET = path.join(__dirname, '..', 'nodes', 'shared', 'phones', 'countryCodes.json');

/** The version of libphonenumber-js installed, and its metadata (the "max" set: it has the lengths per type of number). */
function readMetadata() {
	const version = require('libphonenumber-js/package.json').version;
	const { Metadata } = require('libphonenumber-js/core');
	/** @type {any} the metadata as JSON (its type in libphonenumber-js does not describe the "max" set) */
	const json = require('libphonenumber-js/metadata.max.json');
	return { version, json, metadata: new Metadata(json) };
}

/** The types of number a person answers: landlines and mobiles (not toll-free, premium-rate or shared-cost lines). */
const PERSONAL_TYPES = ['FIXED_LINE', 'MOBILE'];

/** The national lengths of the numbering plan selected in `metadata`: its people's numbers, or all its numbers when it tells no types. */
function personalLengths(metadata) {
	const plan = metadata.numberingPlan;
	const lengths = new Set();
	for (const type of PERSONAL_TYPES)
		for (const length of plan.type(type)?.possibleLengths() ?? []) lengths.add(length);
	if (lengths.size === 0) for (const length of plan.possibleLengths() ?? []) lengths.add(length);
	return lengths;
}

/**
 * country code → regions (ISO 3166 codes) and the national lengths of its numbers: the union over
 * its regions of the lengths of landlines and mobiles (lengths dialled only locally are left out).
 */
function countryCodes({ json, metadata }) {
	/** @type {Record<string, { regions: string[], nationalLengths: number[] }>} */
	const table = {};
	/** @type {[string, string[]][]} */
	const nonGeographic = Object.keys(json.nonGeographic ?? {}).map((code) => [code, ['001']]);
	for (const [code, regions] of [...Object.entries(json.country_calling_codes), ...nonGeographic]) {
		const lengths = new Set();
		for (const region of regions) {
			if (region === '001') metadata.selectNumberingPlan('001', code);
			else metadata.selectNumberingPlan(region);
			for (const length of personalLengths(metadata)) lengths.add(length);
		}
		if (lengths.size === 0)
			throw new Error(`libphonenumber-js metadata: no lengths for country code ${code}`);
		const named = regions.filter((region) => region !== '001');
		table[String(code)] = {
			regions: named.length > 0 ? named : ['international'],
			nationalLengths: [...lengths].sort((a, b) => a - b),
		};
	}
	return table;
}

/**
 * The texts a simple pattern of libphonenumber's metadata stands for: alternatives (`|`) of digits and
 * `[digits]`, each maybe optional (`?`), as in Belarus's `0|80?` (0, 8 or 80). Undefined for any other pattern.
 */
function expandPattern(pattern) {
	if (!/^[0-9|?[\]]+$/.test(pattern)) return undefined;
	const texts = [];
	for (const alternative of pattern.split('|')) {
		const tokens = alternative.match(/(\d|\[\d+\])\??/g) ?? [];
		if (tokens.join('') !== alternative) return undefined;
		let partial = [''];
		for (const token of tokens) {
			const optional = token.endsWith('?');
			const digits = token.replace(/[[\]?]/g, '').split('');
			partial = partial.flatMap((text) => [
				...(optional ? [text] : []),
				...digits.map((digit) => text + digit),
			]);
		}
		texts.push(...partial.filter((text) => text !== ''));
	}
	return texts;
}

/**
 * The national numbers of a person in the numbering plan selected in `metadata`, as one pattern: its
 * landlines' and mobiles' patterns (the same one once), or its general pattern when it tells no types.
 */
function personalPattern(metadata) {
	const plan = metadata.numberingPlan;
	const patterns = [
		...new Set(PERSONAL_TYPES.map((type) => plan.type(type)?.pattern()).filter(Boolean)),
	];
	return patterns.length > 0 ? patterns.join('|') : plan.nationalNumberPattern();
}

/**
 * country (ISO 3166 alpha-2) → its country code, the trunk prefixes its national numbers are written
 * with (GB: 0, US: 1, RU: 8, BY: 80, 8 or 0), the one written today first, when it has any, and the
 * pattern of its people's national numbers (`valid`: landlines and mobiles, libphonenumber's own).
 */
function regions({ json, metadata }) {
	/** @type {Record<string, { code: string, trunkPrefixes?: string[], valid: string }>} */
	const table = {};
	for (const region of Object.keys(json.countries)) {
		if (!/^[A-Z]{2}$/.test(region)) continue;
		metadata.selectNumberingPlan(region);
		const plan = metadata.numberingPlan;
		// The metadata gives 0 (a number) where a country has no prefix.
		const written = plan.nationalPrefix();
		const parsing = plan.nationalPrefixForParsing();
		const prefixes = typeof written === 'string' && /^\d+$/.test(written) ? [written] : [];
		for (const prefix of (typeof parsing === 'string' && expandPattern(parsing)) || [])
			if (!prefixes.includes(prefix)) prefixes.push(prefix);
		table[region] = {
			code: String(plan.callingCode()),
			...(prefixes.length > 0 ? { trunkPrefixes: prefixes } : {}),
			valid: personalPattern(metadata),
		};
	}
	return table;
}

/** A value as JSON on one line, with a space after each comma and colon between values (never inside a text). */
function compact(value) {
	if (Array.isArray(value)) return `[${value.map(compact).join(', ')}]`;
	if (typeof value === 'object' && value !== null) {
		return `{${Object.entries(value)
			.map(([key, entry]) => `${JSON.stringify(key)}: ${compact(entry)}`)
			.join(', ')}}`;
	}
	return JSON.stringify(value);
}

/** One JSON row per key, sorted by `order`. */
function rowsOf(table, order) {
	return Object.keys(table)
		.sort(order)
		.map((key) => `    ${JSON.stringify(key)}: ${compact(table[key])}`);
}

function render(version, table, countries) {
	return [
		'{',
		`  "generatedBy": "scripts/country-codes.js from libphonenumber-js ${version} (the metadata of Google's libphonenumber); do not edit: run node scripts/country-codes.js",`,
		`  "source": "libphonenumber-js ${version}",`,
		'  "codes": {',
		rowsOf(table, (a, b) => a.localeCompare(b, 'en', { numeric: true })).join(',\n'),
		'  },',
		'  "countries": {',
		rowsOf(countries, (a, b) => a.localeCompare(b, 'en')).join(',\n'),
		'  }',
		'}',
		'',
	].join('\n');
}

function generate() {
	const metadata = readMetadata();
	return render(metadata.version, countryCodes(metadata), regions(metadata));
}

if (require.main === module) {
	const text = generate();
	if (process.argv.includes('--check')) {
		const committed = fs.existsSync(TARGET) ? fs.readFileSync(TARGET, 'utf8') : '';
		if (committed !== text) {
			console.error(
				`${path.relative(process.cwd(), TARGET)} differs from the installed libphonenumber-js metadata: run node scripts/country-codes.js`,
			);
			process.exit(1);
		}
		console.log(
			`${path.relative(process.cwd(), TARGET)} matches the installed libphonenumber-js metadata`,
		);
	} else {
		fs.writeFileSync(TARGET, text);
		console.log(`wrote ${path.relative(process.cwd(), TARGET)}`);
	}
}

module.exports = { generate, TARGET };
