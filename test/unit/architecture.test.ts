/**
 * The import graph of nodes/ (read from the sources): no circle, no arrow that climbs from a
 * lower layer to a higher one, the webhook secret checked only in secret/ (never through the
 * panel layout), a wait's start and resume apart, the trigger's rooms (registration/, delivery/,
 * handOver/, secret/) each entered through its index.ts, and the trigger's class delegating. CONTRIBUTING.md describes these layers.
 */
import * as fs from 'fs';
import * as path from 'path';

const NODES = path.join(__dirname, '..', '..', 'nodes');

function sourceFiles(dir: string): string[] {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(full);
		return /\.(ts|json)$/.test(entry.name) ? [full] : [];
	});
}

function resolveImport(from: string, specifier: string): string | undefined {
	if (!specifier.startsWith('.')) return undefined;
	const base = path.resolve(path.dirname(from), specifier);
	for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')])
		if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
	throw new Error(`${path.relative(NODES, from)} imports ${specifier}, which does not exist`);
}

/** file (relative to nodes/) → the files of nodes/ it imports (relative to nodes/). */
function importGraph(): Map<string, string[]> {
	const graph = new Map<string, string[]>();
	for (const file of sourceFiles(NODES)) {
		const text = file.endsWith('.ts') ? fs.readFileSync(file, 'utf8') : '';
		const specifiers = [
			...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/g),
		].map((match) => match[1]);
		const targets = specifiers
			.map((specifier) => resolveImport(file, specifier))
			.filter((target): target is string => !!target);
		graph.set(path.relative(NODES, file), [
			...new Set(targets.map((target) => path.relative(NODES, target))),
		]);
	}
	return graph;
}

const graph = importGraph();
const arrows = [...graph].flatMap(([from, targets]) => targets.map((to) => ({ from, to })));
const arrowsFrom = (matches: (file: string) => boolean) =>
	arrows.filter(({ from }) => matches(from));
const show = (list: { from: string; to: string }[]) =>
	list.map(({ from, to }) => `${from} → ${to}`);
/** The run features: one folder per feature, and the list (index.ts) beside them. */
const FEATURES = 'CisAutoCall/actions/runFeatures/';
/** The trigger's half of "… and Wait for Result". */
const HAND_OVER = 'CisAutoCallTrigger/handOver/';
/** The trigger at publishing time. */
const REGISTRATION = 'CisAutoCallTrigger/registration/';
/** The trigger per request, and the webhook secret within it. */
const DELIVERY = 'CisAutoCallTrigger/delivery/';
const SECRET = 'CisAutoCallTrigger/secret/';

describe('the import graph of nodes/', () => {
	it('is read from the sources (a broken reader would make every rule below pass)', () => {
		expect(graph.size).toBeGreaterThan(60);
		expect(graph.get('CisAutoCall/actions/router.ts')).toContain(
			'CisAutoCall/actions/pipeline/index.ts',
		);
	});

	it('has no circle', () => {
		const circles: string[] = [];
		const state = new Map<string, 'open' | 'done'>();
		const visit = (file: string, trail: string[]) => {
			if (state.get(file) === 'done') return;
			if (state.get(file) === 'open') {
				circles.push([...trail.slice(trail.indexOf(file)), file].join(' → '));
				return;
			}
			state.set(file, 'open');
			for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
			state.set(file, 'done');
		};
		for (const file of graph.keys()) visit(file, []);
		expect(circles).toEqual([]);
	});

	it('shared/ and credentials use nothing of a node', () => {
		expect(
			show(
				arrowsFrom((file) => file.startsWith('shared/')).filter(
					({ to }) => !to.startsWith('shared/'),
				),
			),
		).toEqual([]);
	});

	it('the two nodes use nothing of each other', () => {
		const crossing = arrows.filter(
			({ from, to }) =>
				(from.startsWith('CisAutoCall/') && to.startsWith('CisAutoCallTrigger/')) ||
				(from.startsWith('CisAutoCallTrigger/') && to.startsWith('CisAutoCall/')),
		);
		expect(show(crossing)).toEqual([]);
	});

	it('only the router uses the pipeline; the operation contract and the operations use nothing of it', () => {
		const intoPipeline = arrows.filter(
			({ from, to }) =>
				to.startsWith('CisAutoCall/actions/pipeline/') &&
				!from.startsWith('CisAutoCall/actions/pipeline/'),
		);
		expect([...new Set(intoPipeline.map(({ from }) => from))]).toEqual([
			'CisAutoCall/actions/router.ts',
		]);
	});

	it('helpers, descriptions and methods use nothing of actions/', () => {
		const lower = (file: string) => /^CisAutoCall\/(helpers|descriptions|methods)\//.test(file);
		expect(
			show(arrowsFrom(lower).filter(({ to }) => to.startsWith('CisAutoCall/actions/'))),
		).toEqual([]);
	});

	it('the run features use nothing of actions/ but themselves and the operation contract', () => {
		const fromFeatures = arrowsFrom((file) => file.startsWith(FEATURES));
		expect(fromFeatures.length).toBeGreaterThan(0);
		// The AI Agent's options and its default cap come from the agent's folder; whether a run is an agent's comes from the run.
		const contract = [
			'CisAutoCall/actions/operation.ts',
			'CisAutoCall/actions/itemErrors.ts',
			'CisAutoCall/actions/agent/index.ts',
		];
		const climbing = fromFeatures.filter(
			({ to }) =>
				to.startsWith('CisAutoCall/actions/') && !to.startsWith(FEATURES) && !contract.includes(to),
		);
		expect(show(climbing)).toEqual([]);
	});

	it('each run feature keeps to its folder: no feature uses another, the outside uses a feature only through its index, the list names every feature', () => {
		const folderOf = (file: string) =>
			file.startsWith(FEATURES) ? /^[^/]+\//.exec(file.slice(FEATURES.length))?.[0] : undefined;
		const folders = [
			...new Set([...graph.keys()].map(folderOf).filter((folder): folder is string => !!folder)),
		].sort();
		expect(folders).toEqual(
			expect.arrayContaining(['dryRun/', 'guardrails/', 'repeatProtection/']),
		);
		const intoFolders = arrows.filter(
			({ from, to }) => folderOf(to) && folderOf(from) !== folderOf(to),
		);
		const notThroughIndex = intoFolders.filter(
			({ to }) => to !== `${FEATURES}${folderOf(to)}index.ts`,
		);
		expect(show(notThroughIndex)).toEqual([]);
		expect(show(intoFolders.filter(({ from }) => folderOf(from)))).toEqual([]);
		const list = graph.get(`${FEATURES}index.ts`) ?? [];
		expect(folders.filter((folder) => !list.includes(`${FEATURES}${folder}index.ts`))).toEqual([]);
	});

	it('AI-agent mode keeps to actions/agent/: it uses only itself, the item errors and shared/; the rest of the node uses it through its index', () => {
		const AGENT = 'CisAutoCall/actions/agent/';
		const fromAgent = arrowsFrom((file) => file.startsWith(AGENT));
		expect(fromAgent.length).toBeGreaterThan(0);
		const outside = fromAgent.filter(
			({ to }) =>
				!to.startsWith(AGENT) &&
				to !== 'CisAutoCall/actions/itemErrors.ts' &&
				!to.startsWith('shared/'),
		);
		expect(show(outside)).toEqual([]);
		const intoAgent = arrows.filter(
			({ from, to }) => to.startsWith(AGENT) && !from.startsWith(AGENT),
		);
		expect(intoAgent.length).toBeGreaterThan(0);
		expect(show(intoAgent.filter(({ to }) => to !== `${AGENT}index.ts`))).toEqual([]);
		// Whether a run is an agent's is decided once, in detection.ts, and used by the router and the resume only;
		// the run features know it from the run (RunSource.asAgentTool).
		const deciders = [...graph.keys()].filter(
			(file) =>
				file.endsWith('.ts') &&
				/agentModeOf\(|isToolExecution|type\.endsWith\('Tool'\)/.test(
					fs.readFileSync(path.join(NODES, file), 'utf8'),
				),
		);
		expect(deciders.sort()).toEqual([
			'CisAutoCall/actions/agent/detection.ts',
			'CisAutoCall/actions/router.ts',
			'CisAutoCall/actions/waiting/resume.ts',
		]);
	});

	it('an operation is declared through defineOperation, which alone builds the Options collection', () => {
		const operationFiles = [...graph.keys()].filter((file) =>
			/^CisAutoCall\/actions\/[^/]+\/[^/]+\.operation\.ts$/.test(file),
		);
		expect(operationFiles.length).toBeGreaterThan(10);
		const texts = operationFiles.map((file) => ({
			file,
			text: fs.readFileSync(path.join(NODES, file), 'utf8'),
		}));
		expect(
			texts.filter(({ text }) => /runOptionsField\(/.test(text)).map(({ file }) => file),
		).toEqual([]);
		const declared = (file: string) =>
			(graph.get(file) ?? []).includes('CisAutoCall/actions/defineOperation.ts');
		const reachesDefine = (file: string, seen = new Set<string>()): boolean =>
			declared(file) ||
			(graph.get(file) ?? [])
				.filter((to) => to.startsWith('CisAutoCall/actions/') && !seen.has(to) && seen.add(to))
				.some(
					(to) =>
						/\.operation\.ts$|depersonalizeOperation\.ts$/.test(to) && reachesDefine(to, seen),
				);
		expect(operationFiles.filter((file) => !reachesDefine(file))).toEqual([]);
	});

	it('no module of actions/ re-exports a whole module (export *): each name it passes on is named', () => {
		const wholesale = [...graph.keys()]
			.filter((file) => file.startsWith('CisAutoCall/actions/') && file.endsWith('.ts'))
			.filter((file) => /^\s*export\s+\*/m.test(fs.readFileSync(path.join(NODES, file), 'utf8')));
		expect(wholesale).toEqual([]);
	});

	it('the webhook secret is checked only in secret/, which uses only itself, the stored registration, the process memory and the parameter reader', () => {
		const fromSecret = arrowsFrom((file) => file.startsWith(SECRET));
		expect(fromSecret.length).toBeGreaterThan(0);
		const allowed = [
			'CisAutoCallTrigger/staticData.ts',
			'shared/processMemory.ts',
			'shared/expiringMap.ts',
			'shared/parameterReaders.ts',
		];
		const outside = fromSecret.filter(({ to }) => !to.startsWith(SECRET) && !allowed.includes(to));
		expect(show(outside)).toEqual([]);
		// webhook() asks the secret folder through verify.ts; the panel layout never touches the secret.
		expect(graph.get(`${DELIVERY}verify.ts`)).toContain(`${SECRET}index.ts`);
		const layoutSide = [
			'CisAutoCallTrigger/newTaskPanel.ts',
			'CisAutoCallTrigger/triggerParameters.ts',
			'shared/callTaskPanel.ts',
		];
		for (const file of layoutSide)
			expect((graph.get(file) ?? []).filter((to) => to.includes('secret'))).toEqual([]);
		// The rest of the trigger (registration/ included) asks the secret through its index.ts alone.
		const past = arrows.filter(
			({ from, to }) =>
				to.startsWith(SECRET) && !from.startsWith(SECRET) && to !== `${SECRET}index.ts`,
		);
		expect(show(past)).toEqual([]);
	});

	it("a wait's start and its resume use nothing of each other; only the stored wait reads n8n-core's internals, in one file", () => {
		const WAITING = 'CisAutoCall/actions/waiting/';
		expect(graph.get(`${WAITING}start.ts`)).toContain(`${WAITING}storedWait.ts`);
		expect(graph.get(`${WAITING}resume.ts`)).toContain(`${WAITING}storedWait.ts`);
		const between = arrows.filter(
			({ from, to }) =>
				(from === `${WAITING}start.ts` && to === `${WAITING}resume.ts`) ||
				(from === `${WAITING}resume.ts` && to === `${WAITING}start.ts`),
		);
		expect(show(between)).toEqual([]);
		// n8n-core internals are read in one file: for the resume (storedWait) and for an AI Agent's waiting tool (start).
		expect(show(arrows.filter(({ to }) => to === `${WAITING}n8nInternals.ts`)).sort()).toEqual(
			[
				`${WAITING}storedWait.ts → ${WAITING}n8nInternals.ts`,
				`${WAITING}start.ts → ${WAITING}n8nInternals.ts`,
			].sort(),
		);
		// The node class reaches the wait only through its two ends.
		const fromOutside = arrows.filter(
			({ from, to }) => to.startsWith(WAITING) && !from.startsWith(WAITING),
		);
		expect(show(fromOutside).sort()).toEqual(
			[
				'CisAutoCall/CisAutoCall.node.ts → CisAutoCall/actions/waiting/resume.ts',
				'CisAutoCall/actions/router.ts → CisAutoCall/actions/waiting/start.ts',
			].sort(),
		);
		const readers = [...graph.keys()].filter(
			(file) =>
				file.endsWith('.ts') &&
				fs.readFileSync(path.join(NODES, file), 'utf8').includes('runExecutionData'),
		);
		expect(readers).toEqual([`${WAITING}n8nInternals.ts`]);
	});

	it("the trigger's class delegates: publishing to registration/, webhook() to delivery/, each through its index.ts", () => {
		const nodeClass = graph.get('CisAutoCallTrigger/CisAutoCallTrigger.node.ts') ?? [];
		expect(nodeClass).toContain(`${REGISTRATION}index.ts`);
		expect(nodeClass).toContain(`${DELIVERY}index.ts`);
		for (const step of ['verify.ts', 'body.ts'])
			expect(nodeClass).not.toContain(`${DELIVERY}${step}`);
		// The class asks the hand-over only for the warning at publishing; deliveries reach it through delivery/.
		expect(
			fs.readFileSync(path.join(NODES, 'CisAutoCallTrigger/CisAutoCallTrigger.node.ts'), 'utf8'),
		).toMatch(/import \{ warnIfHandOverBlocked \} from '\.\/handOver';/);
	});

	it("the trigger's publishing keeps to registration/: one way in (index.ts), and of delivery/ and secret/ it uses only their doors", () => {
		const fromRegistration = arrowsFrom((file) => file.startsWith(REGISTRATION));
		expect(fromRegistration.length).toBeGreaterThan(5);
		const allowed = [
			'CisAutoCallTrigger/triggerParameters.ts',
			'CisAutoCallTrigger/staticData.ts',
			`${DELIVERY}index.ts`,
			`${SECRET}index.ts`,
		];
		const outside = fromRegistration.filter(
			({ to }) =>
				!to.startsWith(REGISTRATION) && !to.startsWith('shared/') && !allowed.includes(to),
		);
		expect(show(outside)).toEqual([]);
		const intoRegistration = arrows.filter(
			({ from, to }) => to.startsWith(REGISTRATION) && !from.startsWith(REGISTRATION),
		);
		expect(show(intoRegistration.filter(({ to }) => to !== `${REGISTRATION}index.ts`))).toEqual([]);
		expect(intoRegistration.length).toBeGreaterThan(0);
	});

	it('a delivery keeps to delivery/: one way in (index.ts), and nothing of the publishing', () => {
		const fromDelivery = arrowsFrom((file) => file.startsWith(DELIVERY));
		expect(fromDelivery.length).toBeGreaterThan(5);
		const allowed = [
			'CisAutoCallTrigger/triggerParameters.ts',
			'CisAutoCallTrigger/staticData.ts',
			`${HAND_OVER}index.ts`,
			`${SECRET}index.ts`,
		];
		const outside = fromDelivery.filter(
			({ to }) => !to.startsWith(DELIVERY) && !to.startsWith('shared/') && !allowed.includes(to),
		);
		expect(show(outside)).toEqual([]);
		const doors = [`${DELIVERY}index.ts`];
		const intoDelivery = arrows.filter(
			({ from, to }) => to.startsWith(DELIVERY) && !from.startsWith(DELIVERY),
		);
		expect(show(intoDelivery.filter(({ to }) => !doors.includes(to)))).toEqual([]);
		expect(intoDelivery.length).toBeGreaterThan(0);
	});

	it('Callback Data is normalised in one place: verify.ts, once, and its verdict carries it', () => {
		const callers = [...graph.keys()]
			.filter((file) => file.endsWith('.ts'))
			.flatMap((file) =>
				[
					...fs.readFileSync(path.join(NODES, file), 'utf8').matchAll(/\bnormalizeCallbackData\(/g),
				].map(() => file),
			);
		// The definition and the one call.
		expect(callers).toEqual([`${DELIVERY}verify.ts`, `${DELIVERY}verify.ts`]);
	});

	it("the trigger's hand-over keeps to handOver/: it uses only itself, shared/, the log's words and the secret's index; the rest uses it through its index", () => {
		const fromHandOver = arrowsFrom((file) => file.startsWith(HAND_OVER));
		expect(fromHandOver.length).toBeGreaterThan(5);
		const allowed = ['CisAutoCallTrigger/triggerParameters.ts', `${SECRET}index.ts`];
		const outside = fromHandOver.filter(
			({ to }) => !to.startsWith(HAND_OVER) && !to.startsWith('shared/') && !allowed.includes(to),
		);
		expect(show(outside)).toEqual([]);
		const intoHandOver = arrows.filter(
			({ from, to }) => to.startsWith(HAND_OVER) && !from.startsWith(HAND_OVER),
		);
		expect(show(intoHandOver.filter(({ to }) => to !== `${HAND_OVER}index.ts`))).toEqual([]);
		expect([...new Set(intoHandOver.map(({ from }) => from))].sort()).toEqual(
			[
				'CisAutoCallTrigger/CisAutoCallTrigger.node.ts',
				`${DELIVERY}index.ts`,
				`${DELIVERY}verify.ts`,
			].sort(),
		);
		// The wait's state and its memory are the hand-over's alone.
		const memoryUsers = [...graph.keys()].filter(
			(file) =>
				file.endsWith('.ts') &&
				fs.readFileSync(path.join(NODES, file), 'utf8').includes("'waitsHandedOver'"),
		);
		expect(memoryUsers.filter((file) => file !== 'shared/processMemory.ts')).toEqual([
			`${HAND_OVER}waitState.ts`,
		]);
	});

	it('phones keep to shared/phones/: it uses only itself and the input errors; the rest uses it through its index, and only it reads a phone', () => {
		const PHONES = 'shared/phones/';
		const fromPhones = arrowsFrom((file) => file.startsWith(PHONES));
		expect(fromPhones.length).toBeGreaterThan(5);
		expect(
			show(fromPhones.filter(({ to }) => !to.startsWith(PHONES) && to !== 'shared/validation.ts')),
		).toEqual([]);
		const intoPhones = arrows.filter(
			({ from, to }) => to.startsWith(PHONES) && !from.startsWith(PHONES),
		);
		expect(intoPhones.length).toBeGreaterThan(3);
		expect(show(intoPhones.filter(({ to }) => to !== `${PHONES}index.ts`))).toEqual([]);
		// The country table is read in one file; a CRM's shape is told in shapes/ alone.
		expect(show(arrows.filter(({ to }) => to === `${PHONES}countryCodes.json`))).toEqual([
			`${PHONES}countries.ts → ${PHONES}countryCodes.json`,
		]);
		const shapeKeys = [...graph.keys()].filter(
			(file) =>
				file.endsWith('.ts') &&
				!file.startsWith(`${PHONES}shapes/`) &&
				/\.custom_fields_values\b|\.VALUE\b|'VALUE' in/.test(
					fs.readFileSync(path.join(NODES, file), 'utf8'),
				),
		);
		expect(shapeKeys).toEqual([]);
	});

	it('the process memory uses only the bounded memory', () => {
		expect(graph.get('shared/processMemory.ts')).toEqual(['shared/expiringMap.ts']);
	});
});
