'use strict';
/**
 * Talks to a running n8n the way its editor and its public API do: owner set-up, sign-in, API key,
 * credentials, workflows, publishing, manual runs, executions, credential tests, webhooks.
 *
 *   const client = await setupOwner(n8n.url);                             // owner + login + API key
 *   const cred = await client.createCredential({ name, type, data });
 *   const wf = await client.createWorkflow(workflowJson);
 *   await client.activate(wf.id);
 *
 * Plain Node (CommonJS, built-ins only).
 */
const { httpRequest, HttpError } = require('./http');
const { sleep } = require('./supervisor');

const DEFAULT_OWNER = {
	email: 'owner@example.com',
	firstName: 'E2E',
	lastName: 'Owner',
	password: 'E2e-Passw0rd!',
};
const BROWSER_ID = 'cis-e2e-browser';

const TERMINAL = new Set(['success', 'error', 'crashed', 'canceled']);

function isFinished(ex) {
	return Boolean(
		ex &&
		(TERMINAL.has(ex.status) ||
			(ex.finished && ex.status !== 'running' && ex.status !== 'waiting')),
	);
}

/**
 * Whether a finished execution's data is saved as far as a check reads it: with `untilNode`, that
 * node's output; otherwise its error (status error), or its stop time and its last node's output
 * (success). Other ends (canceled, crashed) are taken as they are.
 */
function endSaved(ex, untilNode) {
	const resultData = (ex.data && ex.data.resultData) || {};
	const runData = resultData.runData || {};
	if (untilNode)
		return Boolean(runData[untilNode]) || (ex.status === 'error' && Boolean(resultData.error));
	if (ex.status === 'error') return Boolean(resultData.error);
	if (ex.status !== 'success') return true;
	return Boolean(
		ex.stoppedAt && resultData.lastNodeExecuted && runData[resultData.lastNodeExecuted],
	);
}

/**
 * A client for one n8n instance: `rest` uses the owner's cookie session (editor API,
 * /rest/...), `api` uses the public API key (/api/v1/...). Both throw HttpError
 * (with .status and .body) on a non-2xx answer; `raw*` variants never throw.
 * @param {string} baseUrl
 * @param {{ cookie?: string, apiKey?: string, owner?: typeof DEFAULT_OWNER, version?: string }} [options]
 */
function createClient(baseUrl, { cookie = '', apiKey = '', owner = DEFAULT_OWNER, version } = {}) {
	const state = { cookie, apiKey, publishStyle: null, serverVersion: version || null };

	function storeCookie(res) {
		const sc = res.headers['set-cookie'];
		if (!sc) return;
		for (const c of sc) {
			const [pair] = c.split(';');
			if (pair.startsWith('n8n-auth=')) state.cookie = pair;
		}
	}

	async function rawRest(method, p, body) {
		const res = await httpRequest(method, `${baseUrl}/rest${p}`, {
			headers: { cookie: state.cookie, 'browser-id': BROWSER_ID },
			body,
		});
		storeCookie(res);
		return res;
	}

	async function rest(method, p, body) {
		const res = await rawRest(method, p, body);
		if (res.status < 200 || res.status >= 300) throw new HttpError(method, `/rest${p}`, res);
		return res.body && typeof res.body === 'object' && 'data' in res.body
			? res.body.data
			: res.body;
	}

	async function rawApi(method, p, body) {
		return httpRequest(method, `${baseUrl}/api/v1${p}`, {
			headers: { 'X-N8N-API-KEY': state.apiKey },
			body,
		});
	}

	async function api(method, p, body) {
		const res = await rawApi(method, p, body);
		if (res.status < 200 || res.status >= 300) throw new HttpError(method, `/api/v1${p}`, res);
		return res.body;
	}

	const client = {
		url: baseUrl,
		version,
		owner,
		get cookie() {
			return state.cookie;
		},
		get apiKey() {
			return state.apiKey;
		},
		rest,
		rawRest,
		api,
		rawApi,

		/** POST /rest/login; the body field is emailOrLdapLoginId (2.x) or email (1.x): both are tried. */
		async login(email = owner.email, password = owner.password) {
			let last;
			for (const body of [
				{ emailOrLdapLoginId: email, password },
				{ email, password },
			]) {
				last = await rawRest('POST', '/login', body);
				if (last.status === 200) return last.body && last.body.data;
			}
			throw new HttpError('POST', '/rest/login', last);
		},

		/**
		 * Creates a public API key with every scope the owner may grant and keeps it.
		 * New shape {label, scopes, expiresAt:null} when GET /rest/api-keys/scopes exists, else {label}.
		 */
		async createApiKey(label = `e2e-${Date.now()}`) {
			const scopesRes = await rawRest('GET', '/api-keys/scopes');
			const attempts = [];
			if (scopesRes.status === 200) {
				const scopes = scopesRes.body && scopesRes.body.data ? scopesRes.body.data : scopesRes.body;
				attempts.push({ label, scopes, expiresAt: null });
			}
			attempts.push({ label });
			let last;
			for (const body of attempts) {
				last = await rawRest('POST', '/api-keys', body);
				if (last.status === 200) {
					const d = last.body.data || last.body;
					state.apiKey = d.rawApiKey || d.apiKey;
					return { ...d, apiKey: state.apiKey, scopes: body.scopes };
				}
			}
			throw new HttpError('POST', '/rest/api-keys', last);
		},

		/**
		 * POST /api/v1/credentials; returns { id, name, type, ... }.
		 * n8n adds the fields allowedHttpRequestDomains/allowedDomains to credential types that
		 * authenticate HTTP requests. Its public-API JSON schema on 1.123.x then wrongly demands
		 * allowedDomains when allowedHttpRequestDomains is absent ("requires property
		 * allowedDomains"); on that answer the call is retried once with
		 * allowedHttpRequestDomains: 'all' (the default the editor would store).
		 */
		async createCredential({ name, type, data }) {
			const res = await rawApi('POST', '/credentials', { name, type, data });
			if (res.status >= 200 && res.status < 300) return res.body;
			if (
				res.status === 400 &&
				/allowedDomains/.test(res.text) &&
				data &&
				data.allowedHttpRequestDomains === undefined
			) {
				return api('POST', '/credentials', {
					name,
					type,
					data: { ...data, allowedHttpRequestDomains: 'all' },
				});
			}
			throw new HttpError('POST', '/api/v1/credentials', res);
		},

		/**
		 * POST /api/v1/workflows with only the fields the public API accepts
		 * (name, nodes, connections, settings, staticData, pinData).
		 */
		async createWorkflow(json) {
			const body = {
				name: json.name || `e2e ${Date.now()}`,
				nodes: json.nodes,
				connections: json.connections || {},
				settings: json.settings || { executionOrder: 'v1' },
			};
			if (json.staticData) body.staticData = json.staticData;
			if (json.pinData && Object.keys(json.pinData).length) body.pinData = json.pinData;
			return api('POST', '/workflows', body);
		},

		/**
		 * A Data Table in the owner's personal project, as the editor creates it (REST
		 * `POST /rest/projects/<project>/data-tables`, n8n 1.123 and 2.x); an existing table of that name is
		 * returned as it is. Columns: [{ name, type }] (type string, number, boolean or date).
		 * @param {string} name
		 * @param {{ name: string, type: string }[]} columns
		 */
		async ensureDataTable(name, columns) {
			const project = await rest('GET', '/projects/personal');
			const base = `/projects/${project.id}/data-tables`;
			const listed = await rest(
				'GET',
				`${base}?filter=${encodeURIComponent(JSON.stringify({ name }))}`,
			);
			const existing = (listed && Array.isArray(listed.data) ? listed.data : []).find(
				(t) => t.name === name,
			);
			if (existing) return { id: String(existing.id), name, projectId: String(project.id) };
			const table = await rest('POST', base, { name, columns });
			return { id: String(table.id), name, projectId: String(project.id) };
		},

		/** Adds rows to a Data Table (ensureDataTable's answer), as the editor's table view does. */
		async insertDataTableRows(table, rows) {
			return rest('POST', `/projects/${table.projectId}/data-tables/${table.id}/insert`, {
				data: rows,
				returnType: 'id',
			});
		},

		/** The rows of a Data Table (ensureDataTable's answer), oldest first. */
		async dataTableRows(table) {
			const rows = await rest(
				'GET',
				`/projects/${table.projectId}/data-tables/${table.id}/rows?take=1000`,
			);
			return rows && Array.isArray(rows.data) ? rows.data : [];
		},

		async getWorkflow(id) {
			return api('GET', `/workflows/${id}`);
		},

		async deleteWorkflow(id) {
			return api('DELETE', `/workflows/${id}`);
		},

		/**
		 * 2.x only: GET /rest/workflows/:id/publication-status ->
		 * { status: 'in_progress'|'not_published'|'published'|'partial'|'failed', triggers: [{nodeId,status,errorMessage}] }.
		 * Resolves null on 1.x (no such endpoint: activation there is synchronous).
		 */
		async publicationStatus(id) {
			if ((await client.serverMajor()) < 2) return null;
			return rest('GET', `/workflows/${id}/publication-status`);
		},

		/** The n8n version the server reports (GET /rest/settings -> versionCli), cached. */
		async serverVersion() {
			if (!state.serverVersion) {
				const settings = await rest('GET', '/settings');
				state.serverVersion = settings.versionCli || version;
			}
			return state.serverVersion;
		},

		async serverMajor() {
			return Number(String(await client.serverVersion()).split('.')[0]);
		},

		/**
		 * 2.x publishes through an outbox: the publish call returns before the triggers are
		 * registered (webhooks answer 404 for ~0.2 s, a trigger's create() runs later). This
		 * waits until the publication settled. want: 'published' or 'not_published'.
		 * Rejects when the publication failed (err.publication holds the status and the
		 * triggers' errorMessage). Resolves the status (null on 1.x).
		 */
		async waitForPublication(id, want = 'published', timeoutMs = 30000) {
			const deadline = Date.now() + timeoutMs;
			let st;
			for (;;) {
				st = await client.publicationStatus(id);
				if (st === null) return null;
				if (st.status !== 'in_progress') {
					if (st.status === want) return st;
					if (want === 'published' && (st.status === 'failed' || st.status === 'partial')) {
						const msgs = (st.triggers || [])
							.filter((tr) => tr.errorMessage)
							.map((tr) => `${tr.nodeId}: ${tr.errorMessage}`);
						const e = new Error(
							`publishing workflow ${id} ${st.status}: ${msgs.join('; ') || JSON.stringify(st)}`,
						);
						Object.assign(e, { publication: st });
						throw e;
					}
				}
				if (Date.now() > deadline) {
					const e = new Error(
						`workflow ${id} publication not "${want}" within ${timeoutMs}ms: ${JSON.stringify(st)}`,
					);
					Object.assign(e, { publication: st });
					throw e;
				}
				await sleep(100);
			}
		},

		/**
		 * Activates (1.x: POST /activate) / publishes (2.x: POST /publish, falling back to
		 * /activate on 404) and, unless wait === false, waits until the triggers are live
		 * (see waitForPublication). 1.x reports activation errors as HTTP 400 right away.
		 * Resolves the workflow returned by the public API.
		 */
		async activate(id, { wait = true, timeoutMs = 30000, conflictWaitMs = 15000 } = {}) {
			const order = state.publishStyle === 'activate' ? ['activate'] : ['publish', 'activate'];
			const conflictDeadline = Date.now() + conflictWaitMs;
			let last;
			let ok = null;
			for (let i = 0; i < order.length; i++) {
				const verb = order[i];
				last = await rawApi(
					'POST',
					`/workflows/${id}/${verb}`,
					verb === 'publish' ? {} : undefined,
				);
				if (last.status >= 200 && last.status < 300) {
					state.publishStyle = verb;
					ok = last.body;
					break;
				}
				// 2.x unpublishes through the same outbox: a workflow reported "not_published" a moment
				// ago may still hold its webhook paths, so a publish that takes them over answers 409.
				if (last.status === 409 && Date.now() < conflictDeadline) {
					await sleep(250);
					i -= 1;
					continue;
				}
				if (last.status !== 404 && last.status !== 405) break;
			}
			if (!ok)
				throw new HttpError(
					'POST',
					`/api/v1/workflows/${id}/${state.publishStyle || 'publish|activate'}`,
					last,
				);
			if (wait) await client.waitForPublication(id, 'published', timeoutMs);
			return ok;
		},

		/** Deactivates (1.x) / unpublishes (2.x) and, unless wait === false, waits until the triggers are gone. */
		async deactivate(id, { wait = true, timeoutMs = 30000 } = {}) {
			const order =
				state.publishStyle === 'activate' ? ['deactivate'] : ['unpublish', 'deactivate'];
			let last;
			let ok = null;
			for (const verb of order) {
				last = await rawApi('POST', `/workflows/${id}/${verb}`);
				if (last.status >= 200 && last.status < 300) {
					ok = last.body;
					break;
				}
				if (last.status !== 404 && last.status !== 405) break;
			}
			if (!ok) throw new HttpError('POST', `/api/v1/workflows/${id}/unpublish|deactivate`, last);
			if (wait) await client.waitForPublication(id, 'not_published', timeoutMs);
			return ok;
		},

		/**
		 * GET /api/v1/executions?workflowId=… (newest first); all pages.
		 * @param {string} workflowId
		 * @param {{ includeData?: boolean, status?: string, limit?: number }} [options]
		 */
		async listExecutions(workflowId, { includeData = false, status, limit = 250 } = {}) {
			const out = [];
			let cursor;
			for (;;) {
				const q = new URLSearchParams({ limit: String(limit) });
				if (workflowId) q.set('workflowId', String(workflowId));
				if (includeData) q.set('includeData', 'true');
				if (status) q.set('status', status);
				if (cursor) q.set('cursor', cursor);
				const res = await api('GET', `/executions?${q}`);
				out.push(...(res.data || []));
				if (!res.nextCursor || !(res.data || []).length) break;
				cursor = res.nextCursor;
			}
			return out;
		},

		async getExecution(id, { includeData = true } = {}) {
			return api('GET', `/executions/${id}?includeData=${includeData ? 'true' : 'false'}`);
		},

		/**
		 * Polls until at least n executions of the workflow are finished; resolves them
		 * (with data, oldest first). Rejects after timeoutMs listing what was seen.
		 */
		async waitForExecutions(workflowId, n = 1, timeoutMs = 30000, { includeData = true } = {}) {
			const deadline = Date.now() + timeoutMs;
			let seen = [];
			for (;;) {
				seen = await client.listExecutions(workflowId, { includeData });
				const done = seen.filter(isFinished);
				if (done.length >= n) return done.sort((a, b) => Number(a.id) - Number(b.id));
				if (Date.now() > deadline) {
					const e = new Error(
						`expected ${n} finished execution(s) of workflow ${workflowId} within ${timeoutMs}ms, saw ${seen.length}: ${JSON.stringify(seen.map((x) => ({ id: x.id, status: x.status, finished: x.finished })))}`,
					);
					Object.assign(e, { executions: seen });
					throw e;
				}
				await sleep(300);
			}
		},

		/**
		 * Runs a stored workflow through the editor's manual-run endpoint
		 * (POST /rest/workflows/:id/run), starting at its trigger node (default: the first
		 * Manual Trigger), waits for it and returns the execution (public API, with data).
		 * Works on 1.123.x and 2.41.x (see test/e2e/lib/README.md for the body shapes).
		 * It returns once what the check reads is saved: the output of `untilNode` when given, else the
		 * execution's saved end (its error, or its stop time and its last node's output). n8n 1.x reports
		 * the status a moment before it saves the data, on a busy machine seconds before; no fixed grace
		 * is waited, the only bound is `timeoutMs` (after it the execution is returned as it is, so that
		 * the check says what is missing).
		 * @param {string} id
		 * @param {{ triggerName?: string, timeoutMs?: number, untilNode?: string }} [options]
		 */
		async runWorkflowManually(id, { triggerName, timeoutMs = 60000, untilNode } = {}) {
			const wf = await rest('GET', `/workflows/${id}`);
			const trigger = triggerName
				? wf.nodes.find((nd) => nd.name === triggerName)
				: wf.nodes.find((nd) => nd.type === 'n8n-nodes-base.manualTrigger') ||
					wf.nodes.find((nd) => /trigger/i.test(nd.type));
			if (!trigger) throw new Error(`workflow ${id} has no trigger node to start from`);
			// 2.x runs the stored workflow, the body only says where to start;
			// 1.x wants the workflow itself in the body (as its editor sends it)
			const v2Body = { triggerToStartFrom: { name: trigger.name } };
			const v1Body = { workflowData: wf, triggerToStartFrom: { name: trigger.name } };
			const bodies = (await client.serverMajor()) >= 2 ? [v2Body, v1Body] : [v1Body, v2Body];
			let last;
			let result;
			for (const body of bodies) {
				last = await rawRest('POST', `/workflows/${id}/run`, body);
				if (last.status === 200) {
					result = last.body.data || last.body;
					break;
				}
			}
			if (!result) throw new HttpError('POST', `/rest/workflows/${id}/run`, last);
			if (result.waitingForWebhook)
				throw new Error(`workflow ${id}: n8n is waiting for a test webhook call, not a manual run`);
			const execId = result.executionId;
			if (!execId)
				throw new Error(`workflow ${id}: unexpected run answer ${JSON.stringify(result)}`);
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const r = await rawApi('GET', `/executions/${execId}?includeData=true`);
				const finished = r.status === 200 && isFinished(r.body);
				if (finished && endSaved(r.body, untilNode)) return r.body;
				if (Date.now() > deadline) {
					if (finished) return r.body;
					throw new Error(
						`execution ${execId} of workflow ${id} not finished within ${timeoutMs}ms (last: ${r.status} ${r.body && r.body.status})`,
					);
				}
				await sleep(250);
			}
		},

		/**
		 * Tests a credential the way the editor does (its "Retry" / save-time test):
		 * POST /rest/credentials/test { credentials: { id, name, type, data } }.
		 * - 2.x requires the id of a stored credential, and `data` must be sent: the server
		 *   merges it with the stored data (redacted values are swapped back) and tests that;
		 *   without data the test fails with 'Node "Temp-Node" does not have any credentials…'.
		 * - When `data` is omitted the stored data is fetched first (GET /rest/credentials/:id?includeData=true)
		 *   and sent back, which tests exactly what is stored, on both versions.
		 * - Unsaved data (no id, sent as id '') is accepted by 2.41.1 for the owner (who has
		 *   credential:manageInstance) but refused with 403 by 1.123.81: store the credential first.
		 * Resolves { status: 'OK'|'Error', message }.
		 * @param {{ id?: string, name: string, type: string, data?: Record<string, unknown> }} credential
		 */
		async testCredential({ id, name, type, data }) {
			if (id !== undefined && (!data || !type || name === undefined)) {
				const stored = await rest('GET', `/credentials/${id}?includeData=true`);
				type = type || stored.type;
				name = name === undefined ? stored.name : name;
				data = data || stored.data || {};
			}
			const credentials = {
				id: id === undefined ? '' : String(id),
				name: name || '',
				type,
				data: data || {},
			};
			return rest('POST', '/credentials/test', { credentials });
		},

		/** POST to a production webhook of an active workflow: /webhook/<path>. */
		async callWebhook(webhookPath, body, { method = 'POST', headers = {}, test = false } = {}) {
			return httpRequest(
				method,
				`${baseUrl}/${test ? 'webhook-test' : 'webhook'}/${webhookPath.replace(/^\//, '')}`,
				{ headers, body },
			);
		},
	};
	return client;
}

/**
 * Sets up the instance owner (POST /rest/owner/setup; skipped when one already exists),
 * logs in (keeping the cookie), creates a public API key with all scopes, and returns
 * the client (see createClient).
 * @param {string} url
 * @param {Partial<typeof DEFAULT_OWNER>} [owner]
 * @param {{ version?: string }} [options]
 */
async function setupOwner(url, owner = DEFAULT_OWNER, { version } = {}) {
	const fullOwner = { ...DEFAULT_OWNER, ...owner };
	owner = fullOwner;
	const client = createClient(url, { owner: fullOwner, version });
	const res = await client.rawRest('POST', '/owner/setup', {
		email: owner.email,
		firstName: owner.firstName,
		lastName: owner.lastName,
		password: owner.password,
	});
	if (res.status !== 200 && !(res.status === 400 && /already/i.test(res.text))) {
		throw new HttpError('POST', '/rest/owner/setup', res);
	}
	await client.login(owner.email, owner.password);
	await client.createApiKey();
	return client;
}

module.exports = { setupOwner, createClient, isFinished, DEFAULT_OWNER };
