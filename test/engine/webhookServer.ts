/**
 * `startWebhookServer()` serves the trigger's production webhook URL over real HTTP and calls
 * `webhook()` in n8n-core's `WebhookContext`, answering like n8n's live webhooks in response
 * mode `onReceived`.
 */
import './engine-env';

import { parseIncomingMessage } from '@n8n/backend-network';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { parse as parseQueryString } from 'node:querystring';
import { getHtmlSandboxCSP, isWebhookHtmlSandboxingDisabled, WebhookContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IVersionedNodeType,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { UserError } from 'n8n-workflow';
import { setupEngine } from './setup';
import { CredentialStore, deepCopy } from './credentials';
import { buildAdditionalData, buildStore } from './additionalData';
import { buildTriggerWorkflow, getNodeWebhooks } from './webhookMethods';

export interface WebhookServerOptions {
	node: INodeType | IVersionedNodeType;
	credentialTypes: ICredentialType[];
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	parameters: INodeParameters;
	/** The node's static data object, as create() left it. */
	staticData: IDataObject;
	webhookId?: string;
	/**
	 * false (default, n8n 2.x behaviour): each webhook() call gets a fresh deep copy of
	 * `staticData`; what webhook() writes is dropped. true (n8n 1.x): one shared object,
	 * mutated in place, so `staticData` shows what webhook() wrote.
	 */
	persistStaticData?: boolean;
	/**
	 * Like n8n's N8N_PROXY_HOPS (express `trust proxy` = hops): with N > 0, `req.ip` /
	 * `req.ips` come from `X-Forwarded-For`, trusting N proxies. Default 0: `req.ip` is the
	 * socket address (127.0.0.1 in tests).
	 */
	proxyHops?: number;
	typeVersion?: number;
	credentialStore?: CredentialStore;
	/**
	 * Serves requests outside the webhook path on the same address (e.g. a `WaitingExecutions`
	 * host's `/webhook-waiting/...`, as one n8n serves both). JSON bodies are parsed into `req.body`.
	 */
	otherRoutes?: (req: HarnessRequest, res: HarnessResponse) => Promise<void>;
	/**
	 * n8n's public webhook address (N8N_WEBHOOK_URL + /webhook), read at each request: a balancer in
	 * front of several webhook processes. Default: this server's own `baseUrl`.
	 */
	publicBaseUrl?: () => string | undefined;
}

export interface WebhookCall {
	method: string;
	url: string;
	/** HTTP status the harness (or the node) answered with. */
	statusCode: number;
	/** What webhook() returned (undefined if it threw). */
	response?: IWebhookResponseData;
	/** The error webhook() threw, if any. */
	error?: Error;
}

export interface WebhookServer {
	/** The node's production webhook URL, e.g. `http://127.0.0.1:PORT/webhook/<webhookId>/webhook`. */
	url: string;
	/** `http://127.0.0.1:PORT/webhook` */
	baseUrl: string;
	/** workflowData of each webhook() call that started the workflow. */
	started: INodeExecutionData[][][];
	/** Number of requests that reached webhook(). */
	calls: number;
	/** Details of each request that reached webhook(). */
	log: WebhookCall[];
	credentialStore: CredentialStore;
	close(): Promise<void>;
}

/** Express's request additions that n8n nodes use (a small, explicit subset). */
export type HarnessRequest = IncomingMessage & {
	body?: unknown;
	rawBody?: Buffer;
	query: IDataObject;
	params: Record<string, string>;
	path: string;
	originalUrl: string;
	ip?: string;
	ips: string[];
	hostname: string;
	protocol: string;
	secure: boolean;
	contentType?: string;
	encoding?: BufferEncoding;
	header(name: string): string | string[] | undefined;
	get(name: string): string | string[] | undefined;
	readRawBody(): Promise<void>;
};

export type HarnessResponse = ServerResponse & {
	req: HarnessRequest;
	status(code: number): HarnessResponse;
	sendStatus(code: number): HarnessResponse;
	send(body?: unknown): HarnessResponse;
	json(body: unknown): HarnessResponse;
	set(field: string | Record<string, string>, value?: string | string[]): HarnessResponse;
	header(field: string | Record<string, string>, value?: string | string[]): HarnessResponse;
	type(contentType: string): HarnessResponse;
	get(field: string): string | number | string[] | undefined;
};

const MAX_BODY_BYTES = 16 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
		size += buffer.length;
		if (size > MAX_BODY_BYTES) throw new Error('request entity too large');
		chunks.push(buffer);
	}
	return Buffer.concat(chunks);
}

/** Express's `req.ip` / `req.ips` with `trust proxy` set to a hop count (proxy-addr semantics). */
function clientAddresses(raw: IncomingMessage, hops: number): { ip?: string; ips: string[] } {
	const socketAddress = raw.socket.remoteAddress;
	if (!hops || hops <= 0) return { ip: socketAddress, ips: [] };
	const forwarded = String(raw.headers['x-forwarded-for'] ?? '')
		.split(',')
		.map((part) => part.trim())
		.filter(Boolean)
		.reverse();
	const addresses = [socketAddress ?? '', ...forwarded];
	let trustedLength = addresses.length;
	for (let i = 0; i < addresses.length - 1; i++) {
		if (i >= hops) {
			trustedLength = i + 1;
			break;
		}
	}
	const trusted = addresses.slice(0, trustedLength);
	return { ip: trusted[trusted.length - 1], ips: trusted.slice(1).reverse() };
}

function decorateRequest(raw: IncomingMessage, proxyHops = 0): HarnessRequest {
	const req = raw as HarnessRequest;
	const url = new URL(raw.url ?? '/', 'http://127.0.0.1');
	const query: IDataObject = {};
	for (const [key, value] of Object.entries(parseQueryString(url.search.slice(1)))) {
		query[key] = value as string | string[];
	}
	req.query = query;
	req.params = {};
	req.path = url.pathname;
	req.originalUrl = raw.url ?? '/';
	const { ip, ips } = clientAddresses(raw, proxyHops);
	req.ip = ip;
	req.ips = ips;
	req.hostname = String(raw.headers.host ?? '127.0.0.1').replace(/:\d+$/, '');
	req.protocol = 'http';
	req.secure = false;
	req.header = (name: string) => {
		const lower = name.toLowerCase();
		if (lower === 'referer' || lower === 'referrer')
			return raw.headers.referer ?? raw.headers.referrer;
		return raw.headers[lower];
	};
	req.get = req.header;
	// n8n's rawBodyReader: content type/encoding from the headers, lazy raw body.
	parseIncomingMessage(req as unknown as Parameters<typeof parseIncomingMessage>[0]);
	req.readRawBody = async () => {
		if (!req.rawBody) req.rawBody = await readBody(raw);
	};
	return req;
}

function decorateResponse(raw: ServerResponse, req: HarnessRequest): HarnessResponse {
	const res = raw as HarnessResponse;
	res.req = req;
	res.status = (code: number) => {
		res.statusCode = code;
		return res;
	};
	res.set = (field, value) => {
		if (typeof field === 'object') {
			for (const [k, v] of Object.entries(field)) res.setHeader(k, v);
		} else if (value !== undefined) {
			res.setHeader(field, value);
		}
		return res;
	};
	res.header = res.set;
	res.get = (field: string) => res.getHeader(field);
	res.type = (contentType: string) => {
		res.setHeader(
			'Content-Type',
			contentType.includes('/') ? contentType : `application/${contentType}`,
		);
		return res;
	};
	res.json = (body: unknown) => {
		if (!res.getHeader('Content-Type'))
			res.setHeader('Content-Type', 'application/json; charset=utf-8');
		res.end(JSON.stringify(body));
		return res;
	};
	res.send = (body?: unknown) => {
		if (body === undefined || body === null) {
			res.end();
		} else if (Buffer.isBuffer(body)) {
			if (!res.getHeader('Content-Type')) res.setHeader('Content-Type', 'application/octet-stream');
			res.end(body);
		} else if (typeof body === 'string') {
			if (!res.getHeader('Content-Type')) res.setHeader('Content-Type', 'text/html; charset=utf-8');
			res.end(body);
		} else if (typeof body === 'number' || typeof body === 'boolean' || typeof body === 'object') {
			return res.json(body);
		}
		return res;
	};
	res.sendStatus = (code: number) => {
		res.statusCode = code;
		if (!res.getHeader('Content-Type')) res.setHeader('Content-Type', 'text/plain; charset=utf-8');
		res.end(String(code));
		return res;
	};
	return res;
}

function isParsableContentType(contentType: string | undefined): boolean {
	if (!contentType) return false;
	return (
		contentType.startsWith('application/json') ||
		contentType.startsWith('text/plain') ||
		contentType.startsWith('application/x-www-form-urlencoded') ||
		contentType.endsWith('/xml') ||
		contentType.endsWith('+xml')
	);
}

class UnprocessableBodyError extends Error {}

/**
 * n8n's webhook body handling (`parseRequestBody` + `parseBody`): typeVersion 1 nodes always
 * get the raw body read; JSON, form and text bodies are parsed into `req.body`; any other
 * body leaves `req.body` undefined (the bytes stay in `req.rawBody`). Newer typeVersions
 * skip reading non-parsable bodies altogether. XML is not parsed by the harness.
 */
async function parseWebhookBody(req: HarnessRequest, nodeVersion: number): Promise<void> {
	const { contentType } = req;
	if (contentType?.startsWith('multipart/')) {
		throw new UnprocessableBodyError('multipart/form-data bodies are not supported by the harness');
	}
	if (nodeVersion > 1 && !isParsableContentType(contentType)) return;
	await req.readRawBody();
	const { rawBody } = req;
	if (!rawBody?.length) return;
	const encoding = (req.encoding ?? 'utf-8') as BufferEncoding;
	try {
		if (contentType === 'application/json') {
			req.body = JSON.parse(rawBody.toString(encoding));
		} else if (contentType === 'application/x-www-form-urlencoded') {
			req.body = {
				...parseQueryString(rawBody.toString(encoding), undefined, undefined, { maxKeys: 1000 }),
			};
		} else if (contentType === 'text/plain') {
			req.body = rawBody.toString(encoding);
		}
	} catch (error) {
		const e = new UnprocessableBodyError('Failed to parse request body');
		(e as Error & { hint?: string }).hint = (error as Error).message;
		throw e;
	}
}

function sendStatic(res: HarnessResponse, body: unknown, code: number): void {
	if (res.headersSent || res.writableEnded) return;
	res.status(code);
	if (!isWebhookHtmlSandboxingDisabled())
		res.setHeader('Content-Security-Policy', getHtmlSandboxCSP());
	if (typeof body === 'string') res.send(body);
	else res.json(body);
}

function sendError(res: HarnessResponse, code: number, body: IDataObject): void {
	if (res.headersSent || res.writableEnded) return;
	res.status(code).json(body);
}

export async function startWebhookServer(opts: WebhookServerOptions): Promise<WebhookServer> {
	setupEngine();
	const store = buildStore(opts.credentialTypes, opts.credentials, opts.credentialStore);
	const sharedStaticData = opts.staticData;

	// Resolve the route once from a throw-away workflow (same as n8n's registration).
	const probe = buildTriggerWorkflow(
		{ ...opts, credentialStore: store },
		deepCopy(sharedStaticData),
	);
	const webhookDescriptions = probe.nodeType.description.webhooks ?? [];
	if (webhookDescriptions.length === 0) {
		throw new UserError(`Harness: node "${probe.node.name}" has no webhooks`);
	}
	for (const description of webhookDescriptions) {
		const mode = description.responseMode ?? 'onReceived';
		if (typeof mode === 'string' && !mode.startsWith('=') && mode !== 'onReceived') {
			throw new UserError(
				`Harness: responseMode "${mode}" is not supported (only onReceived); the harness does not run the workflow after webhook()`,
			);
		}
	}

	const started: INodeExecutionData[][][] = [];
	const log: WebhookCall[] = [];
	const sockets = new Set<Socket>();
	let baseUrl = '';
	let routes: IWebhookData[] = [];
	const state = { calls: 0 };

	const handle = async (rawReq: IncomingMessage, rawRes: ServerResponse) => {
		const req = decorateRequest(rawReq, opts.proxyHops ?? 0);
		const res = decorateResponse(rawRes, req);
		const method = (req.method ?? 'GET').toUpperCase();
		const prefix = new URL(baseUrl).pathname + '/';
		const requestPath = req.path.startsWith(prefix)
			? decodeURIComponent(req.path.slice(prefix.length)).replace(/\/$/, '')
			: undefined;
		if (requestPath === undefined && opts.otherRoutes) {
			try {
				await parseWebhookBody(req, 2);
			} catch (error) {
				sendError(res, 422, { code: 422, message: (error as Error).message });
				return;
			}
			await opts.otherRoutes(req, res);
			return;
		}
		const route = routes.find((r) => r.path === requestPath && r.httpMethod === method);
		if (!route) {
			const pathKnown = routes.some((r) => r.path === requestPath);
			sendError(res, 404, {
				code: 404,
				message: pathKnown
					? `This webhook is not registered for ${method} requests.`
					: `The requested webhook "${method} ${requestPath ?? req.path}" is not registered.`,
			});
			return;
		}

		// The per-request workflow, as n8n loads it (with the saved static data).
		const staticData = opts.persistStaticData ? sharedStaticData : deepCopy(sharedStaticData);
		const { workflow, node, nodeType } = buildTriggerWorkflow(
			{ ...opts, credentialStore: store },
			staticData,
		);
		const webhookDescription: IWebhookDescription = route.webhookDescription;
		try {
			await parseWebhookBody(req, node.typeVersion);
		} catch (error) {
			const hint = (error as Error & { hint?: string }).hint;
			sendError(res, 422, {
				code: 422,
				message: (error as Error).message,
				...(hint ? { hint } : {}),
			});
			return;
		}

		const publicBase = opts.publicBaseUrl?.() ?? baseUrl;
		const additionalData = buildAdditionalData(store, {
			webhookBaseUrl: publicBase,
			webhookTestBaseUrl: publicBase.replace(/\/webhook$/, '/webhook-test'),
		});
		additionalData.httpRequest = req as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
		additionalData.httpResponse = res as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
		const webhookData: IWebhookData = { ...route, workflowExecuteAdditionalData: additionalData };

		const responseCode =
			webhookDescription.responseCode === undefined
				? 200
				: Number(
						workflow.expression.getSimpleParameterValue(
							node,
							webhookDescription.responseCode,
							'webhook',
							{},
							undefined,
							200,
						) ?? 200,
					);
		const responseData =
			webhookDescription.responseData === undefined
				? undefined
				: workflow.expression.getComplexParameterValue(
						node,
						webhookDescription.responseData,
						'webhook',
						{},
						undefined,
						undefined,
					);

		state.calls++;
		const call: WebhookCall = { method, url: req.originalUrl, statusCode: 0 };
		log.push(call);
		let result: IWebhookResponseData;
		try {
			const context = new WebhookContext(
				workflow,
				node,
				additionalData,
				'webhook',
				webhookData,
				[],
				null,
			);
			result = (await nodeType.webhook!.call(context)) as IWebhookResponseData;
			call.response = result;
		} catch (error) {
			call.error = error as Error;
			sendError(res, 500, {
				code: 0,
				message: 'Workflow Webhook Error: Workflow could not be started!',
			});
			call.statusCode = res.statusCode;
			return;
		}

		if (result.workflowData !== undefined) {
			started.push(result.workflowData);
			if (result.noWebhookResponse !== true) {
				let body: unknown;
				if (responseData === 'noData') body = undefined;
				else if (responseData) body = responseData;
				else if (result.webhookResponse !== undefined) body = result.webhookResponse;
				else body = { message: 'Workflow was started' };
				sendStatic(res, body, responseCode);
			}
		} else if (result.noWebhookResponse !== true) {
			sendStatic(
				res,
				result.webhookResponse !== undefined
					? result.webhookResponse
					: { message: 'Webhook call received' },
				responseCode,
			);
		}
		call.statusCode = res.statusCode;
	};

	const server: Server = createServer((req, res) => {
		handle(req, res).catch((error: Error) => {
			if (!res.headersSent) {
				res.statusCode = 500;
				res.setHeader('Content-Type', 'application/json; charset=utf-8');
				res.end(JSON.stringify({ code: 0, message: error.message }));
			} else {
				res.destroy(error);
			}
		});
	});
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	const { port } = server.address() as AddressInfo;
	baseUrl = `http://127.0.0.1:${port}/webhook`;

	const routeAdditionalData = buildAdditionalData(store, {
		webhookBaseUrl: baseUrl,
		webhookTestBaseUrl: baseUrl,
	});
	routes = getNodeWebhooks(probe.workflow, probe.node, probe.nodeType, routeAdditionalData);
	const url = `${baseUrl}/${routes[0].path}`;

	return {
		url,
		baseUrl,
		started,
		get calls() {
			return state.calls;
		},
		log,
		credentialStore: store,
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
