/**
 * The benchmark's CPU-profile analyzer (test/bench/lib/profile.js) on a small hand-made V8 profile
 * (fixtures/delivery.cpuprofile: one trigger delivery's frames, sample durations from timeDeltas).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const fs = require('fs');
const path = require('path');
const { analyzeProfile, renderProfile, shortFile } = require('./lib/profile');

const FIXTURE = path.join(__dirname, 'fixtures', 'delivery.cpuprofile');
const load = () => JSON.parse(fs.readFileSync(FIXTURE, 'utf8'));
type Category = { id: string; ms: number; ofBusy: number | null; ofAll: number };
const byId = (a: { categories: Category[] }): Record<string, Category> =>
	Object.fromEntries(a.categories.map((c) => [c.id, c]));

describe('CPU profile analyzer', () => {
	test('weights each sample by its duration and counts idle apart from busy time', () => {
		const a = analyzeProfile(load());
		expect(a.samples).toBe(12);
		expect(a.totalMs).toBeCloseTo(14, 6);
		expect(a.busyMs).toBeCloseTo(10, 6);
		expect(byId(a).idle).toMatchObject({ ms: 4, ofBusy: null });
		expect(byId(a).idle.ofAll).toBeCloseTo(4 / 14, 6);
	});

	test('puts a sample in every category on its stack, by function name and script URL', () => {
		const c = byId(analyzeProfile(load()));
		// acquire (1 ms) and IsolatedVmBridge under it (2 ms)
		expect(c['isolate-create'].ms).toBeCloseTo(3, 6);
		expect(c['isolate-create'].ofBusy).toBeCloseTo(0.3, 6);
		// getCredentials under the trigger's webhook(): both categories
		expect(c.credential.ms).toBeCloseTo(1, 6);
		expect(c['package-trigger'].ms).toBeCloseTo(2, 6);
		expect(c['package-action'].ms).toBe(0);
		expect(c.gc.ms).toBeCloseTo(1, 6);
		expect(c.program.ms).toBeCloseTo(1, 6);
		expect(c['isolate-dispose'].ms).toBe(0);
	});

	test('a busy sample no category matches is "other", also when only the function name would match', () => {
		const c = byId(analyzeProfile(load()));
		// n8n's handleRequest, lodash, and an `acquire` of another library
		expect(c.other.ms).toBeCloseTo(3, 6);
		expect(c.other.ofBusy).toBeCloseTo(0.3, 6);
	});

	test('lists the functions with the most self time, with their file from node_modules on', () => {
		const a = analyzeProfile(load(), { top: 2 });
		expect(a.topSelf).toHaveLength(2);
		expect(a.topSelf[0]).toMatchObject({
			functionName: 'IsolatedVmBridge',
			file: '@n8n/expression-runtime/dist/cjs/bridge/isolated-vm-bridge.js',
			line: 61,
		});
		expect(a.topSelf[0].ms).toBeCloseTo(2, 6);
		expect(a.topSelf.map((f: { functionName: string }) => f.functionName)).not.toContain('(idle)');
		expect(shortFile('node:internal/modules/cjs/loader')).toBe('node:internal/modules/cjs/loader');
	});

	test('renders a markdown table with a per-delivery column', () => {
		const text = renderProfile(analyzeProfile(load()), {
			title: 'fixture',
			perUnit: { count: 2, name: 'event' },
		});
		expect(text).toContain('| category | ms | % of busy | % of all | ms per event |');
		expect(text).toMatch(
			/\| creating expression isolates [^\n]*\| 3 \| 30\.0% \| 21\.4% \| 1\.50 \|/,
		);
	});

	test('refuses what is not a CPU profile', () => {
		const broken = load();
		broken.timeDeltas.pop();
		expect(() => analyzeProfile(broken)).toThrow(/12 samples but 11 timeDeltas/);
		expect(() => analyzeProfile({ nodes: [] })).toThrow(/not a V8 CPU profile/);
	});
});
