'use strict';
/**
 * The playground of `npm start` and the end-to-end suite: the example workflows (examples/*.json)
 * prepared for import, a CRM stand-in on 127.0.0.1, and the set-up that imports the examples into a
 * running n8n with credentials pointing at the simulator.
 *
 *   const { loadExamples, prepareExample, startCrmStub, setupPlayground } = require('./playground');
 *
 * Plain Node (CommonJS, built-ins only).
 */
const fs = require('fs');
const path = require('path');
const http = require('http');
const crypto = require('crypto');
const { httpRequest } = require('./http');

const EXAMPLES_DIR = path.join(path.resolve(__dirname, '..', '..'), 'examples');

/* ------------------------------------------------------------------ example placeholders */

/** What the example JSON files carry and what is replaced when they are imported. */
const EXAMPLE_CRM_URL = 'http://127.0.0.1:5681';
const EXAMPLE_CREDENTIAL_ID = 'cis-example-credential';
const EXAMPLE_CREDENTIAL_NAME = 'CIS Auto-Call account';
/** Example 9's chat model credential: npm start points it at the stand-in model (scripts/lib/standInModel.js). */
const EXAMPLE_MODEL_CREDENTIAL_ID = 'cis-example-model-credential';
const EXAMPLE_MODEL_CREDENTIAL_NAME = 'Stand-in chat model (offline)';
const EXAMPLE_SECRET = 'REPLACE-WITH-A-LONG-RANDOM-SECRET';
/** Example 14c's MCP Server Trigger credential (Bearer Auth): npm start makes one with a random token. */
const EXAMPLE_MCP_CREDENTIAL_ID = 'cis-example-mcp-credential';
/** The Data Table that example 14a fills and the agents of 14b and 14c read (by name). */
const RESULTS_TABLE = 'cis_call_results';
const RESULTS_TABLE_COLUMNS = [
	'phone',
	'callId',
	'candidateId',
	'outcome',
	'status',
	'result',
	'endedAt',
].map((name) => ({ name, type: 'string' }));
const PACKAGE_NAME = 'n8n-nodes-cis-autocall';
const TRIGGER_TYPE = `${PACKAGE_NAME}.cisAutoCallTrigger`;
const ACTION_TYPE = `${PACKAGE_NAME}.cisAutoCall`;

/** Which examples listen (and are activated by npm start). */
const ACTIVATED_EXAMPLES = ['01', '02', '04', '05a', '07', '08', '09', '14a', '14b', '14c'];

/** The simulator's accounts (its defaults). */
const SIM_TOKEN = 'sim-token';
const SIM_USER = { email: 'user@example.com', password: 'secret' };

/** The CRM stub's list of contacts, served at GET /contacts (example 5b reads it). */
const CRM_CONTACTS = [
	{ crmId: 'C-201', name: 'Alice', phone: '79990002201' },
	{ crmId: 'C-202', name: 'Pavel', phone: '79990002202' },
	{ crmId: 'C-203', name: 'Irina', phone: '79990002203' },
];

/** The examples that need a CRM account (HubSpot, Pipedrive, Kommo, Bitrix24): the e2e suite runs them against fakes (test/e2e/crm.e2e.js). */
const CRM_EXAMPLES = ['10', '11', '12', '13'];

/** The example files, in order: [{ key: '01', file, json }]; those of CRM_EXAMPLES only with `{ crm: true }`. */
function loadExamples(dir = EXAMPLES_DIR, { crm = false } = {}) {
	return fs
		.readdirSync(dir)
		.filter((f) => /^\d+[a-z]?-.*\.json$/.test(f))
		.filter((f) => crm || !CRM_EXAMPLES.includes(f.split('-')[0]))
		.sort()
		.map((file) => ({
			key: file.split('-')[0],
			file,
			json: JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')),
		}));
}

function mapStrings(value, fn) {
	if (typeof value === 'string') return fn(value);
	if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
	if (value && typeof value === 'object') {
		const out = {};
		for (const [k, v] of Object.entries(value)) out[k] = mapStrings(v, fn);
		return out;
	}
	return value;
}

/**
 * An example ready to import: the CRM URL, the credential and the trigger secret replaced.
 * options: { crmUrl, credentials: { cisAutoCallApi: {id, name}, cisAutoCallLoginApi?: {id, name} }, secret }
 * @param {any} json
 * `dataTables` ({ <table name>: <id> }): Data Table nodes that name a table (By Name, n8n 2.x) refer to it by ID instead,
 * which n8n 1.123 needs (its Data Table node has no By Name).
 * @param {{ crmUrl?: string, credentials?: Record<string, { id: string, name: string }>, secret?: string, credentialType?: string,
 *   dataTables?: Record<string, string> }} [options]
 */
function prepareExample(
	json,
	{
		crmUrl = EXAMPLE_CRM_URL,
		credentials = {},
		secret,
		credentialType = 'login',
		dataTables = {},
	} = {},
) {
	const crm = crmUrl.replace(/\/+$/, '');
	const wf = mapStrings(JSON.parse(JSON.stringify(json)), (s) =>
		s.split(EXAMPLE_CRM_URL).join(crm),
	);
	for (const node of wf.nodes) {
		// The examples use the login credential (the README's advice); 'token' switches each node to the
		// access-token credential, as a user who picks that one does.
		if (credentialType === 'token' && node.credentials && node.credentials.cisAutoCallLoginApi) {
			node.credentials = {
				...node.credentials,
				cisAutoCallApi: node.credentials.cisAutoCallLoginApi,
			};
			delete node.credentials.cisAutoCallLoginApi;
			node.parameters = { ...node.parameters, authentication: 'accessToken' };
		}
		if (node.credentials) {
			for (const [type, ref] of Object.entries(node.credentials)) {
				if (
					ref &&
					[EXAMPLE_CREDENTIAL_ID, EXAMPLE_MODEL_CREDENTIAL_ID, EXAMPLE_MCP_CREDENTIAL_ID].includes(
						ref.id,
					) &&
					credentials[type]
				) {
					node.credentials[type] = { ...credentials[type] };
				}
			}
		}
		const table = node.parameters && node.parameters.dataTableId;
		if (table && table.mode === 'name' && dataTables[table.value]) {
			node.parameters.dataTableId = {
				__rl: true,
				mode: 'id',
				value: dataTables[table.value],
				cachedResultName: table.value,
			};
		}
		if (
			node.type === TRIGGER_TYPE &&
			node.parameters &&
			node.parameters.secret === EXAMPLE_SECRET &&
			secret
		) {
			node.parameters.secret = secret;
		}
		// The playground's n8n answers on 127.0.0.1, which the simulator reaches: a New Call Task
		// trigger (version 2, the one with the guard) may register there. The example files keep the
		// guard for everyone who imports them; older trigger versions are not guarded (stored workflows).
		if (
			node.type === TRIGGER_TYPE &&
			node.parameters &&
			node.parameters.connectTo === 'newTask' &&
			(node.typeVersion ?? 1) >= 2
		) {
			node.parameters.options = { ...(node.parameters.options || {}), allowLocalUrl: true };
		}
	}
	return wf;
}

/** The production URL of the CIS trigger node of a workflow (webhook `default`, path `webhook`). */
function triggerUrlOf(n8nUrl, wf) {
	const node = wf.nodes.find((n) => n.type === TRIGGER_TYPE);
	if (!node) return null;
	return `${n8nUrl.replace(/\/+$/, '')}/webhook/${node.webhookId}/webhook`;
}

/** A webhook target of the service (spec: webhookUrls entry) for the given events. */
function webhookTarget(url, events) {
	const all = require('../../nodes/shared/events.json').map((event) => event.value);
	const map = {};
	for (const name of all) map[name] = { name, value: events.includes(name) };
	return { url, partialResults: false, delay: 0, events: map };
}
/* ------------------------------------------------------------------ CRM stub */

/**
 * A stand-in for the CRM on 127.0.0.1: GET /contacts answers CRM_CONTACTS (example 5b's list);
 * every POST/PUT/PATCH is recorded and answered 200 (examples 2 and 5a post call results there);
 * GET /__crm/requests lists what was received. onRequest(entry) sees each recorded request.
 * @param {{ port?: number, contacts?: typeof CRM_CONTACTS, onRequest?: (entry: any) => void }} [options]
 */
async function startCrmStub({ port = 0, contacts = CRM_CONTACTS, onRequest } = {}) {
	const requests = [];
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const url = new URL(req.url || '/', 'http://127.0.0.1');
			const text = Buffer.concat(chunks).toString('utf8');
			let body = text;
			try {
				body = text ? JSON.parse(text) : undefined;
			} catch (_) {
				/* kept as text */
			}
			const send = (status, data) => {
				const out = JSON.stringify(data);
				res.writeHead(status, {
					'content-type': 'application/json',
					'content-length': Buffer.byteLength(out),
				});
				res.end(out);
			};
			if (req.method === 'GET' && url.pathname === '/contacts') return send(200, contacts);
			if (req.method === 'GET' && url.pathname === '/__crm/requests') return send(200, requests);
			if (req.method === 'GET' && url.pathname === '/') {
				return send(200, {
					about: 'CRM stub of npm start',
					contacts: '/contacts',
					received: requests.length,
					list: '/__crm/requests',
				});
			}
			if (['POST', 'PUT', 'PATCH'].includes(req.method)) {
				const entry = {
					method: req.method,
					path: url.pathname,
					query: Object.fromEntries(url.searchParams),
					body,
					at: new Date().toISOString(),
				};
				requests.push(entry);
				if (onRequest) {
					try {
						onRequest(entry);
					} catch (_) {
						/* a printing problem must not break the stub */
					}
				}
				return send(200, { ok: true });
			}
			return send(404, { error: `no route ${req.method} ${url.pathname}` });
		});
	});
	server.keepAliveTimeout = 60000;
	const sockets = new Set();
	server.on('connection', (s) => {
		sockets.add(s);
		s.on('close', () => sockets.delete(s));
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => resolve(undefined));
	});
	const actual = /** @type {import('net').AddressInfo} */ (server.address()).port;
	return {
		url: `http://127.0.0.1:${actual}`,
		port: actual,
		requests,
		close: () =>
			new Promise((resolve) => {
				server.close(() => resolve());
				for (const s of sockets) s.destroy();
			}),
	};
}

/* ------------------------------------------------------------------ the playground */

/**
 * In a running n8n (client from setupOwner): creates the two credentials pointing at the
 * simulator (and, with `modelUrl`, one for example 9's chat model: the stand-in of ./standInModel.js),
 * imports every example (prepared), activates the listening ones, and points the
 * simulator's default template at example 2 through the control API.
 * Returns { credentials, secret, workflows: { '01': {id, name, file, json, triggerUrl?, activated}}, template }.
 * log(line) reports each step.
 * @param {{ client: any, n8nUrl: string, simUrl: string, crmUrl: string, modelUrl?: string, token?: string, user?: { email: string, password: string },
 *   examples?: any[], activate?: string[], credentialType?: string, log?: (line: string) => void }} options
 */
async function setupPlayground({
	client,
	n8nUrl,
	simUrl,
	crmUrl,
	modelUrl,
	token = SIM_TOKEN,
	user = SIM_USER,
	examples,
	activate = ACTIVATED_EXAMPLES,
	credentialType = 'login',
	log = () => {},
}) {
	const credToken = await client.createCredential(simCredential('token', simUrl, { token, user }));
	const credLogin = await client.createCredential(simCredential('login', simUrl, { token, user }));
	log(
		`credentials "${credToken.name}" (access token) and "${credLogin.name}" (email + password) → ${simUrl}`,
	);
	const secret = crypto.randomBytes(24).toString('hex');
	const credSecret = await client.createCredential({
		name: `${EXAMPLE_CREDENTIAL_NAME} (webhook secret)`,
		type: 'cisAutoCallWebhookSecretApi',
		data: { secret },
	});
	const credentials = {
		cisAutoCallApi: { id: String(credToken.id), name: credToken.name },
		cisAutoCallLoginApi: { id: String(credLogin.id), name: credLogin.name },
		cisAutoCallWebhookSecretApi: { id: String(credSecret.id), name: credSecret.name },
	};
	// Example 9's chat model: the stand-in on 127.0.0.1 (no key, no internet).
	if (modelUrl) {
		const credModel = await client.createCredential(modelCredential(modelUrl));
		credentials.openAiApi = { id: String(credModel.id), name: credModel.name };
		log(`credential "${credModel.name}" → the stand-in chat model at ${modelUrl}`);
	}
	// Example 14c's MCP Server Trigger: Bearer Auth with a random token (a server that phones people is never open).
	const mcpToken = crypto.randomBytes(24).toString('hex');
	const credMcp = await client.createCredential({
		name: "MCP clients' bearer token",
		type: 'httpBearerAuth',
		data: { token: mcpToken },
	});
	credentials.httpBearerAuth = { id: String(credMcp.id), name: credMcp.name };
	// Examples 14a, 14b and 14c: the Data Table of call results (n8n's REST API, as the editor creates it).
	let resultsTable = null;
	try {
		resultsTable = await client.ensureDataTable(RESULTS_TABLE, RESULTS_TABLE_COLUMNS);
		log(`Data Table "${RESULTS_TABLE}" (examples 14a, 14b, 14c)`);
	} catch (error) {
		log(
			`no Data Table "${RESULTS_TABLE}" (${error instanceof Error ? error.message : error}): examples 14a, 14b and 14c stay inactive`,
		);
	}
	const workflows = {};
	for (const ex of examples || loadExamples()) {
		const json = prepareExample(ex.json, {
			crmUrl,
			credentials,
			secret,
			credentialType,
			dataTables: resultsTable ? { [RESULTS_TABLE]: resultsTable.id } : {},
		});
		const wf = await client.createWorkflow(json);
		workflows[ex.key] = {
			id: String(wf.id),
			name: json.name,
			file: ex.file,
			json,
			triggerUrl: triggerUrlOf(n8nUrl, json),
			activated: false,
		};
	}
	log(`imported ${Object.keys(workflows).length} example workflows from examples/`);
	for (const key of activate) {
		const wf = workflows[key];
		// Example 9 needs a chat model: without the stand-in it waits for the user's own credential.
		if (
			!wf ||
			(['09', '14b'].includes(key) && !modelUrl) ||
			(['14a', '14b', '14c'].includes(key) && !resultsTable)
		)
			continue;
		await client.activate(wf.id);
		wf.activated = true;
	}
	const template = await pointTemplateAtExample2(simUrl, workflows, secret);
	return {
		credentials,
		secret,
		mcpToken,
		resultsTable,
		workflows,
		template,
		urls: { sim: simUrl, crm: crmUrl, model: modelUrl },
	};
}

/** The simulator's credentials: with its access token, or with email and password (login). */
function simCredential(kind, simUrl, { token = SIM_TOKEN, user = SIM_USER } = {}) {
	if (kind === 'token')
		return {
			name: EXAMPLE_CREDENTIAL_NAME,
			type: 'cisAutoCallApi',
			data: { baseUrl: simUrl, accessToken: token },
		};
	return {
		name: `${EXAMPLE_CREDENTIAL_NAME} (login)`,
		type: 'cisAutoCallLoginApi',
		data: {
			baseUrl: simUrl,
			loginUrl: `${simUrl}/api/v1/auth/login`,
			email: user.email,
			password: user.password,
			ttl: 86400,
		},
	};
}

function modelCredential(modelUrl) {
	return {
		name: EXAMPLE_MODEL_CREDENTIAL_NAME,
		type: 'openAiApi',
		data: { apiKey: 'sk-stand-in', url: `${modelUrl}/v1`, header: false },
	};
}

/**
 * Example 2 listens to the tasks made from the default template (Create and Run, Create Batch): its
 * URL + ?secret= goes into the template's webhook settings, as a user would paste it. Example 14a
 * (the results table), when active, listens to the same template's Call Ended events.
 */
async function pointTemplateAtExample2(simUrl, workflows, secret) {
	const wf2 = workflows['02'];
	if (!wf2 || !wf2.triggerUrl) return null;
	const target = webhookTarget(`${wf2.triggerUrl}?secret=${secret}`, [
		'CALL_ENDED',
		'CANDIDATE_CHANGED',
	]);
	const wf10a = workflows['14a'];
	const targets =
		wf10a && wf10a.activated && wf10a.triggerUrl
			? [target, webhookTarget(`${wf10a.triggerUrl}?secret=${secret}`, ['CALL_ENDED'])]
			: [target];
	const res = await httpRequest('POST', `${simUrl}/__sim/default-template`, {
		body: { webhookUrls: targets },
	});
	if (res.status !== 200)
		throw new Error(`POST ${simUrl}/__sim/default-template answered ${res.status}: ${res.text}`);
	return { target, answer: res.body };
}

/* ------------------------------------------------------------------ a kept playground */

/** What npm start set up in an n8n user folder, kept there for the next start. */
const STATE_FILE = 'npm-start-playground.json';

/** The set-up an earlier start kept in `userFolder`, or null (none, or unreadable: a new set-up). */
function readPlaygroundState(userFolder) {
	try {
		const state = JSON.parse(fs.readFileSync(path.join(userFolder, STATE_FILE), 'utf8'));
		return state && state.credentials && state.workflows ? state : null;
	} catch (_) {
		return null;
	}
}

/** Keeps what setupPlayground / resumePlayground set up, without the workflows' JSON. */
function writePlaygroundState(userFolder, setup, ports) {
	const workflows = {};
	for (const [key, wf] of Object.entries(setup.workflows))
		workflows[key] = {
			id: wf.id,
			name: wf.name,
			file: wf.file,
			triggerUrl: wf.triggerUrl,
			activated: wf.activated,
		};
	const state = {
		credentials: setup.credentials,
		secret: setup.secret,
		mcpToken: setup.mcpToken,
		resultsTable: setup.resultsTable,
		workflows,
		urls: setup.urls,
		ports,
	};
	fs.writeFileSync(path.join(userFolder, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
}

/**
 * A later start on a kept user folder: nothing is imported or created twice. The credentials are
 * pointed at this start's simulator and stand-in model when their addresses changed, the workflows
 * that still exist are listed (n8n itself activated the published ones), and the new simulator's
 * default template is pointed at example 2 again. Returns what setupPlayground returns.
 * @param {{ client: any, n8nUrl?: string, simUrl: string, crmUrl: string, modelUrl?: string, state: any, log?: (line: string) => void }} options
 */
async function resumePlayground({ client, simUrl, crmUrl, modelUrl, state, log = () => {} }) {
	const urls = state.urls || {};
	const update = async (ref, credential) => {
		const res = await client.rawRest('PATCH', `/credentials/${ref.id}`, credential);
		if (res.status === 404)
			log(
				`credential "${ref.name}" no longer exists: create one pointing at ${simUrl} if you need it`,
			);
		else if (res.status < 200 || res.status >= 300)
			throw new Error(`PATCH /rest/credentials/${ref.id} answered ${res.status}: ${res.text}`);
		else
			log(
				`credential "${ref.name}" now points at ${credential.data.baseUrl || credential.data.url}`,
			);
	};
	if (urls.sim !== simUrl) {
		if (state.credentials.cisAutoCallApi)
			await update(state.credentials.cisAutoCallApi, simCredential('token', simUrl));
		if (state.credentials.cisAutoCallLoginApi)
			await update(state.credentials.cisAutoCallLoginApi, simCredential('login', simUrl));
	}
	if (modelUrl && state.credentials.openAiApi && urls.model !== modelUrl)
		await update(state.credentials.openAiApi, modelCredential(modelUrl));
	if (urls.crm && urls.crm !== crmUrl)
		log(
			`the examples send to the CRM stub at ${urls.crm}, which is now at ${crmUrl}: start with --crm-port ${new URL(urls.crm).port} to use its old port`,
		);
	const workflows = {};
	for (const [key, wf] of Object.entries(state.workflows)) {
		const res = await client.rawRest('GET', `/workflows/${wf.id}`);
		if (res.status !== 200) continue; // deleted by the user
		const data = res.body && res.body.data ? res.body.data : res.body;
		workflows[key] = {
			...wf,
			name: data.name || wf.name,
			json: data,
			activated: Boolean(data.active),
		};
	}
	log(
		`kept: ${Object.keys(workflows).length} example workflows (of ${Object.keys(state.workflows).length}) and your own; nothing imported again`,
	);
	const template = await pointTemplateAtExample2(simUrl, workflows, state.secret);
	return {
		credentials: state.credentials,
		secret: state.secret,
		mcpToken: state.mcpToken,
		resultsTable: state.resultsTable,
		workflows,
		template,
		urls: { sim: simUrl, crm: crmUrl, model: modelUrl },
	};
}

module.exports = {
	EXAMPLES_DIR,
	EXAMPLE_CRM_URL,
	EXAMPLE_CREDENTIAL_ID,
	EXAMPLE_CREDENTIAL_NAME,
	EXAMPLE_MODEL_CREDENTIAL_ID,
	EXAMPLE_SECRET,
	EXAMPLE_MCP_CREDENTIAL_ID,
	RESULTS_TABLE,
	RESULTS_TABLE_COLUMNS,
	ACTIVATED_EXAMPLES,
	CRM_EXAMPLES,
	TRIGGER_TYPE,
	ACTION_TYPE,
	CRM_CONTACTS,
	SIM_TOKEN,
	SIM_USER,
	loadExamples,
	prepareExample,
	triggerUrlOf,
	webhookTarget,
	startCrmStub,
	setupPlayground,
	resumePlayground,
	readPlaygroundState,
	writePlaygroundState,
};
