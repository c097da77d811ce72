/**
 * CONTRIBUTING.md's map of nodes/ is true and complete: every file of nodes/ is named in the
 * section of its folder, every file a section names exists there, and every repository path the
 * guide cites in backticks exists.
 */
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const guide = fs.readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8');

function filesUnder(dir: string): string[] {
	return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
		const relative = `${dir}/${entry.name}`;
		return entry.isDirectory() ? filesUnder(relative) : [relative];
	});
}

/** The files the map names: the folder of each "#### `nodes/…/`" section joined with its rows' file names. */
function mappedFiles(text: string): string[] {
	const named: string[] = [];
	let folder: string | undefined;
	for (const line of text.split('\n')) {
		const heading = /^#{2,4} `(nodes\/[^`]*\/)`/.exec(line);
		if (heading) folder = heading[1];
		else if (/^#{2,4} /.test(line)) folder = undefined;
		const row = /^\| `([^`/]+)` \|/.exec(line);
		if (row && folder) named.push(`${folder}${row[1]}`);
	}
	return named;
}

/** Repository paths cited in backticks (placeholders such as `<resource>` and globs left out). */
function citedPaths(text: string): string[] {
	const cited = [
		...text.matchAll(/`((?:nodes|credentials|test|simulator|scripts|docs|examples)\/[^`\s]*)`/g),
	].map((match) => match[1]);
	return [...new Set(cited.filter((cited) => !/[<*{]/.test(cited)))];
}

describe('CONTRIBUTING.md', () => {
	const mapped = mappedFiles(guide);

	it('its map is read (a broken reader would make the checks below pass)', () => {
		expect(mapped.length).toBeGreaterThan(80);
		expect(mapped).toContain('nodes/CisAutoCall/actions/pipeline/send.ts');
	});

	it('names every file of nodes/ in the section of its folder', () => {
		const missing = filesUnder('nodes').filter((file) => !mapped.includes(file));
		expect(missing).toEqual([]);
	});

	it('names no file of nodes/ that does not exist', () => {
		expect(mapped.filter((file) => !fs.existsSync(path.join(ROOT, file)))).toEqual([]);
	});

	it('cites only paths that exist', () => {
		const cited = citedPaths(guide);
		expect(cited.length).toBeGreaterThan(20);
		expect(cited.filter((cited) => !fs.existsSync(path.join(ROOT, cited)))).toEqual([]);
	});
});
