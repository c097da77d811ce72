'use strict';

/**
 * The words a no-code user must not meet in the editor: the API's status and
 * event codes, API-speak, and the API's camelCase field names inside prose. ONE list, read by the
 * jest test over the node descriptions (test/unit/editorWords.test.ts) and by the real-browser
 * suite (test/ui). It applies to what the editor shows (labels, descriptions, placeholders, hints,
 * notices, option names), not to parameter names or values, nor to the README's reference tables.
 */

/** Case-sensitive whole words: the service's status and event codes as the API spells them. */
const CODES = [
	'BLANK',
	'PROCESS',
	'HALTED',
	'PAUSED',
	'READY',
	'STOPPED',
	'FINISHED',
	'RUNNING',
	// the event codes, from the one list of events
	...require('../../nodes/shared/events.json').map((event) => event.value),
];

/** Case-sensitive phrases of API-speak (labels the editor once showed). */
const PHRASES = [
	'Candidate Changed',
	'Efficiency Reached',
	'Raw Value',
	'UUID',
	'endpoint',
	'payload',
	"Not part of the service's published API",
	'published API',
	// n8n 1.123.81 and 2.41.1 both name the trigger's test button "Test this trigger" (output pane)
	'Listen for test event',
	'Take Fields From Input Items by Name',
	'Default for the Trunk',
];

/** Words matched in any case ("cps" in every spelling, "spec" as a word). */
const ANY_CASE_WORDS = ['cps', 'spec'];

/**
 * camelCase words that are not the API's identifiers. Kept short: each entry says why it is fine.
 * - n8n is the product's name (not matched anyway: the pattern has no digits), listed for readers.
 */
const CAMEL_CASE_ALLOWED = new Set([]);

/** The API's camelCase identifiers inside prose ("webhookUrls", "autoCallId"). */
const CAMEL_CASE = /\b[a-z]+[A-Z][A-Za-z]*\b/g;

/** Everything that may not appear, for reports and the browser suite. */
const BANNED = Object.freeze({
	codes: CODES,
	phrases: PHRASES,
	anyCaseWords: ANY_CASE_WORDS,
	camelCase: CAMEL_CASE.source,
	camelCaseAllowed: [...CAMEL_CASE_ALLOWED],
});

function escapeRegExp(text) {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Expressions (`{{ ... }}`) are code the user writes, not prose: they are left out of the check. */
function withoutExpressions(text) {
	return text.replace(/\{\{[\s\S]*?\}\}/g, ' ');
}

/**
 * The banned words found in `text`, each once, in the order of the list. A placeholder that shows
 * an expression (`={{ ... }}` or one with `{{ }}`) is passed in by the caller with
 * `{ expression: true }` and is checked only outside its expressions.
 */
function findBanned(text) {
	if (typeof text !== 'string' || text === '') return [];
	const prose = withoutExpressions(text);
	const found = [];
	for (const code of CODES) {
		if (new RegExp(`(^|[^A-Za-z0-9_])${escapeRegExp(code)}($|[^A-Za-z0-9_])`).test(prose))
			found.push(code);
	}
	for (const phrase of PHRASES) {
		if (prose.includes(phrase)) found.push(phrase);
	}
	for (const word of ANY_CASE_WORDS) {
		if (new RegExp(`\\b${word}\\b`, 'i').test(prose)) found.push(word);
	}
	for (const match of prose.match(CAMEL_CASE) ?? []) {
		if (!CAMEL_CASE_ALLOWED.has(match) && !found.includes(match)) found.push(match);
	}
	return found;
}

module.exports = { BANNED, findBanned };
