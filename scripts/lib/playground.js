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
const PACKAGE_NAME = 'n8n-nodes-cis-autocall';
const TRIGGER_TYPE = `${PACKAGE_NAME}.cisAutoCallTrigger`;
const ACTION_TYPE = `${PACKAGE_NAME}.cisAutoCall`;

/** Which examples listen (and are activated by npm start). */
const ACTIVATED_EXAMPLES = ['01', '02', '04', '05a', '07', '08', '09'];

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
		.map((file) => ({ key: file.split('-')[0], file, json: JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) }));
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
 * @param {{ crmUrl?: string, credentials?: Record<string, { id: string, name: string }>, secret?: string, credentialType?: string }} [options]
 */
function prepareExample(json, { crmUrl = EXAMPLE_CRM_URL, credentials = {}, secret, credentialType = 'login' } = {}) {
	const crm = crmUrl.replace(/\/+$/, '');
	const wf = mapStrings(JSON.parse(JSON.stringify(json)), (s) => s.split(EXAMPLE_CRM_URL).join(crm));
	for (const node of wf.nodes) {
		// The examples use the login credential (the README's advice); 'token' switches each node to the
		// access-token credential, as a user who picks that one does.
		if (credentialType === 'token' && node.credentials && node.credentials.cisAutoCallLoginApi) {
			node.credentials = { ...node.credentials, cisAutoCallApi: node.credentials.cisAutoCallLoginApi };
			delete node.credentials.cisAutoCallLoginApi;
			node.parameters = { ...node.parameters, authentication: 'accessToken' };
		}
		if (node.credentials) {
			for (const [type, ref] of Object.entries(node.credentials)) {
				if (ref && [EXAMPLE_CREDENTIAL_ID, EXAMPLE_MODEL_CREDENTIAL_ID].includes(ref.id) && credentials[type]) node.credentials[type] = { ...credentials[type] };
			}
		}
		if (node.type === TRIGGER_TYPE && node.parameters && node.parameters.secret === EXAMPLE_SECRET && secret) {
			node.parameters.secret = secret;
		}
		// The playground's n8n answers on 127.0.0.1, which the simulator reaches: a New Call Task
		// trigger (version 2, the one with the guard) may register there. The example files keep the
		// guard for everyone who imports them; older trigger versions are not guarded (stored workflows).
		if (node.type === TRIGGER_TYPE && node.parameters && node.parameters.connectTo === 'newTask' && (node.typeVersion ?? 1) >= 2) {
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
				res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
				res.end(out);
			};
			if (req.method === 'GET' && url.pathname === '/contacts') return send(200, contacts);
			if (req.method === 'GET' && url.pathname === '/__crm/requests') return send(200, requests);
			if (req.method === 'GET' && url.pathname === '/') {
				return send(200, { about: 'CRM stub of npm start', contacts: '/contacts', received: requests.length, list: '/__crm/requests' });
			}
			if (['POST', 'PUT', 'PATCH'].includes(req.method)) {
				const entry = { method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), body, at: new Date().toISOString() };
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
async function setupPlayground({ client, n8nUrl, simUrl, crmUrl, modelUrl, token = SIM_TOKEN, user = SIM_USER, examples, activate = ACTIVATED_EXAMPLES, credentialType = 'login', log = () => {} }) {
	const credToken = await client.createCredential({
		name: EXAMPLE_CREDENTIAL_NAME,
		type: 'cisAutoCallApi',
		data: { baseUrl: simUrl, accessToken: token },
	});
	const credLogin = await client.createCredential({
		name: `${EXAMPLE_CREDENTIAL_NAME} (login)`,
		type: 'cisAutoCallLoginApi',
		data: { baseUrl: simUrl, loginUrl: `${simUrl}/api/v1/auth/login`, email: user.email, password: user.password, ttl: 86400 },
	});
	log(`credentials "${credToken.name}" (access token) and "${credLogin.name}" (email + password) → ${simUrl}`);
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
		const credModel = await client.createCredential({ name: EXAMPLE_MODEL_CREDENTIAL_NAME, type: 'openAiApi', data: { apiKey: 'sk-stand-in', url: `${modelUrl}/v1`, header: false } });
		credentials.openAiApi = { id: String(credModel.id), name: credModel.name };
		log(`credential "${credModel.name}" → the stand-in chat model at ${modelUrl}`);
	}
	const workflows = {};
	for (const ex of examples || loadExamples()) {
		const json = prepareExample(ex.json, { crmUrl, credentials, secret, credentialType });
		const wf = await client.createWorkflow(json);
		workflows[ex.key] = { id: String(wf.id), name: json.name, file: ex.file, json, triggerUrl: triggerUrlOf(n8nUrl, json), activated: false };
	}
	log(`imported ${Object.keys(workflows).length} example workflows from examples/`);
	for (const key of activate) {
		const wf = workflows[key];
		// Example 9 needs a chat model: without the stand-in it waits for the user's own credential.
		if (!wf || (key === '09' && !modelUrl)) continue;
		await client.activate(wf.id);
		wf.activated = true;
	}
	// Example 2 listens to the tasks made from the default template (Create and Run, Create Batch):
	// its URL + ?secret= goes into the template's webhook settings, as a user would paste it.
	let template = null;
	const wf2 = workflows['02'];
	if (wf2 && wf2.triggerUrl) {
		const target = webhookTarget(`${wf2.triggerUrl}?secret=${secret}`, ['CALL_ENDED', 'CANDIDATE_CHANGED']);
		const res = await httpRequest('POST', `${simUrl}/__sim/default-template`, { body: { webhookUrls: [target] } });
		if (res.status !== 200) throw new Error(`POST ${simUrl}/__sim/default-template answered ${res.status}: ${res.text}`);
		template = { target, answer: res.body };
	}
	return { credentials, secret, workflows, template };
}


module.exports = {
	EXAMPLES_DIR,
	EXAMPLE_CRM_URL,
	EXAMPLE_CREDENTIAL_ID,
	EXAMPLE_CREDENTIAL_NAME,
	EXAMPLE_MODEL_CREDENTIAL_ID,
	EXAMPLE_SECRET,
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
};
