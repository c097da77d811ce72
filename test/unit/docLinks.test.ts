import { existsSync, readdirSync, readFileSync } from 'fs';
import { join } from 'path';

/**
 * Every documentation link of the nodes and credentials (codex files, documentationUrl) leads to a
 * page of the user guide in docs/ (or the README) that exists, at a heading that exists: the editor's
 * help leads to help, not to reference.
 */
const ROOT = join(__dirname, '..', '..');
const REPOSITORY = 'https://github.com/cis-autocall/n8n-nodes-cis-autocall';
const PAGES = `${REPOSITORY}/blob/main/`;

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
		.map((entry) =>
			join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name),
		);
}

const links = [
	...filesUnder('nodes', '.node.json'),
	...filesUnder('credentials', '.credentials.ts'),
].flatMap((file) =>
	[...readFileSync(file, 'utf8').matchAll(/https:\/\/github\.com\/[^\s"'`]+/g)].map((match) => [
		file.replace(ROOT, ''),
		match[0],
	]),
);

function anchorsOf(page: string): Set<string> {
	return new Set(
		readFileSync(join(ROOT, page), 'utf8')
			.split('\n')
			.filter((line) => /^#{1,6}\s/.test(line))
			.map((line) => slug(line.replace(/^#+/, ''))),
	);
}

test('there are documentation links to check', () => {
	expect(links.length).toBeGreaterThanOrEqual(5);
});

test.each(links)('%s: %s lands on a page of the guide, at a heading that exists', (_file, url) => {
	expect(url.startsWith(PAGES)).toBe(true);
	const [page, anchor] = url.slice(PAGES.length).split('#');
	expect(page === 'README.md' || page.startsWith('docs/')).toBe(true);
	expect(existsSync(join(ROOT, page))).toBe(true);
	if (anchor !== undefined) expect(anchorsOf(page)).toContain(anchor);
});
