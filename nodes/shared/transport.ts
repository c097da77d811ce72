import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import { isPlainObject } from './validation';

export const API_PATH = '/cis/api/v1/';

export type RequestContext = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions;

/**
 * How safe a request is to send again when its outcome is unknown (timeout, dropped
 * connection, 502/503/504):
 * - `safe`: repeating changes nothing more (depersonalize, delete a recording, reads);
 * - `create`: a repeat may create a second task or dial a person twice;
 * - `createOnce`: a creation that the service de-duplicates (a candidate with `clientExternalId`).
 */
export type Repeatability = 'safe' | 'create' | 'createOnce';

/**
 * Checks a 2xx answer against what the API promises for that request: returns what is wrong
 * (e.g. "no id.identity in the answer"), or undefined when the answer is as promised.
 */
export type AnswerCheck = (answer: unknown) => string | undefined;

export interface ApiRequest {
	method: IHttpRequestMethods;
	/** Relative to /cis/api/v1/, e.g. `telephony/autoCall`. */
	path: string;
	body?: IDataObject | IDataObject[];
	qs?: IDataObject;
	repeatability: Repeatability;
	/** Words for errors, e.g. "this operation is not available on that server" for a 404 of an optional endpoint. */
	notFoundMeans?: string;
	/** Set for endpoints that are not in the spec: a 404/405 then means the server does not offer them. */
	beyondSpec?: boolean;
	/** What a success looks like; an answer that fails it is not a success (see AnswerCheck). */
	expect?: AnswerCheck;
}

export interface TransportSettings {
	/** Requests in flight at once (used by the callers' pools; kept here so all share one setting). */
	concurrency: number;
	/** Empty/0 = no limit. Shared by every request made through one client. */
	maxRequestsPerSecond: number;
	maxRetries: number;
	timeoutMs: number;
	/** Whether creating requests may be repeated after an unknown outcome (risk of duplicate calls). */
	retryUncertainCreates: boolean;
}

export const DEFAULT_TRANSPORT_SETTINGS: TransportSettings = {
	concurrency: 5,
	maxRequestsPerSecond: 0,
	maxRetries: 3,
	timeoutMs: 30000,
	retryUncertainCreates: false,
};

export const CREDENTIAL_BY_AUTHENTICATION: Record<string, string> = {
	accessToken: 'cisAutoCallApi',
	login: 'cisAutoCallLoginApi',
};

/** What went wrong with one attempt, read from whatever error shape n8n's HTTP helper produced. */
export interface Failure {
	status?: number;
	/** Network error code such as ECONNREFUSED, ECONNRESET, ETIMEDOUT. */
	code?: string;
	body?: unknown;
	retryAfterMs?: number;
	message: string;
}

/** The login credential marks its own failures (`cisLoginFailed`): no request was sent, nothing to repeat. */
export const LOGIN_FAILED_CODE = 'CIS_LOGIN_FAILED';

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const UNKNOWN_OUTCOME_CODES = new Set([
	'ECONNRESET',
	'ETIMEDOUT',
	'ECONNABORTED',
	'EPIPE',
	'ESOCKETTIMEDOUT',
	'UND_ERR_SOCKET',
	'ERR_CANCELED',
]);
const UNKNOWN_OUTCOME_STATUSES = new Set([502, 503, 504]);

export function readFailure(error: unknown): Failure {
	const outer = (error ?? {}) as IDataObject & { cause?: IDataObject; message?: string };
	const candidates = [outer, outer.cause as IDataObject | undefined].filter(isPlainObjectLike);
	let status: number | undefined;
	let code: string | undefined;
	let body: unknown;
	let headers: IDataObject | undefined;
	for (const source of candidates) {
		const response = source.response as IDataObject | undefined;
		status ??= toStatus(response?.status) ?? toStatus(source.httpCode) ?? toStatus(source.statusCode);
		code ??= typeof source.code === 'string' ? source.code : undefined;
		body ??= response?.data ?? response?.body;
		headers ??= response?.headers as IDataObject | undefined;
	}
	if (body === undefined) {
		const context = (outer as { context?: IDataObject }).context;
		body = context?.data;
	}
	if (outer.cause?.cisLoginFailed === true) code = LOGIN_FAILED_CODE;
	const messageText = String(outer.message ?? '');
	// n8n replaces the message of a network error; axios' own words stay on the cause.
	const causeText = typeof outer.cause?.message === 'string' ? outer.cause.message : '';
	// axios reports its `timeout` as ECONNABORTED "timeout of 1000ms exceeded".
	if ((!code || code === 'ECONNABORTED') && /timeout|timed out/i.test(`${messageText} ${causeText}`)) code = 'ETIMEDOUT';
	if (!code && /socket hang up|other side closed|ECONNRESET/i.test(messageText)) code = 'ECONNRESET';
	if (!code && /ECONNREFUSED/.test(messageText)) code = 'ECONNREFUSED';
	return {
		status,
		code: status ? undefined : code,
		body: parseBody(body),
		retryAfterMs: parseRetryAfter(readHeader(headers, 'retry-after')),
		message: causeText || messageText,
	};
}

function isPlainObjectLike(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null;
}

function toStatus(value: unknown): number | undefined {
	const number = typeof value === 'string' ? Number(value) : value;
	return typeof number === 'number' && Number.isInteger(number) && number >= 100 && number < 600
		? number
		: undefined;
}

function parseBody(body: unknown): unknown {
	if (typeof body === 'string') {
		try {
			return JSON.parse(body);
		} catch {
			return body;
		}
	}
	if (typeof Buffer !== 'undefined' && Buffer.isBuffer(body)) return parseBody(body.toString('utf8'));
	return body;
}

function readHeader(headers: IDataObject | undefined, name: string): string | undefined {
	if (!headers) return undefined;
	const getter = (headers as { get?: (key: string) => unknown }).get;
	const value = typeof getter === 'function' ? getter.call(headers, name) : headers[name] ?? headers[name.toLowerCase()];
	return value === undefined || value === null ? undefined : String(value);
}

/** `Retry-After` in seconds or as an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
	if (value === undefined || value.trim() === '') return undefined;
	if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.round(Number(value) * 1000);
	const date = Date.parse(value);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

export type RetryDecision = { retry: true; delayMs?: number } | { retry: false; uncertain: boolean };

/** The retry rules; pure, so they can be tested case by case. */
export function decideRetry(failure: Failure, repeatability: Repeatability, retryUncertainCreates: boolean): RetryDecision {
	if (failure.code === LOGIN_FAILED_CODE) return { retry: false, uncertain: false };
	if (failure.status === 429) return { retry: true, delayMs: failure.retryAfterMs };
	if (failure.code && NOT_SENT_CODES.has(failure.code)) return { retry: true };
	const uncertain =
		(failure.status !== undefined && UNKNOWN_OUTCOME_STATUSES.has(failure.status)) ||
		(failure.status === undefined && (failure.code === undefined || UNKNOWN_OUTCOME_CODES.has(failure.code)));
	if (!uncertain) return { retry: false, uncertain: false };
	if (repeatability === 'safe' || repeatability === 'createOnce' || retryUncertainCreates) return { retry: true };
	return { retry: false, uncertain: true };
}

/** Longest single wait before a retry, whatever Retry-After asks for. */
const MAX_WAIT_MS = 60000;

export function backoffDelay(attempt: number, random: () => number = Math.random): number {
	const ceiling = Math.min(30000, 500 * 2 ** attempt);
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * At most `perSecond` requests in any second, as the service counts them; shared by one node run.
 * Starts are spaced evenly, and each request holds one of `perSecond` turns until a second after
 * its answer: however late a request reaches the service (connection set-up, authentication,
 * network), the request that takes its turn next reaches it at least a second later. Even spacing
 * alone lets a little jitter put `perSecond + 1` requests into one second at the service.
 */
export class RateLimiter {
	private nextStart = 0;

	private turn = 0;

	private readonly turns: Array<Promise<void>>;

	private readonly holdMs: number;

	constructor(private readonly perSecond: number) {
		const count = perSecond > 0 ? Math.max(1, Math.floor(perSecond)) : 0;
		this.turns = Array.from({ length: count }, () => Promise.resolve());
		// A fractional rate such as 2.5/s: 2 turns, each held 800 ms.
		this.holdMs = count > 0 ? (count * 1000) / perSecond : 0;
	}

	/** Waits until a request may start; call the returned function once its answer (or failure) is in. */
	async take(): Promise<() => void> {
		if (this.turns.length === 0) return () => {};
		const index = this.turn;
		this.turn = (index + 1) % this.turns.length;
		const previous = this.turns[index];
		let release!: () => void;
		this.turns[index] = new Promise<void>((resolve) => {
			release = () => void sleep(this.holdMs).then(resolve);
		});
		await previous;
		const now = Date.now();
		const start = Math.max(now, this.nextStart);
		this.nextStart = start + 1000 / this.perSecond;
		if (start > now) await sleep(start - now);
		return release;
	}
}

/** Runs `task` for every index with at most `limit` in flight; results keep the input order. */
export async function mapWithConcurrency<T, R>(
	inputs: readonly T[],
	limit: number,
	task: (input: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(inputs.length);
	let next = 0;
	const worker = async () => {
		while (next < inputs.length) {
			const index = next++;
			results[index] = await task(inputs[index], index);
		}
	};
	const workers = Array.from({ length: Math.max(1, Math.min(limit, inputs.length)) }, worker);
	await Promise.all(workers);
	return results;
}

export class ApiClient {
	private readonly limiter: RateLimiter;

	constructor(
		private readonly context: RequestContext,
		private readonly credentialType: string,
		/**
		 * Read once per run and handed to every request, so n8n does not load and decrypt the
		 * credential again per request; a token the login credential obtains is kept in it.
		 */
		private readonly credentials: ICredentialsDecrypted,
		readonly settings: TransportSettings,
	) {
		this.limiter = new RateLimiter(settings.maxRequestsPerSecond);
	}

	/** Sends one request with the retry rules; throws a NodeApiError that carries no secret. */
	async request<T = unknown>(request: ApiRequest, itemIndex?: number): Promise<T> {
		const options: IHttpRequestOptions = {
			method: request.method,
			url: `${String(this.credentials.data?.baseUrl ?? '').replace(/\/+$/, '')}${API_PATH}${request.path}`,
			qs: request.qs,
			body: request.body,
			json: true,
			headers: { accept: 'application/json', 'content-type': 'application/json' },
			timeout: this.settings.timeoutMs,
		};
		if (request.body === undefined) delete options.body;
		let attempt = 0;
		for (;;) {
			try {
				const release = await this.limiter.take();
				try {
					return (await this.context.helpers.httpRequestWithAuthentication.call(
						this.context,
						this.credentialType,
						{ ...options },
						{ credentialsDecrypted: this.credentials },
					)) as T;
				} finally {
					release();
				}
			} catch (error) {
				const failure = readFailure(error);
				const decision = decideRetry(failure, request.repeatability, this.settings.retryUncertainCreates);
				if (decision.retry && attempt < this.settings.maxRetries) {
					await sleep(Math.min(decision.delayMs ?? backoffDelay(attempt), MAX_WAIT_MS));
					attempt++;
					continue;
				}
				throw toNodeApiError(this.context, request, failure, {
					attempts: attempt + 1,
					uncertain: !decision.retry && decision.uncertain,
					itemIndex,
				});
			}
		}
	}
}

export async function createApiClient(
	context: RequestContext,
	settings: TransportSettings = DEFAULT_TRANSPORT_SETTINGS,
): Promise<ApiClient> {
	// Execute functions take an item index; hook and load-options functions do not.
	const authentication = (
		'getInputData' in context
			? context.getNodeParameter('authentication', 0, 'accessToken')
			: context.getNodeParameter('authentication', 'accessToken')
	) as string;
	const credentialType = CREDENTIAL_BY_AUTHENTICATION[authentication] ?? 'cisAutoCallApi';
	const data = await context.getCredentials(credentialType);
	const reference = context.getNode().credentials?.[credentialType];
	const credentials: ICredentialsDecrypted = {
		id: reference?.id ?? '',
		name: reference?.name ?? credentialType,
		type: credentialType,
		data,
	};
	return new ApiClient(context, credentialType, credentials, settings);
}

const HINT_BY_STATUS: Record<number, string> = {
	401: 'The access token is invalid or expired. Check the credential; the "CIS Auto-Call Login API" credential renews tokens by itself.',
	402: 'The service refused for a payment reason; check the account balance.',
	403: 'The token is not allowed to do this; check the permissions of the account.',
	404: 'That id does not exist on the service; check the id (a call, candidate or task id).',
	405: 'The service does not accept this request method here.',
	429: 'The service is receiving too many requests; lower "Max Requests per Second" or "Concurrency" in the options.',
};

function serviceMessage(body: unknown): string | undefined {
	if (typeof body === 'string') return body.trim() === '' ? undefined : body.slice(0, 500);
	if (!isPlainObject(body)) return undefined;
	const error = body.error ?? body.message;
	const text = typeof error === 'string' ? error : error !== undefined ? JSON.stringify(error) : undefined;
	const details = body.details === undefined || body.details === null ? undefined : JSON.stringify(body.details);
	return [text, details].filter(Boolean).join(' ') || undefined;
}

export function toNodeApiError(
	context: RequestContext,
	request: ApiRequest,
	failure: Failure,
	{ attempts, uncertain, itemIndex }: { attempts: number; uncertain: boolean; itemIndex?: number },
): NodeApiError {
	const endpoint = `${request.method} ${API_PATH}${request.path.split('?')[0]}`;
	const fromService = serviceMessage(failure.body);
	const tried = attempts > 1 ? ` after ${attempts} attempts` : '';
	let message: string;
	let description: string;
	if (failure.status) {
		message = `The service answered ${failure.status} to ${endpoint}${tried}${fromService ? `: ${fromService}` : ''}`;
		if (request.beyondSpec && (failure.status === 405 || (failure.status === 404 && !request.notFoundMeans))) {
			message = `This operation is not available on that server (${failure.status} for ${endpoint})`;
			description =
				'It uses an endpoint of the platform\'s public integrations that is not part of the CIS API spec, and this server does not offer it.';
		} else if (failure.status === 404 && request.notFoundMeans) {
			description = request.notFoundMeans;
		} else if (failure.status === 400 || failure.status === 422) {
			description = `The service refused the request: ${fromService ?? 'no reason given'}`;
		} else {
			description = HINT_BY_STATUS[failure.status] ?? (failure.status >= 500 ? 'The service failed; try again later.' : 'See the service\'s answer above.');
		}
	} else if (failure.code === LOGIN_FAILED_CODE) {
		message = failure.message;
		description = 'n8n could not get a token; nothing was sent to the service. Check the Login URL, email and password of the credential.';
	} else {
		message = `No answer from the service for ${endpoint}${tried}: ${networkReason(failure)}`;
		description = 'Check the Base URL of the credential and that the service is reachable from n8n.';
	}
	if (uncertain) {
		message = `Outcome unknown for ${endpoint}: ${failure.status ? `the service answered ${failure.status}` : networkReason(failure)} after the request was sent`;
		description =
			'The request may or may not have been carried out. It was not repeated because repeating a creating request can call a person twice. Check the service before sending it again, or turn on "Retry Creating Requests" in the options if duplicates are acceptable.';
	}
	const errorBody: JsonObject = {
		httpCode: failure.status ? String(failure.status) : null,
		error: fromService ?? null,
	};
	if (failure.body !== undefined) errorBody.body = failure.body as JsonObject;
	const error = new NodeApiError(context.getNode(), errorBody, {
		message,
		description,
		httpCode: failure.status ? String(failure.status) : undefined,
		itemIndex,
	});
	// NodeApiError swaps a message that contains a network code (ECONNRESET, ...) for a generic
	// sentence, which would drop the endpoint, the attempts and "outcome unknown".
	error.message = message;
	return error;
}

const NETWORK_REASONS: Record<string, string> = {
	ECONNREFUSED: 'the connection was refused',
	ENOTFOUND: 'the host name was not found',
	EAI_AGAIN: 'the host name could not be looked up',
	EHOSTUNREACH: 'the host is unreachable',
	ENETUNREACH: 'the network is unreachable',
	ETIMEDOUT: 'the request timed out',
	ECONNRESET: 'the connection was dropped',
	ECONNABORTED: 'the connection was aborted',
	EPIPE: 'the connection was dropped',
};

function networkReason(failure: Failure): string {
	const words = failure.code ? NETWORK_REASONS[failure.code] : undefined;
	if (words) return `${words} (${failure.code})`;
	return failure.code ?? (failure.message || 'no answer');
}
