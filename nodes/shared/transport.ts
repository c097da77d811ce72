import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { AdaptiveConcurrency, type AttemptOutcome } from './adaptiveConcurrency';
import { insecureUrlProblem, redirectHost } from './serviceUrl';
import { isPlainObject } from './validation';

export const API_PATH = '/cis/api/v1/';

export type RequestContext = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions;

/**
 * How safe a request is to send again when its outcome is unknown (timeout, dropped
 * connection, 5xx):
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
	/**
	 * Requests in flight at once (used by the callers' pools; kept here so all share one setting);
	 * with `adaptiveConcurrency` the most in flight at once.
	 */
	concurrency: number;
	/** Start low and find how many requests in flight the service takes (see AdaptiveConcurrency). */
	adaptiveConcurrency?: boolean;
	/** Empty/0 = no limit. Shared by every request made through one client. */
	maxRequestsPerSecond: number;
	maxRetries: number;
	timeoutMs: number;
}

export const DEFAULT_TRANSPORT_SETTINGS: TransportSettings = {
	concurrency: 5,
	adaptiveConcurrency: false,
	maxRequestsPerSecond: 0,
	maxRetries: 3,
	timeoutMs: 30000,
};

export const CREDENTIAL_BY_AUTHENTICATION: Record<string, string> = {
	accessToken: 'cisAutoCallApi',
	login: 'cisAutoCallLoginApi',
};

/** What went wrong with one attempt: an error n8n's HTTP helper threw, or an answer that is not a success. */
export interface Failure {
	status?: number;
	/** Network error code such as ECONNREFUSED, ECONNRESET, ETIMEDOUT. */
	code?: string;
	body?: unknown;
	retryAfterMs?: number;
	/** For a 3xx answer: the host its Location points to (never followed). */
	redirectHost?: string;
	/** For a 2xx answer that is not what the API promises: what is wrong with it. */
	unexpected?: string;
	message: string;
}

/** The login credential marks its own failures (`cisLoginFailed`): no request was sent, nothing to repeat. */
export const LOGIN_FAILED_CODE = 'CIS_LOGIN_FAILED';
/** The credential refused to add the token (`cisRefused`: address not allowed): nothing was sent. */
export const REFUSED_CODE = 'CIS_REFUSED';

/** Failures where the request never reached the service: repeating it cannot create anything twice. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

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
	if (outer.cause?.cisRefused === true) code = REFUSED_CODE;
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

/** A non-2xx answer (n8n was told not to throw for them, nor to follow redirects). */
function failureOfAnswer(answer: IN8nHttpFullResponse, requestUrl: string): Failure {
	const headers = answer.headers as IDataObject | undefined;
	const status = answer.statusCode;
	return {
		status,
		body: parseBody(answer.body),
		retryAfterMs: parseRetryAfter(readHeader(headers, 'retry-after')),
		redirectHost: status >= 300 && status < 400 ? redirectHost(readHeader(headers, 'location'), requestUrl) : undefined,
		message: answer.statusMessage ?? `HTTP ${status}`,
	};
}

/** What is wrong with a 2xx answer: an HTML or XML page is never a success, whatever the request's own check says. */
function checkAnswer(answer: IN8nHttpFullResponse, expect: AnswerCheck | undefined): string | undefined {
	const contentType = readHeader(answer.headers as IDataObject | undefined, 'content-type') ?? '';
	const body = answer.body;
	if (/html/i.test(contentType) || (typeof body === 'string' && /^\s*</.test(body))) {
		return 'an HTML or XML page, not JSON';
	}
	return expect?.(body);
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

/**
 * `Retry-After` in seconds or as an HTTP date. Zero, negative, a date in the past or anything
 * unreadable gives undefined: the normal backoff applies, never an immediate repeat.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
	if (value === undefined || value.trim() === '') return undefined;
	if (/^\s*[+-]?\d+(\.\d+)?\s*$/.test(value)) {
		const ms = Math.round(Number(value) * 1000);
		return ms > 0 ? ms : undefined;
	}
	if (!/[a-z]/i.test(value)) return undefined;
	const date = Date.parse(value);
	if (Number.isNaN(date) || date <= now) return undefined;
	return date - now;
}

/**
 * Whether a failure leaves open whether the service carried the request out: it was sent and
 * the answer (if any) does not say. A 5xx, a redirect (not followed), a 2xx that is not what the
 * API promises, a timeout, a dropped connection or any network error not known to happen before
 * sending.
 */
export function isOutcomeUnknown(failure: Failure): boolean {
	if (failure.code === LOGIN_FAILED_CODE || failure.code === REFUSED_CODE) return false;
	if (failure.status !== undefined) {
		return failure.status >= 500 || (failure.status >= 300 && failure.status < 400) || failure.unexpected !== undefined;
	}
	return !(failure.code && NOT_SENT_CODES.has(failure.code));
}

export type RetryDecision = { retry: true; delayMs?: number } | { retry: false; uncertain: boolean };

/**
 * The retry rules; pure, so they can be tested case by case. `uncertain`: a creating request may
 * have been carried out. A creating request is never repeated after an unknown outcome, except
 * one the service de-duplicates (`createOnce`). Redirects and unexpected answers are never repeated.
 */
export function decideRetry(failure: Failure, repeatability: Repeatability): RetryDecision {
	if (failure.code === LOGIN_FAILED_CODE || failure.code === REFUSED_CODE) return { retry: false, uncertain: false };
	if (failure.status === 429) return { retry: true, delayMs: failure.retryAfterMs };
	if (failure.code && NOT_SENT_CODES.has(failure.code)) return { retry: true };
	if (!isOutcomeUnknown(failure)) return { retry: false, uncertain: false };
	const uncertain = repeatability !== 'safe';
	const answeredOddly = failure.redirectHost !== undefined || failure.unexpected !== undefined;
	if (repeatability === 'create' || answeredOddly || failure.code === 'ERR_CANCELED') return { retry: false, uncertain };
	return { retry: true };
}

/** Longest wait before a retry; when the service asks for longer, the item fails and says so. */
export const MAX_WAIT_MS = 60000;

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

/** One attempt: the answer as it came (any status), or the failure n8n's helper threw. */
interface Attempt {
	answer?: IN8nHttpFullResponse;
	failure?: Failure;
	/** The token the request carried (login credential). */
	tokenUsed?: string;
}

export class ApiClient {
	private readonly limiter: RateLimiter;

	/** With adaptive concurrency: how many requests may be in flight now. */
	private readonly inFlight?: AdaptiveConcurrency;

	/** Why the credential's addresses may not be used (plain http:// to another machine), if so. */
	private readonly refusal?: string;

	/** The login credential can get a fresh token; the access-token credential cannot. */
	private readonly renewsToken: boolean;

	/** Settles when the request that is logging in has its answer; the others wait for its token. */
	private login?: Promise<void>;

	/** This run has logged in: when the service rejects that token too, logging in again will not help. */
	private loggedIn = false;

	/** The token was rejected (or the login failed): every later request of the run fails at once, unsent. */
	private stop?: NodeApiError;

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
		if (settings.adaptiveConcurrency) {
			this.inFlight = new AdaptiveConcurrency(Math.min(DEFAULT_TRANSPORT_SETTINGS.concurrency, settings.concurrency), settings.concurrency);
		}
		this.renewsToken = credentialType === CREDENTIAL_BY_AUTHENTICATION.login;
		const data = credentials.data ?? {};
		this.refusal =
			insecureUrlProblem('Base URL', data.baseUrl) ??
			(this.renewsToken ? insecureUrlProblem('Login URL', data.loginUrl) : undefined);
	}

	/** Sends one request with the retry rules; throws a NodeApiError that carries no secret. */
	async request<T = unknown>(request: ApiRequest, itemIndex?: number): Promise<T> {
		if (this.refusal) {
			throw new NodeOperationError(
				this.context.getNode(),
				itemIndex === undefined ? this.refusal : `${this.refusal} [item ${itemIndex}]`,
				{ itemIndex, description: 'Change the address in the credential. Nothing was sent to the service.' },
			);
		}
		const url = `${String(this.credentials.data?.baseUrl ?? '').trim().replace(/\/+$/, '')}${API_PATH}${request.path}`;
		const options: IHttpRequestOptions = {
			method: request.method,
			url,
			qs: request.qs,
			body: request.body,
			json: true,
			headers: { accept: 'application/json', 'content-type': 'application/json' },
			timeout: this.settings.timeoutMs,
			// A redirect is an answer, not an instruction: following it would carry the token elsewhere.
			disableFollowRedirect: true,
			// Every answer comes back as it is and the rules below judge it; n8n then also leaves a
			// 401 to us instead of logging in again once per request.
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
		};
		if (request.body === undefined) delete options.body;
		const fail = (failure: Failure, attempts: number, extra: { askedWaitMs?: number } = {}) =>
			toNodeApiError(this.context, request, failure, {
				attempts,
				uncertain: request.repeatability !== 'safe' && isOutcomeUnknown(failure),
				itemIndex,
				secrets: this.secrets(),
				renewsToken: this.renewsToken,
				...extra,
			});
		let attempt = 0;
		let renewed = false;
		for (;;) {
			const sent = await this.send(options);
			if (!sent) throw this.notSent(itemIndex);
			const failure = sent.failure ?? judgeAnswer(sent.answer, request.expect, url);
			if (!failure) return (isFullResponse(sent.answer) ? sent.answer.body : sent.answer) as T;
			if (failure.status === 401 || failure.code === LOGIN_FAILED_CODE) {
				if (failure.status === 401 && !renewed && this.renewToken(sent.tokenUsed)) {
					renewed = true;
					continue;
				}
				const error = fail(failure, attempt + 1);
				this.stop ??= error;
				throw error;
			}
			const decision = decideRetry(failure, request.repeatability);
			if (decision.retry && attempt < this.settings.maxRetries) {
				const delayMs = decision.delayMs ?? backoffDelay(attempt);
				if (delayMs > MAX_WAIT_MS) throw fail(failure, attempt + 1, { askedWaitMs: delayMs });
				await sleep(delayMs);
				attempt++;
				continue;
			}
			throw fail(failure, attempt + 1);
		}
	}

	/**
	 * One attempt through n8n's authenticated helper, within the rate limit. With the login
	 * credential, a request that has to log in (no token yet) goes alone: the others wait for
	 * its token instead of each logging in. Undefined: not sent, the run was stopped.
	 */
	private async send(options: IHttpRequestOptions): Promise<Attempt | undefined> {
		for (;;) {
			if (this.stop) return undefined;
			if (this.login) {
				await this.login;
				continue;
			}
			const attemptDone = this.inFlight ? await this.inFlight.acquire() : undefined;
			const release = await this.limiter.take();
			if (this.stop || this.login) {
				release();
				attemptDone?.({ kind: 'notSent' });
				continue;
			}
			const logsIn = this.renewsToken && this.currentToken() === '';
			let loginDone: () => void = () => {};
			if (logsIn) {
				this.loggedIn = true;
				this.login = new Promise<void>((resolve) => (loginDone = resolve));
			}
			const tokenBefore = this.currentToken();
			const startedAt = Date.now();
			let outcome: AttemptOutcome = { kind: 'notSent' };
			try {
				const answer = (await this.context.helpers.httpRequestWithAuthentication.call(
					this.context,
					this.credentialType,
					{ ...options },
					{ credentialsDecrypted: this.credentials },
				)) as IN8nHttpFullResponse;
				outcome = outcomeOf(isFullResponse(answer) ? answer.statusCode : 200, undefined, Date.now() - startedAt);
				return { answer, tokenUsed: logsIn ? this.currentToken() : tokenBefore };
			} catch (error) {
				const failure = readFailure(error);
				outcome = outcomeOf(failure.status, failure.code, Date.now() - startedAt);
				return { failure, tokenUsed: logsIn ? this.currentToken() : tokenBefore };
			} finally {
				release();
				attemptDone?.(outcome);
				if (logsIn) {
					this.login = undefined;
					loginDone();
				}
			}
		}
	}

	private currentToken(): string | undefined {
		return this.renewsToken ? String(this.credentials.data?.token ?? '') : undefined;
	}

	/**
	 * After a 401: whether to send the request again. Yes when another request has renewed the
	 * token meanwhile; yes, once per run, after clearing the token so that the next attempt logs
	 * in; no when the token this run logged in for was rejected too.
	 */
	private renewToken(tokenUsed: string | undefined): boolean {
		if (!this.renewsToken || this.stop || !this.credentials.data) return false;
		if (this.currentToken() !== tokenUsed) return true;
		if (this.loggedIn) return false;
		this.credentials.data.token = '';
		return true;
	}

	private secrets(): string[] {
		const data = this.credentials.data ?? {};
		return [data.accessToken, data.token, data.password].filter(
			(value): value is string => typeof value === 'string' && value.length >= 4,
		);
	}

	/** The error of an item that was not sent because the run was stopped (token rejected, login failed). */
	private notSent(itemIndex?: number): NodeApiError {
		const first = this.stop as NodeApiError;
		const message = `Not sent: ${first.message}`;
		const description = `${first.description ?? ''} Once the service has rejected the credential in a run, the remaining items are not sent.`.trim();
		const error = new NodeApiError(this.context.getNode(), { httpCode: first.httpCode, message } as JsonObject, {
			message,
			description,
			httpCode: first.httpCode ?? undefined,
			itemIndex,
		});
		error.message = message;
		error.context.outcomeUnknown = false;
		return error;
	}
}

/** What one attempt tells about the service's load (see AdaptiveConcurrency). */
function outcomeOf(status: number | undefined, code: string | undefined, latencyMs: number): AttemptOutcome {
	if (status === 429 || (status !== undefined && status >= 500)) return { kind: 'overload' };
	if (status !== undefined) return { kind: 'answer', latencyMs };
	// Nothing was sent: the credential refused or the login failed.
	if (code === LOGIN_FAILED_CODE || code === REFUSED_CODE) return { kind: 'notSent' };
	return { kind: 'overload' };
}

function isFullResponse(answer: unknown): answer is IN8nHttpFullResponse {
	return typeof answer === 'object' && answer !== null && typeof (answer as IN8nHttpFullResponse).statusCode === 'number';
}

/** Undefined when the answer is a success: a 2xx that passes the checks. */
function judgeAnswer(answer: unknown, expect: AnswerCheck | undefined, url: string): Failure | undefined {
	const full = isFullResponse(answer) ? answer : ({ body: answer, headers: {}, statusCode: 200 } as IN8nHttpFullResponse);
	const status = full.statusCode;
	if (status < 200 || status >= 300) return failureOfAnswer(full, url);
	const problem = checkAnswer(full, expect);
	return problem === undefined ? undefined : { status, body: parseBody(full.body), unexpected: problem, message: problem };
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

const RENEWED_TOKEN_REJECTED =
	'The service rejected the token even after a fresh login. Check that the account may use the API and that the Base URL and the Login URL belong to the same service.';

const NOT_REPEATED =
	'It was not repeated, because repeating a creating request can call a person twice. Look at the task on the service (its candidates and calls) before running these items again.';

function serviceMessage(body: unknown): string | undefined {
	if (typeof body === 'string') return body.trim() === '' || /^\s*</.test(body) ? undefined : body.slice(0, 500);
	if (!isPlainObject(body)) return undefined;
	const error = body.error ?? body.message;
	const text = typeof error === 'string' ? error : error !== undefined ? JSON.stringify(error) : undefined;
	const details = body.details === undefined || body.details === null ? undefined : JSON.stringify(body.details);
	return [text, details].filter(Boolean).join(' ') || undefined;
}

/** The start of an answer, for an error: short, whitespace folded. */
function excerpt(body: unknown, max = 120): string | undefined {
	if (body === undefined || body === null || body === '') return undefined;
	const text = (typeof body === 'string' ? body : JSON.stringify(body)).replace(/\s+/g, ' ').trim();
	return text.length > max ? `${text.slice(0, max)}...` : text;
}

function redact<T>(value: T, secrets: string[]): T {
	if (secrets.length === 0 || value === undefined) return value;
	const text = JSON.stringify(value);
	if (text === undefined || !secrets.some((secret) => text.includes(secret))) return value;
	let cleaned = text;
	for (const secret of secrets) cleaned = cleaned.split(secret).join('***');
	return JSON.parse(cleaned) as T;
}

export function toNodeApiError(
	context: RequestContext,
	request: ApiRequest,
	failure: Failure,
	{
		attempts,
		uncertain,
		itemIndex,
		secrets = [],
		renewsToken = false,
		askedWaitMs,
	}: {
		attempts: number;
		uncertain: boolean;
		itemIndex?: number;
		secrets?: string[];
		renewsToken?: boolean;
		askedWaitMs?: number;
	},
): NodeApiError {
	const endpoint = `${request.method} ${API_PATH}${request.path.split('?')[0]}`;
	const fromService = serviceMessage(failure.body);
	const quoted = excerpt(failure.body);
	const tried = attempts > 1 ? ` after ${attempts} attempts` : '';
	let message: string;
	let description: string;
	if (failure.unexpected !== undefined) {
		message = `Unexpected answer from the service to ${endpoint}: ${failure.status} with ${failure.unexpected}`;
		description = `The API promises another answer, so this is not a success. ${quoted ? `The answer began with: ${quoted}` : 'The answer was empty.'}`;
	} else if (failure.redirectHost !== undefined) {
		message = `The service answered ${failure.status} to ${endpoint}: a redirect to ${failure.redirectHost}, which n8n does not follow (nothing was sent there)`;
		description =
			'Redirects are not followed, so that the token and your data never reach another address. If the service has moved, set the Base URL of the credential to its new address.';
	} else if (failure.status) {
		message = `The service answered ${failure.status} to ${endpoint}${tried}${fromService ? `: ${fromService}` : ''}`;
		if (request.beyondSpec && (failure.status === 405 || (failure.status === 404 && !request.notFoundMeans))) {
			message = `This operation is not available on that server (${failure.status} for ${endpoint})`;
			description =
				'It uses a call of the service that is not part of its published API, and this server does not offer it.';
		} else if (failure.status === 404 && request.notFoundMeans) {
			description = request.notFoundMeans;
		} else if (failure.status === 400 || failure.status === 422) {
			description = `The service refused the request: ${fromService ?? 'no reason given'}`;
		} else if (failure.status === 401 && renewsToken) {
			description = RENEWED_TOKEN_REJECTED;
		} else {
			description = HINT_BY_STATUS[failure.status] ?? (failure.status >= 500 ? 'The service failed; try again later.' : 'See the service\'s answer above.');
		}
	} else if (failure.code === LOGIN_FAILED_CODE) {
		message = failure.message;
		description = 'n8n could not get a token; nothing was sent to the service. Check the Login URL, email and password of the credential.';
	} else if (failure.code === REFUSED_CODE) {
		message = failure.message;
		description = 'The credential refused to send its token there; nothing was sent to the service. Check the Base URL of the credential.';
	} else {
		message = `No answer from the service for ${endpoint}${tried}: ${networkReason(failure)}`;
		description = 'Check the Base URL of the credential and that the service is reachable from n8n.';
	}
	if (askedWaitMs !== undefined) {
		message = `The service answered ${failure.status} to ${endpoint} and asked to wait ${Math.ceil(askedWaitMs / 1000)} s before the next request, longer than the ${MAX_WAIT_MS / 1000} s this node waits`;
		description = 'Nothing was carried out. Run these items again later, or lower "Max Requests per Second" or "Concurrency" in the options.';
	}
	if (uncertain) {
		const why =
			failure.unexpected !== undefined
				? `the service answered ${failure.status} with an unexpected body (${failure.unexpected})`
				: failure.redirectHost !== undefined
					? `the service answered ${failure.status}, a redirect to ${failure.redirectHost} that n8n does not follow`
					: failure.status
						? `the service answered ${failure.status} after the request was sent`
						: `${networkReason(failure)} after the request was sent`;
		message = `Outcome unknown for ${endpoint}${tried}: ${why}. It may have been created; check the task before running again`;
		const answer = failure.unexpected !== undefined ? (quoted ? ` The answer began with: ${quoted}` : ' The answer was empty.') : fromService ? ` The service said: ${fromService}` : '';
		description = `${NOT_REPEATED}${answer}`;
	}
	const errorBody: JsonObject = {
		httpCode: failure.status ? String(failure.status) : null,
		error: fromService ?? null,
	};
	if (failure.unexpected !== undefined) errorBody.body = quoted ?? null;
	else if (failure.body !== undefined) errorBody.body = (typeof failure.body === 'string' ? excerpt(failure.body, 1000) : failure.body) as JsonObject;
	const error = new NodeApiError(context.getNode(), redact(errorBody, secrets), {
		message: redact(message, secrets),
		description: redact(description, secrets),
		httpCode: failure.status ? String(failure.status) : undefined,
		itemIndex,
	});
	// NodeApiError swaps a message that contains a network code (ECONNRESET, ...) for a generic
	// sentence, which would drop the endpoint, the attempts and "outcome unknown".
	error.message = redact(message, secrets);
	// For the callers: whether a creating request may have been carried out (see mayHaveCreated).
	error.context.outcomeUnknown = uncertain;
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
	EPROTO: 'the connection failed (protocol error)',
};

function networkReason(failure: Failure): string {
	const words = failure.code ? NETWORK_REASONS[failure.code] : undefined;
	if (words) return `${words} (${failure.code})`;
	return failure.code ?? (failure.message || 'no answer');
}
