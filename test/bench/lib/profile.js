'use strict';
/**
 * Where n8n's CPU time goes, read from a V8 CPU profile (`node --cpu-prof`, a .cpuprofile file):
 * the share of time per category (inclusive: a sample counts for every category one of its stack
 * frames matches, so the shares overlap and do not add up to 100%), and the functions with the most
 * self time. Categories are matched by function name and script URL only; a busy sample that
 * matches none counts as "other".
 *
 *   const { analyzeProfile, renderProfile } = require('./profile');
 *   process.stdout.write(renderProfile(analyzeProfile(JSON.parse(fs.readFileSync(file, 'utf8')))));
 *
 * Plain Node (CommonJS, built-ins only). CLI: test/bench/profile.js.
 */

/** The package's compiled code, wherever n8n installed it. */
const PACKAGE = /\/n8n-nodes-cis-autocall\/dist\//;
const EXPRESSION_RUNTIME = /@n8n\/expression-runtime\//;
const N8N_CODE = /\/(n8n|n8n-core|n8n-workflow|@n8n\/[^/]+)\/dist\//;

/**
 * The categories, in the order of the table. `frame(name, url)` says whether a stack frame belongs
 * to the category; `leaf` categories look at the sample's own (innermost) frame only.
 * @type {{ id: string, label: string, frame?: (name: string, url: string) => boolean, leaf?: string }[]}
 */
const CATEGORIES = [
	{
		id: 'isolate-create',
		label:
			'creating expression isolates (`ExpressionEvaluator.acquire`, the pool refilling: `IsolatedVmBridge`, `initialize`, vendor libraries)',
		frame: (name, url) =>
			EXPRESSION_RUNTIME.test(url) &&
			/^(acquire|acquireIsolate|IsolatedVmBridge|initialize|initializeSync|loadVendorLibraries|injectErrorHandler|createBridge|replenish)$/.test(
				name,
			),
	},
	{
		id: 'isolate-dispose',
		label: 'disposing them (`release`, `dispose`)',
		frame: (name, url) =>
			EXPRESSION_RUNTIME.test(url) && /^(release|releaseIsolate|dispose)$/.test(name),
	},
	{
		id: 'expression-evaluate',
		label: 'evaluating expressions in the isolate (`execute`, `evaluate`)',
		frame: (name, url) =>
			EXPRESSION_RUNTIME.test(url) && /^(execute|evaluate|evaluateExpression)$/.test(name),
	},
	{
		id: 'sqlite',
		label: 'SQLite (TypeORM, sqlite3)',
		frame: (name, url) => /\/(sqlite3|typeorm|@n8n\/typeorm)\//.test(url),
	},
	{
		id: 'credential',
		label: 'reading a credential (`getCredentials`, `getDecrypted`, `applyDefaultsAndOverwrites`)',
		frame: (name, url) =>
			N8N_CODE.test(url) &&
			/^(getCredentials|getDecrypted|applyDefaultsAndOverwrites|getCredentialsProperties)$/.test(
				name,
			),
	},
	{
		id: 'workflow',
		label: "n8n's `new Workflow(...)` and `getNodeParameters`",
		frame: (name, url) =>
			/\/n8n-workflow\/dist\//.test(url) && /^(Workflow|getNodeParameters)$/.test(name),
	},
	{
		id: 'package-trigger',
		label: "the package's trigger: `webhook()` and its code",
		frame: (name, url) => PACKAGE.test(url) && /\/nodes\/CisAutoCallTrigger\//.test(url),
	},
	{
		id: 'package-action',
		label: "the package's action node: `execute()` and its code",
		frame: (name, url) => PACKAGE.test(url) && /\/nodes\/CisAutoCall\//.test(url),
	},
	{
		id: 'package-other',
		label: "the package's shared code and credentials",
		frame: (name, url) => PACKAGE.test(url) && !/\/nodes\/CisAutoCall(Trigger)?\//.test(url),
	},
	{
		id: 'webhook-node',
		label: "n8n's Webhook node",
		frame: (name, url) => /\/n8n-nodes-base\/dist\/nodes\/Webhook\//.test(url),
	},
	{
		id: 'http-request-node',
		label: "n8n's HTTP Request node",
		frame: (name, url) => /\/n8n-nodes-base\/dist\/nodes\/HttpRequest\//.test(url),
	},
	{
		id: 'wait-node',
		label: "n8n's Wait node",
		frame: (name, url) => /\/n8n-nodes-base\/dist\/nodes\/Wait\//.test(url),
	},
	{
		id: 'http',
		label: "HTTP in and out (Node's http server and client, Express, body-parser, raw-body)",
		frame: (name, url) =>
			/^node:_http_|^node:http$|\/(express|body-parser|raw-body|router)\//.test(url),
	},
	{
		id: 'loading',
		label: 'loading and compiling modules (mostly start-up)',
		frame: (name, url) => /^node:internal\/modules\//.test(url),
	},
	{ id: 'gc', label: '(garbage collector)', leaf: '(garbage collector)' },
	{ id: 'program', label: '(program): V8 and native code outside JavaScript', leaf: '(program)' },
	{ id: 'idle', label: '(idle)', leaf: '(idle)' },
];

/**
 * Reads a V8 CPU profile ({ nodes, startTime, endTime, samples, timeDeltas }).
 * A sample lasts until the next one (the last until endTime), in microseconds.
 * @param {{ nodes: any[], startTime: number, endTime: number, samples: number[], timeDeltas: number[] }} profile
 * @param {{ top?: number }} [options]
 */
function analyzeProfile(profile, { top = 15 } = {}) {
	if (
		!profile ||
		!Array.isArray(profile.nodes) ||
		!Array.isArray(profile.samples) ||
		!Array.isArray(profile.timeDeltas)
	) {
		throw new Error('not a V8 CPU profile: nodes, samples and timeDeltas expected');
	}
	if (profile.samples.length !== profile.timeDeltas.length) {
		throw new Error(
			`not a V8 CPU profile: ${profile.samples.length} samples but ${profile.timeDeltas.length} timeDeltas`,
		);
	}
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const parentOf = new Map();
	for (const n of profile.nodes) for (const child of n.children || []) parentOf.set(child, n.id);

	// the categories of each node's whole stack (its own frame and every caller's), as a Set of ids
	const stackCategories = new Map();
	const categoriesOf = (id) => {
		if (stackCategories.has(id)) return stackCategories.get(id);
		const node = byId.get(id);
		if (!node) throw new Error(`sample refers to node ${id}, which the profile does not have`);
		const parent = parentOf.get(id);
		const set = new Set(parent === undefined ? [] : categoriesOf(parent));
		const { functionName = '', url = '' } = node.callFrame || {};
		for (const c of CATEGORIES) if (c.frame && c.frame(functionName, url)) set.add(c.id);
		stackCategories.set(id, set);
		return set;
	};

	const timestamps = [];
	let t = profile.startTime;
	for (const d of profile.timeDeltas) timestamps.push((t += d));
	const durations = timestamps.map((ts, i) =>
		Math.max(0, (i + 1 < timestamps.length ? timestamps[i + 1] : profile.endTime) - ts),
	);

	const perCategory = new Map(CATEGORIES.map((c) => [c.id, 0]));
	perCategory.set('other', 0);
	const selfTime = new Map();
	let total = 0;
	let idle = 0;
	profile.samples.forEach((id, i) => {
		const us = durations[i];
		total += us;
		const node = byId.get(id);
		const frame = (node && node.callFrame) || {};
		const leaf = CATEGORIES.find((c) => c.leaf && c.leaf === frame.functionName);
		if (leaf) {
			perCategory.set(leaf.id, perCategory.get(leaf.id) + us);
			if (leaf.id === 'idle') {
				idle += us;
				return;
			}
		}
		const cats = categoriesOf(id);
		for (const c of cats) perCategory.set(c, perCategory.get(c) + us);
		if (!leaf && cats.size === 0) perCategory.set('other', perCategory.get('other') + us);
		const key = `${frame.functionName || '(anonymous)'}\u0000${frame.url || ''}\u0000${frame.lineNumber ?? -1}`;
		selfTime.set(key, (selfTime.get(key) || 0) + us);
	});

	const busy = total - idle;
	const share = (us, of) => (of > 0 ? us / of : 0);
	const categories = [
		...CATEGORIES,
		{ id: 'other', label: 'other (busy, no category above on the stack)' },
	].map((c) => {
		const us = perCategory.get(c.id);
		return {
			id: c.id,
			label: c.label,
			ms: us / 1000,
			ofAll: share(us, total),
			ofBusy: c.id === 'idle' ? null : share(us, busy),
		};
	});
	const topSelf = [...selfTime.entries()]
		.sort((a, b) => b[1] - a[1])
		.slice(0, top)
		.map(([key, us]) => {
			const [name, url, line] = key.split('\u0000');
			return {
				functionName: name,
				file: shortFile(url),
				line: Number(line) >= 0 ? Number(line) + 1 : null,
				ms: us / 1000,
				ofBusy: share(us, busy),
			};
		});
	return {
		samples: profile.samples.length,
		totalMs: total / 1000,
		busyMs: busy / 1000,
		categories,
		topSelf,
	};
}

/** A script URL without the machine's folders: from the last node_modules/ on, or node:… as it is. */
function shortFile(url) {
	if (!url) return '';
	const at = url.lastIndexOf('node_modules/');
	if (at >= 0) return url.slice(at + 'node_modules/'.length);
	return url.replace(/^file:\/\//, '');
}

const pct = (x) => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);

/**
 * The analysis as markdown: the categories table and the top self-time functions.
 * @param {ReturnType<typeof analyzeProfile>} a
 * @param {{ title?: string, perUnit?: { count: number, name: string } }} [options] perUnit adds a column "ms per <name>"
 */
function renderProfile(a, { title, perUnit } = {}) {
	const lines = [];
	if (title) lines.push(`### ${title}`, '');
	lines.push(
		`${a.samples} samples over ${(a.totalMs / 1000).toFixed(1)} s, busy (not idle) ${(a.busyMs / 1000).toFixed(1)} s. ` +
			'Inclusive: a sample counts for every category on its stack, so the shares overlap.',
		'',
	);
	const unit = perUnit && perUnit.count > 0 ? perUnit : null;
	lines.push(`| category | ms | % of busy | % of all |${unit ? ` ms per ${unit.name} |` : ''}`);
	lines.push(`|---|---:|---:|---:|${unit ? '---:|' : ''}`);
	for (const c of a.categories) {
		lines.push(
			`| ${c.label} | ${Math.round(c.ms)} | ${pct(c.ofBusy)} | ${pct(c.ofAll)} |${unit ? ` ${(c.ms / unit.count).toFixed(2)} |` : ''}`,
		);
	}
	lines.push(
		'',
		`Top ${a.topSelf.length} functions by self time (busy samples):`,
		'',
		'| function | file | ms | % of busy |',
		'|---|---|---:|---:|',
	);
	for (const f of a.topSelf) {
		lines.push(
			`| \`${f.functionName}\` | ${f.file ? `${f.file}${f.line ? `:${f.line}` : ''}` : '(native)'} | ${Math.round(f.ms)} | ${pct(f.ofBusy)} |`,
		);
	}
	return `${lines.join('\n')}\n`;
}

module.exports = { analyzeProfile, renderProfile, shortFile, CATEGORIES };
