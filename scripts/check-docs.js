'use strict';
/**
 * The docs check (run by .ci/run after the build): what the guide says must be true of what ships.
 *
 *   1. Every link in README.md, CONTRIBUTING.md, CHANGELOG.md, docs/*.md, examples/README.md and
 *      test/bench/*.md resolves: a file that exists, and an anchor that is a heading of that file
 *      (GitHub's anchor rules). Markdown links, images, reference definitions (`[x]: target`) and
 *      HTML `href`/`src` count. A section named in prose ("see the README, "Some Section"" or
 *      `docs/x.md, "Some Section"`) must be a heading of that file too. Links to the web are not
 *      fetched.
 *   2. Every name the user guide quotes in **bold** that looks like an editor name (Title Case,
 *      up to 8 words) is a text of the nodes or credentials as built in dist/ (display names,
 *      option names, action names), or one of n8n's own names listed below. So a renamed field
 *      fails CI until the guide is changed too.
 *   3. Every `code` span of the user guide that is one camelCase word (a parameter or output field
 *      such as `autoCallCandidateId`) occurs in the built node code.
 *   4. Every example workflow (examples/*.json) parses, and each node of this package names a type
 *      and a version the built nodes have.
 *   5. The two tables of the service's events (docs/trigger.md, docs/service.md) have one row per event
 *      of nodes/shared/events.json, in its order, and no other row: a new event fails CI until both
 *      tables have it.
 *   7. docs/crm.md links every CRM example (CRM_EXAMPLES of scripts/lib/playground.js) and has a section per
 *      CRM named in the example's file name; examples/README.md has a row for each.
 *   6. The README's steps with the simulator (`npm start`) hold against the code: the n8n login and
 *      the ports it names are those scripts/start.js uses; every `curl` to the simulator or the CRM
 *      stub is sent to a real simulator and CRM stub started here, and must be answered 200; the lead
 *      the curl sends to the Production URL is the README's sample lead, and the number whose call it
 *      scripts is that lead's number as the node sends it.
 *
 *   7. One truth about the "… and Wait for Result" operations as an AI Agent's tool: the built action node
 *      is usable as a tool, so no page of the user guide may say they are not ("not usable as an AI
 *      Agent's tool", "the agent cannot wait"), and docs/operations.md's section on waiting links to
 *      the section of docs/ai-agents.md that describes the waiting tool.
 *
 *   node scripts/check-docs.js        prints each problem; ends with "docs: N passed, N failed"
 *
 * Plain Node (CommonJS, built-ins only); needs `npm run build` first.
 */
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');

/** The user guide: checked for links and for the names it quotes. */
const USER_DOCS = [
	'README.md',
	...fs
		.readdirSync(path.join(ROOT, 'docs'))
		.filter((f) => f.endsWith('.md'))
		.map((f) => `docs/${f}`),
	'examples/README.md',
];
/** Checked for links only (developers' and lab pages, the changelog). */
const OTHER_DOCS = [
	'CONTRIBUTING.md',
	'CHANGELOG.md',
	'test/README.md',
	'test/bench/RESULTS.md',
	'test/bench/LAB.md',
].filter((f) => fs.existsSync(path.join(ROOT, f)));

/** Names of n8n itself, of other nodes and of the service that the guide may quote in bold. */
const OTHER_NAMES = new Set([
	'Settings → Community Nodes → Install',
	'Settings → Community Nodes → Update',
	'Overview → Credentials → Create credential',
	'Workflows → Import from File',
	'Remove Duplicates',
	'Remove Items Processed in Previous Executions',
	'Webhook',
	'HTTP Request',
	'IF',
	'Executions',
	'AI Agent',
	'Execute workflow',
	'Execute Workflow',
	'Test this trigger',
	'Data Table',
	'Edit Fields',
	'By Name',
	'MCP Server Trigger',
	'Bearer Auth',
	'Header Auth',
	'Retry',
	'Code',
	'Install',
	'Expression',
	'Production URL',
	'Test URL',
	'Webhook URLs',
	'Continue On Fail',
	'Retry On Fail',
	'Tool Description',
	'Set Manually',
	'Chat Trigger',
	// the Chat Trigger's option (n8n 1.123, 2.41)
	'Make Chat Publicly Available',
	'OpenAI Chat Model',
	'Execute Once',
	'Merge',
	'Wait',
	'Publish',
	'Simplify',
	'Docker',
	'Settings',
	'CRM',
	'Credential',
	// n8n's own CRM nodes and their fields, as docs/crm.md quotes them
	'HubSpot Trigger',
	'HubSpot',
	'Pipedrive Trigger',
	'Pipedrive',
	'Contact',
	'Type',
	'Entity',
	'Action',
	'Incoming Authentication',
	'Person ID',
	'Lead ID',
]);

/** Pages about the service itself (its own field names), not about the nodes: links only. */
const ABOUT_THE_SERVICE = new Set(['docs/service.md']);

function read(file, root = ROOT) {
	return fs.readFileSync(path.join(root, file), 'utf8');
}

/** Markdown without fenced code blocks (their contents are not links or names). */
function withoutFences(text) {
	return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's anchor of a heading. */
function anchorOf(heading) {
	return heading
		.trim()
		.toLowerCase()
		.replace(/<[^>]+>/g, '')
		.replace(/[`*_[\]()]/g, '')
		.replace(/[^\p{L}\p{N}\s-]/gu, '')
		.replace(/\s/g, '-');
}

function anchorsOf(file, root = ROOT) {
	const seen = new Map();
	const anchors = new Set();
	for (const line of withoutFences(read(file, root)).split('\n')) {
		const match = /^#{1,6}\s+(.*)$/.exec(line);
		if (!match) continue;
		const base = anchorOf(match[1]);
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.add(count === 0 ? base : `${base}-${count}`);
	}
	return anchors;
}

/** The link targets of a markdown file: markdown links and images, reference definitions, HTML href and src. */
function linkTargets(text) {
	const targets = [];
	for (const match of text.matchAll(/!?\[[^\]]*\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g))
		targets.push(match[1]);
	for (const match of text.matchAll(/^\s{0,3}\[[^\]]+\]:\s+<?([^\s>]+)>?/gm))
		targets.push(match[1]);
	for (const match of text.matchAll(/<(?:a|img)\b[^>]*?\b(?:href|src)="([^"]+)"/gi))
		targets.push(match[1]);
	return targets;
}

function checkLinks(file, problems, root = ROOT) {
	const text = withoutFences(read(file, root)).replace(/`[^`\n]*`/g, '');
	const dir = path.dirname(file);
	let count = 0;
	for (const target of linkTargets(text)) {
		if (/^[a-z]+:/i.test(target)) continue;
		count++;
		const [pathPart, anchor] = target.split('#');
		const resolved = pathPart === '' ? file : path.normalize(path.join(dir, decodeURI(pathPart)));
		if (!fs.existsSync(path.join(root, resolved))) {
			problems.push(`${file}: link to ${target}: ${resolved} does not exist`);
			continue;
		}
		if (
			anchor !== undefined &&
			resolved.endsWith('.md') &&
			!anchorsOf(resolved, root).has(anchor)
		) {
			problems.push(
				`${file}: link to ${target}: ${resolved} has no heading with the anchor #${anchor}`,
			);
		}
	}
	// A section named in prose: `the README, "Section"`, `README's "Section"`, `docs/x.md, "Section"`.
	for (const match of text.matchAll(
		/\b(README|[\w./-]+\.md)(?:'s)?,?\s+(?:section\s+)?["“]([^"”\n]{2,80})["”]/g,
	)) {
		count++;
		// "the README" is the repository's; a file name is relative to the page, else to the repository.
		const named = match[1] === 'README' ? 'README.md' : match[1];
		const candidates =
			match[1] === 'README'
				? [named]
				: [path.normalize(path.join(dir, named)), path.normalize(named)];
		const resolved = candidates.find((candidate) => fs.existsSync(path.join(root, candidate)));
		if (!resolved) {
			problems.push(`${file}: names the section "${match[2]}" of ${named}, which does not exist`);
			continue;
		}
		if (!anchorsOf(resolved, root).has(anchorOf(match[2]))) {
			problems.push(
				`${file}: names the section "${match[2]}" of ${resolved}, which has no such heading`,
			);
		}
	}
	return count;
}

/** Every text the built nodes and credentials show: display names, option names, action names. */
function editorTexts() {
	const texts = new Set();
	const add = (value) => {
		if (typeof value === 'string' && value.trim()) texts.add(value.trim());
	};
	const walkProperties = (properties) => {
		for (const property of properties ?? []) {
			add(property.displayName);
			add(property.placeholder);
			for (const option of property.options ?? []) {
				add(option.name);
				add(option.displayName);
				add(option.action);
				if (option.values) walkProperties(option.values);
				if (option.type) walkProperties([option]);
			}
		}
	};
	const pkg = JSON.parse(read('package.json'));
	for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
		const module = require(path.join(ROOT, file));
		for (const Exported of Object.values(module)) {
			if (typeof Exported !== 'function') continue;
			const instance = new Exported();
			const descriptions = instance.nodeVersions
				? Object.values(instance.nodeVersions).map((v) => v.description)
				: [instance.description ?? instance];
			for (const description of descriptions) {
				add(description.displayName);
				add(description.defaults?.name);
				walkProperties(description.properties);
			}
		}
	}
	return texts;
}

/** The node types and versions the package ships. */
function shippedTypes() {
	const pkg = JSON.parse(read('package.json'));
	const types = new Map();
	for (const file of pkg.n8n.nodes) {
		const module = require(path.join(ROOT, file));
		for (const Exported of Object.values(module)) {
			if (typeof Exported !== 'function') continue;
			const instance = new Exported();
			const description =
				instance.description ?? Object.values(instance.nodeVersions ?? {})[0]?.description;
			const base = instance.nodeVersions
				? { ...instance.description, version: Object.keys(instance.nodeVersions).map(Number) }
				: description;
			const versions = [].concat(base.version);
			types.set(`${pkg.name}.${base.name}`, versions);
			if (description.usableAsTool || base.usableAsTool)
				types.set(`${pkg.name}.${base.name}Tool`, versions);
		}
	}
	return types;
}

function allDistCode() {
	const chunks = [];
	const walk = (dir) => {
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			const full = path.join(dir, entry.name);
			if (entry.isDirectory()) walk(full);
			else if (entry.name.endsWith('.js')) chunks.push(fs.readFileSync(full, 'utf8'));
		}
	};
	walk(DIST);
	return chunks.join('\n');
}

/** Bold text that names something in an editor: Title Case words (small words allowed), or an arrow path. */
function looksLikeEditorName(text) {
	if (/[.!?:;,"“”]$/.test(text) || text.length > 80) return false;
	if (!/[A-Z]/.test(text) || /^Example\b/.test(text)) return false;
	const words = text.split(/\s+/);
	if (words.length > 8) return false;
	const small = new Set([
		'a',
		'an',
		'and',
		'as',
		'at',
		'by',
		'for',
		'from',
		'in',
		'of',
		'on',
		'or',
		'per',
		'the',
		'to',
		'with',
		'→',
		'(hours)',
		'(json)',
	]);
	return words.every((word) => small.has(word.toLowerCase()) || /^[A-Z0-9(]/.test(word));
}

function checkNames(file, texts, code, problems) {
	const text = withoutFences(read(file)).replace(/<!--[\s\S]*?-->/g, '');
	let count = 0;
	for (const match of text.matchAll(/\*\*([^*]+?)\*\*/g)) {
		const name = match[1].replace(/\s+/g, ' ').trim();
		if (!looksLikeEditorName(name)) continue;
		count++;
		const parts = name.split(/\s*→\s*/);
		const known = (part) =>
			texts.has(part) ||
			OTHER_NAMES.has(part) ||
			OTHER_NAMES.has(name) ||
			[...texts].some((t) => t.startsWith(`${part} (`));
		if (!parts.every(known))
			problems.push(`${file}: **${name}** is not a text of the nodes or credentials (renamed?)`);
	}
	for (const match of text.matchAll(/`([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)`/g)) {
		count++;
		if (!new RegExp(`\\b${match[1]}\\b`).test(code))
			problems.push(`${file}: \`${match[1]}\` is not in the built nodes (renamed?)`);
	}
	return count;
}

function checkExamples(types, problems) {
	const pkg = JSON.parse(read('package.json'));
	let count = 0;
	for (const file of fs
		.readdirSync(path.join(ROOT, 'examples'))
		.filter((f) => f.endsWith('.json'))) {
		count++;
		let workflow;
		try {
			workflow = JSON.parse(read(`examples/${file}`));
		} catch (error) {
			problems.push(`examples/${file}: not JSON: ${error.message}`);
			continue;
		}
		if (!Array.isArray(workflow.nodes) || typeof workflow.connections !== 'object') {
			problems.push(`examples/${file}: no nodes or connections`);
			continue;
		}
		for (const node of workflow.nodes) {
			if (!String(node.type).startsWith(`${pkg.name}.`)) continue;
			const versions = types.get(node.type);
			if (!versions)
				problems.push(`examples/${file}: node "${node.name}" has the unknown type ${node.type}`);
			else if (!versions.includes(node.typeVersion)) {
				problems.push(
					`examples/${file}: node "${node.name}" has version ${node.typeVersion}; ${node.type} has ${versions.join(', ')}`,
				);
			}
		}
		for (const [from, outputs] of Object.entries(workflow.connections)) {
			if (!workflow.nodes.some((node) => node.name === from))
				problems.push(`examples/${file}: a connection from the missing node "${from}"`);
			for (const list of Object.values(outputs)) {
				for (const targets of list) {
					for (const target of targets ?? []) {
						if (!workflow.nodes.some((node) => node.name === target.node))
							problems.push(`examples/${file}: a connection to the missing node "${target.node}"`);
					}
				}
			}
		}
	}
	return count;
}

/** The tables that list the service's events: the file, the line their table follows, a row's cells for an event. */
const EVENT_TABLES = [
	{
		file: 'docs/trigger.md',
		after: 'Events (**Events** field;',
		cells: (event) => [event.name, `\`${event.value}\``],
	},
	{
		file: 'docs/service.md',
		after: '## Events (webhooks)',
		cells: (event) => [`\`${event.value}\``],
	},
];

/** The rows (cells, trimmed) of the first table after the line that starts with `after`, header and rule left out. */
function tableAfter(text, after) {
	const lines = text.split('\n');
	let at = lines.findIndex((line) => line.startsWith(after));
	if (at < 0) return undefined;
	while (at < lines.length && !lines[at].startsWith('|')) at++;
	const rows = [];
	for (; at < lines.length && lines[at].startsWith('|'); at++)
		rows.push(
			lines[at]
				.split('|')
				.slice(1, -1)
				.map((cell) => cell.trim()),
		);
	return rows.slice(2);
}

function checkEventTables(problems) {
	const events = JSON.parse(read('nodes/shared/events.json'));
	let count = 0;
	for (const { file, after, cells } of EVENT_TABLES) {
		const rows = tableAfter(read(file), after);
		if (!rows) {
			problems.push(`${file}: no line starting with "${after}" before the table of events`);
			continue;
		}
		const expected = events.map((event) => cells(event).join(' | '));
		const found = rows.map((row, index) =>
			row.slice(0, cells(events[index] ?? events[0]).length).join(' | '),
		);
		if (JSON.stringify(found) !== JSON.stringify(expected)) {
			problems.push(
				`${file}: the events table begins its rows with ${JSON.stringify(found)}; nodes/shared/events.json has ${JSON.stringify(expected)}`,
			);
		}
		count += rows.length;
	}
	return count;
}

/** The `curl` commands of a markdown text: { url, body } (the -d body as written; backslash-newlines joined). */
function curlCommands(text) {
	const joined = text.replace(/\\\n\s*/g, ' ');
	const commands = [];
	for (const match of joined.matchAll(/curl\s[^\n`]*/g)) {
		const url = /'(<Production URL>|https?:\/\/[^']+)'|\s(https?:\/\/\S+)/.exec(match[0]);
		const body = /-d\s+'([^']*)'/.exec(match[0]);
		if (url) commands.push({ url: url[1] ?? url[2], body: body ? body[1] : undefined });
	}
	return commands;
}

/** Check 5: the README's simulator steps, against scripts/start.js, a simulator and a CRM stub. Returns how many facts were checked. */
async function checkSimulatorSteps(problems) {
	const { START_OWNER, DEFAULT_N8N_PORT, DEFAULT_SIM_PORT, DEFAULT_CRM_PORT } = require('./start');
	const { startCrmStub, EXAMPLE_CRM_URL } = require('./lib/playground');
	const { createSimulator } = require('../simulator');
	const text = read('README.md');
	let checked = 0;
	const expect = (ok, problem) => {
		checked++;
		if (!ok) problems.push(problem);
	};
	const login = /log in to n8n at `http:\/\/127\.0\.0\.1:(\d+)` as\s+`([^`]+)` \/ `([^`]+)`/.exec(
		text,
	);
	expect(
		login !== null,
		'README: no "log in to n8n at `http://127.0.0.1:<port>` as `<email>` / `<password>`"',
	);
	if (login) {
		expect(
			Number(login[1]) === DEFAULT_N8N_PORT,
			`README: n8n at port ${login[1]}, npm start uses ${DEFAULT_N8N_PORT}`,
		);
		expect(
			login[2] === START_OWNER.email && login[3] === START_OWNER.password,
			`README: login ${login[2]} / ${login[3]}, npm start sets up ${START_OWNER.email} / ${START_OWNER.password}`,
		);
	}
	expect(
		new URL(EXAMPLE_CRM_URL).port === String(DEFAULT_CRM_PORT),
		`the examples' CRM URL ${EXAMPLE_CRM_URL} is not on port ${DEFAULT_CRM_PORT}`,
	);
	for (const [, port, route] of text.matchAll(
		/http:\/\/127\.0\.0\.1:(\d+)(\/(?:__sim|__crm|leads|webhook)[^\s`']*)?/g,
	)) {
		const wanted =
			route === undefined
				? DEFAULT_N8N_PORT
				: route.startsWith('/__sim')
					? DEFAULT_SIM_PORT
					: route.startsWith('/webhook')
						? DEFAULT_N8N_PORT
						: DEFAULT_CRM_PORT;
		expect(
			Number(port) === wanted,
			`README: http://127.0.0.1:${port}${route ?? ''} is not on port ${wanted}, the one npm start uses for it`,
		);
	}
	const sample = /the lead \(`(\{"name"[^`]*\})`\)/.exec(text);
	expect(sample !== null, 'README: no sample lead (`{"name": …}`) in the lead\'s workflow');
	const lead = sample ? JSON.parse(sample[1]) : {};
	const curls = curlCommands(text);
	const toProduction = curls.filter((curl) => curl.url === '<Production URL>');
	expect(
		toProduction.length === 1,
		`README: ${toProduction.length} curl commands to '<Production URL>', expected 1 (the lead sent by hand)`,
	);
	for (const curl of toProduction)
		expect(
			JSON.stringify(JSON.parse(curl.body ?? 'null')) === JSON.stringify(lead),
			`README: the lead sent with curl is ${curl.body}, not the sample lead ${sample && sample[1]}`,
		);
	const sim = await createSimulator({ port: 0 });
	const crm = await startCrmStub({ port: 0 });
	try {
		for (const curl of curls.filter((c) => c.url !== '<Production URL>')) {
			const address = new URL(curl.url);
			const target = address.pathname.startsWith('/__sim')
				? sim.url
				: address.pathname.startsWith('/__crm')
					? crm.url
					: undefined;
			if (!target) continue;
			const body = curl.body?.replace(
				'<Production URL>?secret=<your secret>',
				'http://127.0.0.1:9/webhook/x/webhook?secret=s',
			);
			const answer = await fetch(
				`${target}${address.pathname}`,
				body === undefined
					? {}
					: { method: 'POST', headers: { 'content-type': 'application/json' }, body },
			);
			expect(
				answer.status === 200,
				`README: curl ${curl.url} answered ${answer.status} by the simulator or CRM stub: ${(await answer.text()).slice(0, 200)}`,
			);
			if (address.pathname === '/__sim/outcome') {
				const phone = JSON.parse(body).phone;
				expect(
					phone === String(lead.phone).replace(/[^0-9]/g, ''),
					`README: the scripted number ${phone} is not the sample lead's ${lead.phone} as the node sends it`,
				);
			}
		}
		for (const route of new Set(
			[...text.matchAll(/http:\/\/127\.0\.0\.1:\d+(\/__crm\/[\w/-]+)/g)].map((match) => match[1]),
		)) {
			const answer = await fetch(`${crm.url}${route}`);
			expect(answer.status === 200, `README: ${route} answered ${answer.status} by the CRM stub`);
		}
	} finally {
		await sim.close();
		await crm.close();
	}
	return checked;
}

/** Words that would say a node or operation cannot be an AI Agent's tool. */
const NOT_A_TOOL =
	/\b(?:not|never|cannot be) (?:usable|used|available) as an? (?:AI Agent(?:'s)? )?tool\b|\bagent cannot wait\b/i;
const WAITING_TOOL_SECTION = 'ai-agents.md#an-agent-that-waits-for-what-the-person-said';

/** Check 7: the waiting operations are a tool, and every page says so (or says nothing). */
function checkWaitingToolTruth(types, problems) {
	const pkg = JSON.parse(read('package.json'));
	const isTool = types.has(`${pkg.name}.cisAutoCallTool`);
	if (!isTool) {
		problems.push(
			'the built action node is not usable as an AI Agent tool: docs/ai-agents.md describes the waiting tool',
		);
		return 1;
	}
	let checked = 0;
	for (const file of USER_DOCS) {
		// one line of prose may wrap: the words are matched across line breaks
		const text = withoutFences(read(file)).replace(/\s+/g, ' ');
		checked++;
		const found = new RegExp(NOT_A_TOOL.source, 'gi');
		for (const match of text.matchAll(found)) {
			problems.push(
				`${file}: says "${text.slice(Math.max(0, match.index - 40), match.index + match[0].length + 40).trim()}", but the node is an AI Agent's tool, its waiting operations too`,
			);
		}
	}
	if (!anchorsOf('docs/ai-agents.md').has(WAITING_TOOL_SECTION.split('#')[1]))
		problems.push(`docs/ai-agents.md has no section "${WAITING_TOOL_SECTION}"`);
	const waitSection =
		read('docs/operations.md')
			.split(/^## /m)
			.find((section) => /^Wait for the result/.test(section)) || '';
	if (!waitSection.includes(WAITING_TOOL_SECTION))
		problems.push(
			`docs/operations.md, "Wait for the result", does not link to ${WAITING_TOOL_SECTION} (the waiting tool)`,
		);
	return checked;
}

async function main() {
	if (!fs.existsSync(DIST)) {
		console.log('dist/ is missing: run npm run build first');
		console.log('docs: 0 passed, 1 failed');
		process.exit(1);
	}
	let passed = 0;
	let failed = 0;
	const report = (name, problems, checked) => {
		if (problems.length === 0) {
			passed++;
			console.log(`  ok    ${name} (${checked} checked)`);
		} else {
			failed++;
			console.log(`  FAIL  ${name}`);
			for (const problem of problems) console.log(`        ${problem}`);
		}
	};
	const texts = editorTexts();
	const code = allDistCode();
	for (const file of [...USER_DOCS, ...OTHER_DOCS]) {
		const problems = [];
		const links = checkLinks(file, problems);
		report(`${file}: links and anchors`, problems, links);
	}
	for (const file of USER_DOCS.filter((f) => !ABOUT_THE_SERVICE.has(f))) {
		const problems = [];
		const names = checkNames(file, texts, code, problems);
		report(`${file}: the names it quotes exist in the nodes`, problems, names);
	}
	const problems = [];
	const examples = checkExamples(shippedTypes(), problems);
	report(
		'examples/*.json: parse, node types and versions the package has, connections',
		problems,
		examples,
	);
	const toolProblems = [];
	const toolLines = checkWaitingToolTruth(shippedTypes(), toolProblems);
	report(
		'the user guide: the "… and Wait for Result" operations are an AI Agent\'s tool, one truth on every page',
		toolProblems,
		toolLines,
	);
	const eventProblems = [];
	const eventRows = checkEventTables(eventProblems);
	report(
		'docs/trigger.md, docs/service.md: one row per event of nodes/shared/events.json',
		eventProblems,
		eventRows,
	);
	const crmProblems = [];
	const crmExamples = checkCrmPage(crmProblems);
	report(
		'docs/crm.md: a section and a link per CRM example; a row in examples/README.md',
		crmProblems,
		crmExamples,
	);
	const simulatorProblems = [];
	const steps = await checkSimulatorSteps(simulatorProblems);
	report(
		'README.md: the steps with the simulator (login, ports, curl commands) hold against npm start, the simulator and the CRM stub',
		simulatorProblems,
		steps,
	);
	console.log(`docs: ${passed} passed, ${failed} failed`);
	process.exit(failed === 0 ? 0 : 1);
}

/** Check 7: each CRM example is linked from docs/crm.md, under a heading naming its CRM, and has a row in examples/README.md. */
function checkCrmPage(problems) {
	const { CRM_EXAMPLES } = require('./lib/playground');
	const page = read('docs/crm.md');
	const headings = [...page.matchAll(/^## (.*)$/gm)].map((m) => m[1].toLowerCase());
	const table = read('examples/README.md');
	const files = fs
		.readdirSync(path.join(ROOT, 'examples'))
		.filter((f) => CRM_EXAMPLES.includes(f.split('-')[0]) && f.endsWith('.json'));
	if (files.length !== CRM_EXAMPLES.length)
		problems.push(
			`examples/: ${files.length} files for the CRM examples ${CRM_EXAMPLES.join(', ')}`,
		);
	for (const file of files) {
		const crm = file.split('-')[1];
		if (!page.includes(`(../examples/${file})`))
			problems.push(`docs/crm.md does not link examples/${file}`);
		if (!headings.some((h) => h.replace(/[^a-z0-9]/g, '').startsWith(crm)))
			problems.push(`docs/crm.md has no section "## ${crm} …" for examples/${file}`);
		if (!table.includes(`| [\`${file}\`](${file}) |`))
			problems.push(`examples/README.md has no row for ${file}`);
	}
	return files.length;
}

if (require.main === module) {
	main().catch((error) => {
		console.error(error);
		console.log('docs: 0 passed, 1 failed');
		process.exit(1);
	});
}

module.exports = {
	checkLinks,
	anchorOf,
	linkTargets,
	tableAfter,
	curlCommands,
	checkSimulatorSteps,
};
