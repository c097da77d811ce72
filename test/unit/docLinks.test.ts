import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

/**
 * Issue 11, point 9: every documentation link of the nodes and credentials (codex files,
 * documentationUrl) lands on a heading of the README that exists.
 */
const ROOT = join(__dirname, '..', '..');
const REPOSITORY = 'https://github.com/cis-autocall/n8n-nodes-cis-autocall';

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
}

function filesUnder(dir: string, suffix: string): string[] {
	return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
		.filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
		.map((entry) => join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name));
}

const links = [
	...filesUnder('nodes', '.node.json'),
	...filesUnder('credentials', '.credentials.ts'),
].flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/https:\/\/github\.com\/[^\s"'`]+/g)].map((match) => [file.replace(ROOT, ''), match[0]]));

const anchors = new Set(
	readFileSync(join(ROOT, 'README.md'), 'utf8')
		.split('\n')
		.filter((line) => /^#{1,6}\s/.test(line))
		.map((line) => slug(line.replace(/^#+/, ''))),
);

test('there are documentation links to check', () => {
	expect(links.length).toBeGreaterThanOrEqual(5);
});

test.each(links)('%s: %s lands on a README heading', (_file, url) => {
	expect(url.startsWith(`${REPOSITORY}#`)).toBe(true);
	expect(anchors).toContain(url.slice(url.indexOf('#') + 1));
});
