import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { checkLinks } = require('../../scripts/check-docs') as {
	checkLinks: (file: string, problems: string[], root?: string) => number;
};

/**
 * The docs check (scripts/check-docs.js) catches a link to a section that does
 * not exist, in examples/README.md as in any page: markdown links, reference definitions, HTML
 * links and images, and a section named in prose ("see the README, "Some Section"").
 */
let root: string;

beforeAll(() => {
	root = mkdtempSync(join(tmpdir(), 'cis-check-docs-'));
	mkdirSync(join(root, 'examples'));
	mkdirSync(join(root, 'docs', 'images'), { recursive: true });
	writeFileSync(join(root, 'docs', 'images', 'a.png'), '');
	writeFileSync(join(root, 'docs', 'trigger.md'), '# The trigger\n\n## Reference\n');
	writeFileSync(
		join(root, 'README.md'),
		'# Package\n\n## Your first workflow: new CRM lead → call\n\n## More\n',
	);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function problemsOf(text: string): string[] {
	writeFileSync(join(root, 'examples', 'README.md'), text);
	const problems: string[] = [];
	checkLinks('examples/README.md', problems, root);
	return problems;
}

test('links to sections that exist pass', () => {
	expect(
		problemsOf(
			[
				'[first](../README.md#your-first-workflow-new-crm-lead--call), [more](../README.md#more)',
				'[ref]: ../docs/trigger.md#reference',
				'<img src="../docs/images/a.png" alt="">',
				'See the README, "More". In code: `[x](../README.md#not-checked-in-code)`',
			].join('\n'),
		),
	).toEqual([]);
});

test.each([
	['a markdown link', '[x](../README.md#using-it-from-an-ai-agent)', '#using-it-from-an-ai-agent'],
	['a reference definition', '[ref]: ../docs/trigger.md#events', '#events'],
	['an HTML link', '<a href="../README.md#install">install</a>', '#install'],
	[
		'a section named in prose',
		'See the README, "Using it from an AI Agent".',
		'"Using it from an AI Agent"',
	],
	['a missing file', '[x](../docs/missing.md)', 'does not exist'],
	['a missing image', '<img src="docs/images/a.png">', 'does not exist'],
])('%s to a section or file that does not exist fails', (_, text, named) => {
	const problems = problemsOf(text);
	expect(problems).toHaveLength(1);
	expect(problems[0]).toContain(named);
});
