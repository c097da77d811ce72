import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
} from 'n8n-workflow';

import type { SsrfBlock } from '../ssrfBlock';

/**
 * What a request to the service is and what can go wrong with it. Imports nothing of the
 * transport, so every other transport file can depend on it without a circle.
 */

/** Where the service's API lives below the Base URL; request paths are relative to it. */
export const API_PATH = '/cis/api/v1/';

/** Every n8n context that sends requests: executions, activation hooks, list searches. */
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

/** What a request to the service is: its endpoint, body, how safe it is to repeat, what its success looks like. */
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
	/** n8n's SSRF protection refused the address before connecting (code SSRF_BLOCKED_CODE): nothing was sent. */
	blocked?: SsrfBlock;
	message: string;
}

/** The login credential marks its own failures (`cisLoginFailed`): no request was sent, nothing to repeat. */
export const LOGIN_FAILED_CODE = 'CIS_LOGIN_FAILED';

/** n8n's SSRF protection blocked the request before it left n8n: nothing was sent. */
export const SSRF_BLOCKED_CODE = 'N8N_SSRF_BLOCKED';

/** The credential refused to add the token (`cisRefused`: address not allowed): nothing was sent. */
export const REFUSED_CODE = 'CIS_REFUSED';
