/**
 * What a process remembers: every memory is declared in nodes/shared/processMemory.ts (cap and
 * expiry), CONTRIBUTING.md's table names each with the same cap and expiry, no other file of
 * nodes/ keeps per-process state of its own, and the bounded memory keeps its cap and expiry.
 */
import * as fs from 'fs';
import * as path from 'path';

import { boundedMemory, type MemoryName, PROCESS_MEMORIES, processMemory } from '../../nodes/shared/processMemory';
import { MAX_KEPT_REQUESTS } from '../../nodes/CisAutoCall/actions/runFeatures/repeatProtection/step';

const ROOT = path.join(__dirname, '..', '..');
const NODES = path.join(ROOT, 'nodes');
const MEMORY_MODULE = path.join(NODES, 'shared', 'processMemory.ts');
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
	it('is declared in one module: eight named memories, each with a cap, an expiry and what another process does not see', () => {
		expect(names.length).toBe(8);
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

	it('no other file of nodes/ keeps per-process state of its own: module-level memories take their declaration from the module', () => {
		const ownState: string[] = [];
		const undeclared: string[] = [];
		for (const file of sourceFiles(NODES).filter((file) => file !== MEMORY_MODULE)) {
			const relative = path.relative(NODES, file);
			const lines = fs.readFileSync(file, 'utf8').split('\n');
			lines.forEach((line, index) => {
				// Module level: not indented. An empty Map, Set or ExpiringMap is state; one built from a literal is a lookup table.
				if (/^(export )?(const|let) \w+(: [^=]+)? = new (Map|Set|ExpiringMap)\b(<[^(]*>)?\(\s*\)/.test(line)) ownState.push(`${relative}:${index + 1}`);
				if (/^(export )?(const|let) \w+(: [^=]+)? = new (ExpiringMap)\b/.test(line)) ownState.push(`${relative}:${index + 1}`);
			});
			// A module-level instance of a memory class (RetryMemory, CallLedger, DeliveryMemory, RecentSecrets, …) or a
			// processMemory() must be declared: its file, or the file of its class, reads the declarations.
			const instances = lines.filter((line) => /^(export )?const \w+ = (new \w*(Memory|Ledger|Secrets)\(|processMemory)/.test(line));
			for (const line of instances) {
				const className = /new (\w+)\(/.exec(line)?.[1];
				const declaringFiles = [file, ...(className ? sourceFiles(NODES).filter((other) => fs.readFileSync(other, 'utf8').includes(`class ${className} `)) : [])];
				if (!declaringFiles.some((other) => /PROCESS_MEMORIES|processMemory[<(]|boundedMemory[<(]/.test(fs.readFileSync(other, 'utf8')))) undeclared.push(`${relative}: ${line}`);
			}
		}
		expect(ownState).toEqual([]);
		expect(undeclared).toEqual([]);
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
		const secrets = boundedMemory<string>('webhookSecretReads', () => now);
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
		const ledger = boundedMemory<number>('callsStartedPerExecution', () => now);
		ledger.set('execution', 3);
		now = 10 * 365 * 86_400_000;
		expect(ledger.get('execution')).toBe(3);
	});
});
