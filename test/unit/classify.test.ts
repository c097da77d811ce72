import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';

import {
	classify,
	type Classification,
	errorMayHaveCarriedOut,
	kindOfError,
} from '../../nodes/shared/transport/classify';
import { attemptOutcomeOf } from '../../nodes/shared/transport/adaptiveConcurrency';
import type { Failure, Repeatability } from '../../nodes/shared/transport/types';

const node: INode = {
	id: '1',
	name: 'CIS',
	type: 'cisAutoCall',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

type Expected = Pick<
	Classification,
	'kind' | 'repeat' | 'outcomeUnknown' | 'overload' | 'endsRun'
> & { waitMs?: number };

const cases: Array<[string, Failure, Repeatability, Expected]> = [
	[
		'429 with Retry-After: repeat after the asked wait',
		{ status: 429, retryAfterMs: 1500, message: '' },
		'create',
		{
			kind: 'tooManyRequests',
			repeat: true,
			waitMs: 1500,
			outcomeUnknown: false,
			overload: true,
			endsRun: false,
		},
	],
	[
		'429 without Retry-After: repeat with the normal backoff',
		{ status: 429, message: '' },
		'safe',
		{
			kind: 'tooManyRequests',
			repeat: true,
			waitMs: undefined,
			outcomeUnknown: false,
			overload: true,
			endsRun: false,
		},
	],
	[
		'503 with Retry-After: only a 429 sets the wait',
		{ status: 503, retryAfterMs: 1500, message: '' },
		'safe',
		{
			kind: 'serverError',
			repeat: true,
			waitMs: undefined,
			outcomeUnknown: false,
			overload: true,
			endsRun: false,
		},
	],
	[
		'500 of a creating request: outcome unknown, not repeated',
		{ status: 500, message: '' },
		'create',
		{ kind: 'serverError', repeat: false, outcomeUnknown: true, overload: true, endsRun: false },
	],
	[
		'500 of a de-duplicated creation: repeated, still unknown if it fails for good',
		{ status: 500, message: '' },
		'createOnce',
		{ kind: 'serverError', repeat: true, outcomeUnknown: true, overload: true, endsRun: false },
	],
	[
		'connection refused: never sent, repeated even when creating',
		{ code: 'ECONNREFUSED', message: '' },
		'create',
		{ kind: 'unreachable', repeat: true, outcomeUnknown: false, overload: true, endsRun: false },
	],
	[
		'dropped connection of a creating request: outcome unknown',
		{ code: 'ECONNRESET', message: '' },
		'create',
		{ kind: 'noAnswer', repeat: false, outcomeUnknown: true, overload: true, endsRun: false },
	],
	[
		'timeout of a safe request: repeated',
		{ code: 'ETIMEDOUT', message: '' },
		'safe',
		{ kind: 'noAnswer', repeat: true, outcomeUnknown: false, overload: true, endsRun: false },
	],
	[
		'cancelled safe request: not repeated',
		{ code: 'ERR_CANCELED', message: '' },
		'safe',
		{ kind: 'noAnswer', repeat: false, outcomeUnknown: false, overload: true, endsRun: false },
	],
	[
		'redirect: never followed nor repeated',
		{ status: 302, redirectHost: 'elsewhere.example', message: '' },
		'createOnce',
		{ kind: 'redirect', repeat: false, outcomeUnknown: true, overload: false, endsRun: false },
	],
	[
		'unexpected 2xx of a de-duplicated creation: not repeated, unknown',
		{ status: 200, unexpected: 'no id', message: '' },
		'createOnce',
		{
			kind: 'unexpectedAnswer',
			repeat: false,
			outcomeUnknown: true,
			overload: false,
			endsRun: false,
		},
	],
	[
		'401: renew the login, or stop the run',
		{ status: 401, message: '' },
		'create',
		{ kind: 'unauthorized', repeat: false, outcomeUnknown: false, overload: false, endsRun: true },
	],
	[
		'failed login: nothing sent, stop the run',
		{ code: 'CIS_LOGIN_FAILED', message: '' },
		'safe',
		{ kind: 'loginFailed', repeat: false, outcomeUnknown: false, overload: false, endsRun: true },
	],
	[
		'credential refused the address: nothing sent',
		{ code: 'CIS_REFUSED', message: '' },
		'create',
		{
			kind: 'refusedByCredential',
			repeat: false,
			outcomeUnknown: false,
			overload: false,
			endsRun: false,
		},
	],
	[
		'400: refused input',
		{ status: 400, message: '' },
		'create',
		{ kind: 'refusedInput', repeat: false, outcomeUnknown: false, overload: false, endsRun: false },
	],
	[
		'422: refused input',
		{ status: 422, message: '' },
		'safe',
		{ kind: 'refusedInput', repeat: false, outcomeUnknown: false, overload: false, endsRun: false },
	],
	[
		'404: not found',
		{ status: 404, message: '' },
		'safe',
		{ kind: 'notFound', repeat: false, outcomeUnknown: false, overload: false, endsRun: false },
	],
	[
		'409: conflict',
		{ status: 409, message: '' },
		'safe',
		{ kind: 'conflict', repeat: false, outcomeUnknown: false, overload: false, endsRun: false },
	],
	[
		'403: refused',
		{ status: 403, message: '' },
		'create',
		{ kind: 'refused', repeat: false, outcomeUnknown: false, overload: false, endsRun: false },
	],
];

describe('classify: one table of failure rules', () => {
	test.each(cases)('%s', (_name, failure, repeatability, expected) => {
		const rule = classify({ repeatability }, failure);
		expect(rule).toMatchObject(expected);
		expect(rule.renewLogin).toBe(expected.kind === 'unauthorized');
		expect(rule.refusedByService).toBe(
			failure.status !== undefined && failure.status >= 400 && failure.status < 500,
		);
	});

	test('a safe request is never "outcome unknown", whatever happened', () => {
		for (const [, failure] of cases)
			expect(classify({ repeatability: 'safe' }, failure).outcomeUnknown).toBe(false);
	});

	test('what the adaptive concurrency learns from an attempt', () => {
		expect(attemptOutcomeOf(undefined, 12)).toEqual({ kind: 'answer', latencyMs: 12 });
		expect(attemptOutcomeOf({ status: 404, message: '' }, 12)).toEqual({
			kind: 'answer',
			latencyMs: 12,
		});
		expect(attemptOutcomeOf({ status: 302, message: '' }, 12)).toEqual({
			kind: 'answer',
			latencyMs: 12,
		});
		expect(attemptOutcomeOf({ status: 429, message: '' }, 12)).toEqual({ kind: 'overload' });
		expect(attemptOutcomeOf({ status: 502, message: '' }, 12)).toEqual({ kind: 'overload' });
		expect(attemptOutcomeOf({ code: 'ECONNRESET', message: '' }, 12)).toEqual({ kind: 'overload' });
		expect(attemptOutcomeOf({ code: 'CIS_LOGIN_FAILED', message: '' }, 12)).toEqual({
			kind: 'notSent',
		});
		expect(attemptOutcomeOf({ code: 'CIS_REFUSED', message: '' }, 12)).toEqual({ kind: 'notSent' });
	});
});

describe('what an error the client threw tells', () => {
	const apiError = (httpCode: string) =>
		new NodeApiError(node, { httpCode }, { httpCode, message: `HTTP ${httpCode}` });

	test('the kind behind its status (the trigger: 404, 409, 422 mean "cannot be taken back")', () => {
		expect(kindOfError(apiError('404'))).toBe('notFound');
		expect(kindOfError(apiError('409'))).toBe('conflict');
		expect(kindOfError(apiError('422'))).toBe('refusedInput');
		expect(kindOfError(apiError('500'))).toBe('serverError');
		expect(kindOfError(new NodeOperationError(node, 'no status'))).toBeUndefined();
		expect(kindOfError(new Error('plain'))).toBeUndefined();
	});

	test('whether it may have been carried out: the client\'s own verdict first, else only a 4xx proves "no"', () => {
		const marked = apiError('500');
		marked.context.outcomeUnknown = false;
		expect(errorMayHaveCarriedOut(marked)).toBe(false);
		const unknown = apiError('400');
		unknown.context.outcomeUnknown = true;
		expect(errorMayHaveCarriedOut(unknown)).toBe(true);
		expect(errorMayHaveCarriedOut(apiError('422'))).toBe(false);
		expect(errorMayHaveCarriedOut(apiError('503'))).toBe(true);
		expect(errorMayHaveCarriedOut(new NodeOperationError(node, 'anything'))).toBe(true);
	});
});
