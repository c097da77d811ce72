/**
 * What a process remembers: every memory is declared in nodes/shared/processMemory.ts (cap and
 * expiry), CONTRIBUTING.md's table names each with the same cap and expiry, every memory of nodes/
 * is built by processMemory(name) from its declaration and no file keeps state of its own, and the
 * bounded memory keeps its cap and expiry.
 */
import * as fs from 'fs';
import * as path from 'path';

import { ExpiringMap } from '../../nodes/shared/expiringMap';
import { type MemoryName, PROCESS_MEMORIES, processMemory } from '../../nodes/shared/processMemory';
import { MAX_KEPT_REQUESTS } from '../../nodes/CisAutoCall/actions/runFeatures/repeatProtection/step';

const ROOT = path.join(__dirname, '..', '..');
const NODES = path.join(ROOT, 'nodes');
const MEMORY_MODULE = path.join(NODES, 'shared', 'processMemory.ts');
const BOUNDED_MEMORY = path.join(NODES, 'shared', 'expiringMap.ts');
const names = Object.keys(PROCESS_MEMORIES) as MemoryName[];

function sourceFiles(dir: string): string[] {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(full);
		return entry.name.endsWith('.ts') ? [full] : [];
	});
}

/** The expiry as the table says it. */
function expiryInWords(ms: number): string {
	if (ms === Number.POSITIVE_INFINITY) return 'only when pushed out';
	const units: Array<[number, string]> = [
		[86_400_000, 'day'],
		[3_600_000, 'hour'],
		[60_000, 'minute'],
		[1000, 'second'],
	];
	for (const [size, unit] of units) {
		if (ms % size === 0) {
			const count = ms / size;
			if (unit === 'day' && count === 1) return '24 hours';
			return `${count} ${unit}${count === 1 ? '' : 's'}`;
		}
	}
	return `${ms} ms`;
}

/** The rows of CONTRIBUTING's table "What a process remembers", by memory name. */
function tableRows(): Map<string, string[]> {
	const guide = fs.readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8');
	const section = guide.split('### What a process remembers')[1]?.split('\n### ')[0] ?? '';
	const rows = new Map<string, string[]>();
	for (const line of section.split('\n')) {
		const cells = line.split('|').map((cell) => cell.trim());
		const name = /^`(\w+)`$/.exec(cells[1] ?? '')?.[1];
		if (name) rows.set(name, cells.slice(1, -1));
	}
	return rows;
}

describe('what a process remembers', () => {
	it('is declared in one module: twelve named memories, each with a cap, an expiry and what another process does not see', () => {
		expect(names.length).toBe(12);
		for (const name of names) {
			const memory = PROCESS_MEMORIES[name];
			expect(memory.capacity).toBeGreaterThan(0);
			expect(memory.expiresMs).toBeGreaterThan(0);
			expect(memory.holds.length).toBeGreaterThan(20);
			expect(memory.notSeenElsewhere.length).toBeGreaterThan(10);
		}
	});

	it("CONTRIBUTING's table names every declared memory, with its cap, expiry and process, and no other", () => {
		const rows = tableRows();
		expect([...rows.keys()].sort()).toEqual([...names].sort());
		for (const name of names) {
			const [, holds, cap, expiry, keptBy, notSeen] = rows.get(name) ?? [];
			expect({ name, cap, expiry, keptBy }).toEqual({
				name,
				cap: PROCESS_MEMORIES[name].capacity.toLocaleString('en-US'),
				expiry: expect.stringContaining(expiryInWords(PROCESS_MEMORIES[name].expiresMs)),
				keptBy: PROCESS_MEMORIES[name].keptBy,
			});
			expect(holds).toBeTruthy();
			expect(notSeen).toBeTruthy();
		}
	});

	/**
	 * What keeps state across runs in a file of nodes/: a module-level Map, Set or bounded memory, or a
	 * module-level instance of a class (a memory's keeper, such as the call ledger). `findings` lists each
	 * one not built by processMemory(name): the keeper must be given processMemory('…') and keep no Map
	 * or Set of its own.
	 */
	function memoriesNotFromTheirDeclaration(files: Array<{ file: string; text: string }>): string[] {
		const findings: string[] = [];
		const classText = (name: string) =>
			files
				.map(({ text }) => new RegExp(`\\bclass ${name}\\b[^]*?\\n}`).exec(text)?.[0])
				.find(Boolean) ?? '';
		for (const { file, text } of files) {
			text.split('\n').forEach((line, index) => {
				const where = `${file}:${index + 1}`;
				if (/\bnew ExpiringMap\b/.test(line))
					findings.push(`${where} builds a bounded memory itself`);
				// Module level (not indented). A Map or Set built from a literal list is a lookup table, not state.
				if (
					/^(export )?(const|let) \w+(: [^=]+)? = new (Map|Set|WeakMap)\b(<[^(]*>)?\(\s*\)/.test(
						line,
					)
				)
					findings.push(`${where} keeps a ${line.trim()}`);
				const instance = /^(export )?(const|let) \w+(: [^=]+)? = new (\w+)\b/.exec(line);
				if (!instance || ['Map', 'Set', 'WeakMap', 'RegExp'].includes(instance[4])) return;
				if (!/= new \w+\(processMemory(<[^>]*>)?\('\w+'\)(, [^()]+)?\)/.test(line))
					findings.push(`${where} keeps a ${instance[4]} not given processMemory('…')`);
				else if (/=\s*new (Map|Set)\b/.test(classText(instance[4])))
					findings.push(
						`${where}: ${instance[4]} keeps a Map or Set of its own beside the memory it is given`,
					);
			});
		}
		return findings;
	}

	const nodeFiles = () =>
		sourceFiles(NODES)
			.filter((file) => file !== MEMORY_MODULE && file !== BOUNDED_MEMORY)
			.map((file) => ({ file: path.relative(NODES, file), text: fs.readFileSync(file, 'utf8') }));

	it('every memory of nodes/ is built by processMemory(name), from its declaration; no file keeps state of its own', () => {
		const files = nodeFiles();
		expect(memoriesNotFromTheirDeclaration(files)).toEqual([]);
		// The keepers of memories are found (a broken reader would make the rule above pass).
		const keepers = files.flatMap(({ text }) =>
			[
				...text.matchAll(
					/^(?:export )?const \w+ = new (\w+)\(processMemory\('(\w+)'\)(?:, [^()]+)?\)/gm,
				),
			].map((m) => `${m[1]}: ${m[2]}`),
		);
		expect(keepers.sort()).toEqual(
			[
				'CallLedger: callsStartedPerExecution',
				'DeliveryMemory: deliveriesSeen',
				'RecentSecrets: webhookSecretReads',
				'RetryMemory: earlierTries',
				'Slots: handOverSlots',
			].sort(),
		);
	});

	it('the guard fails on a memory that does not come from its declaration', () => {
		const files = nodeFiles();
		const ledger = files.find(({ file }) => file.endsWith('guardrails/ledger.ts'))!;
		const planted = (text: string) =>
			files.map((entry) => (entry === ledger ? { ...entry, text } : entry));
		// A keeper that goes back to a Map of its own (the call ledger before it read its declaration).
		const ownMap = ledger.text.replace(
			'export class CallLedger {',
			'export class CallLedger {\n\tprivate readonly counts = new Map<string, number>();',
		);
		expect(memoriesNotFromTheirDeclaration(planted(ownMap))).toEqual([
			expect.stringContaining('CallLedger keeps a Map or Set of its own'),
		]);
		// A module-level Map, a bounded memory built by hand, a keeper given something else.
		expect(
			memoriesNotFromTheirDeclaration(
				planted(`${ledger.text}\nconst seen = new Map<string, number>();\n`),
			),
		).toHaveLength(1);
		expect(
			memoriesNotFromTheirDeclaration(
				planted(`${ledger.text}\nconst seen = new ExpiringMap<number>(1000, 10);\n`),
			),
		).toHaveLength(2);
		const handMade = ledger.text.replace(
			"new CallLedger(processMemory('callsStartedPerExecution'))",
			'new CallLedger(new ExpiringMap(60_000, 1000))',
		);
		expect(memoriesNotFromTheirDeclaration(planted(handMade))).toHaveLength(2);
	});

	it('the record of Repeat Protection holds a key per part of the window for every request it keeps', () => {
		expect(PROCESS_MEMORIES.sentRequestKeys.capacity).toBe(MAX_KEPT_REQUESTS * 4);
	});

	it('processMemory() gives the one memory of the process by that name', () => {
		expect(processMemory('deliveriesSeen')).toBe(processMemory('deliveriesSeen'));
		expect(processMemory('deliveriesSeen')).not.toBe(processMemory('waitsHandedOver'));
	});

	it('a bounded memory forgets an entry at its expiry and the oldest entry beyond its cap', () => {
		let now = 0;
		const { expiresMs, capacity: cap } = PROCESS_MEMORIES.webhookSecretReads;
		const secrets = new ExpiringMap<string>(expiresMs, cap, () => now);
		secrets.set('a', '1');
		now = PROCESS_MEMORIES.webhookSecretReads.expiresMs - 1;
		expect(secrets.get('a')).toBe('1');
		now += 1;
		expect(secrets.get('a')).toBeUndefined();

		const capacity = PROCESS_MEMORIES.webhookSecretReads.capacity;
		for (let i = 0; i <= capacity; i++) secrets.set(`key ${i}`, String(i));
		expect(secrets.size).toBe(capacity);
		expect(secrets.get('key 0')).toBeUndefined();
		expect(secrets.get(`key ${capacity}`)).toBe(String(capacity));
	});

	it('a memory without expiry keeps an entry until its cap pushes it out', () => {
		let now = 0;
		const { expiresMs, capacity } = PROCESS_MEMORIES.callsStartedPerExecution;
		const ledger = new ExpiringMap<number>(expiresMs, capacity, () => now);
		ledger.set('execution', 3);
		now = 10 * 365 * 86_400_000;
		expect(ledger.get('execution')).toBe(3);
	});
});
