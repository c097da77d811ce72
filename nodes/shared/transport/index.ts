import type {
	ICredentialsDecrypted,
	IDataObject,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { insecureUrlProblem } from '../serviceUrl';
import { AdaptiveConcurrency, type AttemptOutcome, attemptOutcomeOf } from './adaptiveConcurrency';
import { restatedApiError, statedOutcomeOf, toNodeApiError } from './apiErrors';
import { classify } from './classify';
import { isFullResponse, judgeAnswer, parseRetryAfter, readFailure, readHeader } from './failure';
import { RateLimiter } from './rateLimiter';
import { backoffDelay, MAX_WAIT_MS } from './retryPolicy';
import { API_PATH, type ApiRequest, type Failure, type RequestContext } from './types';

/**
 * The client of the service: one ApiClient per node run sends every request within the rate
 * limit (rateLimiter.ts), reads what went wrong (failure.ts), asks the failure rules
 * (classify.ts) whether to renew the login, wait and repeat, and reports a failure as a
 * NodeApiError (apiErrors.ts).
 */

export type { AnswerCheck, ApiRequest, Repeatability, RequestContext } from './types';
export { restatedApiError, statedOutcomeOf } from './apiErrors';
export { errorMayHaveCarriedOut, type FailureKind, kindOfError } from './classify';

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

const CREDENTIAL_BY_AUTHENTICATION: Record<string, string> = {
	accessToken: 'cisAutoCallApi',
	login: 'cisAutoCallLoginApi',
};

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
			this.inFlight = new AdaptiveConcurrency(
				Math.min(DEFAULT_TRANSPORT_SETTINGS.concurrency, settings.concurrency),
				settings.concurrency,
			);
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
				{
					itemIndex,
					description: 'Change the address in the credential. Nothing was sent to the service.',
				},
			);
		}
		const url = `${String(this.credentials.data?.baseUrl ?? '')
			.trim()
			.replace(/\/+$/, '')}${API_PATH}${request.path}`;
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
			const rule = classify(request, failure);
			if (rule.endsRun) {
				if (rule.renewLogin && !renewed && this.renewToken(sent.tokenUsed)) {
					renewed = true;
					continue;
				}
				const error = fail(failure, attempt + 1);
				this.stop ??= error;
				throw error;
			}
			if (rule.repeat && attempt < this.settings.maxRetries) {
				const delayMs = rule.waitMs ?? backoffDelay(attempt);
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
				const status = isFullResponse(answer) ? answer.statusCode : 200;
				outcome = attemptOutcomeOf(
					status >= 200 && status < 300
						? undefined
						: {
								status,
								message: '',
								retryAfterMs: parseRetryAfter(
									readHeader(answer.headers as IDataObject | undefined, 'retry-after'),
								),
							},
					Date.now() - startedAt,
				);
				return { answer, tokenUsed: logsIn ? this.currentToken() : tokenBefore };
			} catch (error) {
				const failure = readFailure(error, options.url);
				outcome = attemptOutcomeOf(failure, Date.now() - startedAt);
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

	/** The error of an item that was not sent because the run was stopped (token rejected, login failed, address blocked by n8n). */
	private notSent(itemIndex?: number): NodeApiError {
		const first = this.stop as NodeApiError;
		// An address n8n blocks already says "Not sent"; it blocks every request of the run alike.
		const blocked = statedOutcomeOf(first) === 'notSent';
		const message = blocked ? first.message : `Not sent: ${first.message}`;
		const after = blocked
			? 'The remaining items go to the same address, so they were not sent either.'
			: 'Once the service has rejected the credential in a run, the remaining items are not sent.';
		const description = `${first.description ?? ''} ${after}`.trim();
		const error = restatedApiError(this.context.getNode(), first, message, description, itemIndex);
		error.context.outcomeUnknown = false;
		error.context.statedOutcome = 'notSent';
		return error;
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
