// Helpers for the simulator's own tests: an HTTP client, a webhook receiver, valid bodies.
import * as http from 'http';
import { AddressInfo } from 'net';
import { Agent, request } from 'undici';
import type { Simulator } from '../../simulator';
import eventList from '../../nodes/shared/events.json';

export const TOKEN = 'sim-token';

export interface ApiAnswer {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
	/** parsed JSON; undefined for an empty body */
	body: any;
}

export interface CallOptions {
	body?: unknown;
	/** raw body text sent as is */
	rawBody?: string;
	/** Bearer token; null sends no Authorization header (default TOKEN) */
	token?: string | null;
	headers?: Record<string, string>;
}

/** One undici agent per test file; close it in afterAll. */
export function createClient(baseUrl: () => string) {
	const agent = new Agent({ keepAliveTimeout: 2_000 });
	async function call(method: string, path: string, options: CallOptions = {}): Promise<ApiAnswer> {
		const headers: Record<string, string> = {
			accept: 'application/json',
			...(options.headers || {}),
		};
		const token = options.token === undefined ? TOKEN : options.token;
		if (token !== null) headers.authorization = `Bearer ${token}`;
		let body: string | undefined;
		if (options.rawBody !== undefined) body = options.rawBody;
		else if (options.body !== undefined) body = JSON.stringify(options.body);
		if (
			body !== undefined &&
			!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')
		) {
			headers['content-type'] = 'application/json';
		}
		const answer = await request(`${baseUrl()}${path}`, {
			method: method as any,
			headers,
			body,
			dispatcher: agent,
		});
		const text = await answer.body.text();
		return {
			status: answer.statusCode,
			headers: answer.headers as Record<string, string | string[] | undefined>,
			text,
			body: text === '' ? undefined : JSON.parse(text),
		};
	}
	return { call, close: () => agent.close() };
}

export interface ReceivedWebhook {
	path: string;
	body: any;
	at: number;
}

export interface Receiver {
	url: string;
	received: ReceivedWebhook[];
	/** the status answered to the n-th request (0-based) */
	answerWith: (statusForRequest: (index: number, body: any) => number) => void;
	events: () => string[];
	close: () => Promise<void>;
}

/** A tiny webhook receiver on 127.0.0.1 that records JSON bodies and answers 200 by default. */
export async function startReceiver(): Promise<Receiver> {
	const received: ReceivedWebhook[] = [];
	let statusFor: (index: number, body: any) => number = () => 200;
	let count = 0;
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
			const status = statusFor(count++, body);
			received.push({ path: req.url || '/', body, at: Date.now() });
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end('{}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/hook`,
		received,
		answerWith(fn) {
			statusFor = fn;
		},
		events: () => received.map((r) => r.body.event),
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

/** A webhook target (object form) with the given events enabled. */
export function target(url: string, events: string[], extra: Record<string, unknown> = {}) {
	return {
		url,
		partialResults: false,
		delay: 0,
		events: Object.fromEntries(events.map((name) => [name, { name, value: true }])),
		...extra,
	};
}

/** Every webhook event, from the one list (nodes/shared/events.json). */
export const ALL_EVENTS = eventList.map((event) => event.value);

const noRedial = { redial: false };

/** A complete, valid 4.6 body. */
export function validTaskBody(overrides: Record<string, unknown> = {}): Record<string, any> {
	return {
		name: 'Spring campaign',
		defaultExec: 'robot',
		defaultExecData: 'bot-1',
		secondExec: 'end',
		cidType: 'default',
		startType: 'manual',
		cps: 1.03,
		additionalOptions: {
			fullListMethod: 'reject',
			fullListTime: 30,
			recordCall: true,
			recTrimLeft: 0,
		},
		redialStrategyOptions: {
			redialStrategyEn: false,
			busy: noRedial,
			noAnswer: noRedial,
			answerMash: noRedial,
			congestion: noRedial,
			answerNoList: noRedial,
		},
		...overrides,
	};
}

/** Deep copy with `path` ('a.b.c') set to `value`; undefined deletes it. */
export function withField(
	body: Record<string, any>,
	path: string,
	value: unknown,
): Record<string, any> {
	const copy = JSON.parse(JSON.stringify(body));
	const keys = path.split('.');
	let node = copy;
	for (const key of keys.slice(0, -1)) {
		if (node[key] === undefined) node[key] = {};
		node = node[key];
	}
	const last = keys[keys.length - 1];
	if (value === undefined) delete node[last];
	else node[last] = value;
	return copy;
}

export const CIS = '/cis/api/v1';

/** Waits until `predicate` holds (polling), or fails after `timeoutMs`. */
export async function waitFor(
	predicate: () => boolean,
	timeoutMs = 5_000,
	what = 'condition',
): Promise<void> {
	const started = Date.now();
	while (!predicate()) {
		if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 5));
	}
}

export type { Simulator };
