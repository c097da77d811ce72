/**
 * Examples 14a, 14b and 14c: the results' table keeps each called number as digits, country code
 * first, and the lookup tools bring the number the model gives to the same digits, so that a lookup
 * by any written form of a number finds its row (`+7 999 000-11-22`, `8 999 000 11 22`, digits).
 * The expressions are taken from the examples themselves and run as n8n runs an expression's code.
 */
import * as fs from 'fs';
import * as path from 'path';

const examples = path.resolve(__dirname, '..', '..', 'examples');
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(examples, file), 'utf8'));

/** The code of an expression `={{ <code> }}` as a function of `value`, standing for `$fromAI(…)` or `$json.callTo`. */
function normaliserOf(expression: string, call: RegExp): (value: unknown) => string {
	const code = expression.replace(/^=\{\{\s*/, '').replace(/\s*\}\}$/, '');
	const match = code.match(call);
	if (!match) throw new Error(`no ${call} in ${expression}`);
	return new Function('value', `return value${code.slice(match.index! + match[0].length)};`) as (
		value: unknown,
	) => string;
}

const stored = normaliserOf(
	read('14a-call-results-to-table.json')
		.nodes.find((n: any) => n.name === 'Row for the agent')
		.parameters.assignments.assignments.find((a: any) => a.name === 'phone').value,
	/String\(\$json\.callTo\)/,
);
const lookups = ['14b-chat-agent-call-and-result.json', '14c-mcp-server.json'].map((file) => {
	const tool = read(file).nodes.find((n: any) => n.type === 'n8n-nodes-base.dataTableTool');
	return [
		file,
		normaliserOf(
			tool.parameters.filters.conditions[0].keyValue,
			/\$fromAI\('phone', `[^`]*`, 'string'\)/,
		),
	] as const;
});

test.each(lookups)(
	'%s: a lookup by any written form of the number reads the digits 14a keeps',
	(_file, lookup) => {
		for (const written of [
			'+7 999 000-11-22',
			'8 999 000 11 22',
			'79990001122',
			'89990001122',
			'(999) 000-11-22',
		]) {
			expect(lookup(written)).toBe('79990001122');
		}
		expect(lookup('+44 20 7946 0958')).toBe('442079460958');
		for (const called of ['79990001122', '89990001122', '9990001122'])
			expect(lookup(called)).toBe(stored(called));
	},
);

test('14a keeps the number called as digits, country code first, whatever form it was sent in', () => {
	expect(stored('89990001122')).toBe('79990001122');
	expect(stored('+7 (999) 000-11-22')).toBe('79990001122');
	expect(stored('442079460958')).toBe('442079460958');
});
