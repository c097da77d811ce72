import type { IDataObject, IN8nHttpFullResponse } from 'n8n-workflow';

import { redirectHost } from '../serviceUrl';
import { ssrfBlockOf } from '../ssrfBlock';
import { INVALID_JSON, isPlainObject, parseJson } from '../validation';
import {
	type AnswerCheck,
	type Failure,
	LOGIN_FAILED_CODE,
	REFUSED_CODE,
	SSRF_BLOCKED_CODE,
} from './types';

/** Reads what went wrong with one attempt (an error n8n's HTTP helper threw, or an answer that is not a success) into a Failure. */
export function readFailure(error: unknown, url?: string): Failure {
	const outer = (error ?? {}) as IDataObject & { cause?: IDataObject; message?: string };
	const candidates = [outer, outer.cause as IDataObject | undefined].filter(isPlainObject);
	let status: number | undefined;
	let code: string | undefined;
	let body: unknown;
	let headers: IDataObject | undefined;
	for (const source of candidates) {
		const response = source.response as IDataObject | undefined;
		status ??=
			toStatus(response?.status) ?? toStatus(source.httpCode) ?? toStatus(source.statusCode);
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
	const blocked = ssrfBlockOf(error, url);
	if (blocked) return { code: SSRF_BLOCKED_CODE, blocked, message: String(outer.message ?? '') };
	const messageText = String(outer.message ?? '');
	// n8n replaces the message of a network error; axios' own words stay on the cause.
	const causeText = typeof outer.cause?.message === 'string' ? outer.cause.message : '';
	// axios reports its `timeout` as ECONNABORTED "timeout of 1000ms exceeded".
	if (
		(!code || code === 'ECONNABORTED') &&
		/timeout|timed out/i.test(`${messageText} ${causeText}`)
	)
		code = 'ETIMEDOUT';
	if (!code && /socket hang up|other side closed|ECONNRESET/i.test(messageText))
		code = 'ECONNRESET';
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
		redirectHost:
			status >= 300 && status < 400
				? redirectHost(readHeader(headers, 'location'), requestUrl)
				: undefined,
		message: answer.statusMessage ?? `HTTP ${status}`,
	};
}

export function isFullResponse(answer: unknown): answer is IN8nHttpFullResponse {
	return (
		typeof answer === 'object' &&
		answer !== null &&
		typeof (answer as IN8nHttpFullResponse).statusCode === 'number'
	);
}

/** Undefined when the answer is a success: a 2xx that passes the checks. */
export function judgeAnswer(
	answer: unknown,
	expect: AnswerCheck | undefined,
	url: string,
): Failure | undefined {
	const full = isFullResponse(answer)
		? answer
		: ({ body: answer, headers: {}, statusCode: 200 } as IN8nHttpFullResponse);
	const status = full.statusCode;
	if (status < 200 || status >= 300) return failureOfAnswer(full, url);
	const problem = checkAnswer(full, expect);
	return problem === undefined
		? undefined
		: { status, body: parseBody(full.body), unexpected: problem, message: problem };
}

/** What is wrong with a 2xx answer: an HTML or XML page is never a success, whatever the request's own check says. */
function checkAnswer(
	answer: IN8nHttpFullResponse,
	expect: AnswerCheck | undefined,
): string | undefined {
	const contentType = readHeader(answer.headers as IDataObject | undefined, 'content-type') ?? '';
	const body = answer.body;
	if (/html/i.test(contentType) || (typeof body === 'string' && /^\s*</.test(body))) {
		return 'an HTML or XML page, not JSON';
	}
	return expect?.(body);
}

function toStatus(value: unknown): number | undefined {
	const number = typeof value === 'string' ? Number(value) : value;
	return typeof number === 'number' && Number.isInteger(number) && number >= 100 && number < 600
		? number
		: undefined;
}

function parseBody(body: unknown): unknown {
	if (typeof body === 'string') {
		const parsed = parseJson(body);
		return parsed === INVALID_JSON ? body : parsed;
	}
	if (typeof Buffer !== 'undefined' && Buffer.isBuffer(body))
		return parseBody(body.toString('utf8'));
	return body;
}

/** A header of an answer, whatever shape n8n gave the headers (object or Headers). */
export function readHeader(headers: IDataObject | undefined, name: string): string | undefined {
	if (!headers) return undefined;
	const getter = (headers as { get?: (key: string) => unknown }).get;
	const value =
		typeof getter === 'function'
			? getter.call(headers, name)
			: (headers[name] ?? headers[name.toLowerCase()]);
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
