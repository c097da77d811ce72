import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { allowedNumbersOption, maxCallsPerRunOption } from '../guardrails';
import { repeatProtectionOption } from './repeatProtectionOption';
import { DEFAULT_TRANSPORT_SETTINGS, type TransportSettings } from '../../shared/transport';
import { MAX_WAIT_MS } from '../../shared/transport/retryPolicy';
import { InputError, requireInteger } from '../../shared/validation';

export const MAX_REQUESTS_PER_SECOND = 1000;
/** n8n opens a connection per request; against a distant service many in flight hide that wait. */
export const MAX_CONCURRENCY = 200;
export const MAX_TIMEOUT_SECONDS = 3600;

/**
 * The "Options" collection of an operation: how requests are sent, and for the operations that
 * start calls (`startsCalls`) the guardrails, first: Allowed Numbers and Max Calls per Run; for the
 * operations that create, Repeat Protection.
 */
export function requestOptions({
	creates,
	batch,
	startsCalls = false,
}: {
	creates: boolean;
	batch: boolean;
	startsCalls?: boolean;
}): INodeProperties {
	const options: INodeProperties[] = [
		{
			displayName: 'Concurrency',
			name: 'concurrency',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
			default: 5,
			description: batch
				? 'How many batch requests are in flight at once (with Adapt Concurrency: at most)'
				: 'How many requests are in flight at once (with Adapt Concurrency: at most); output order still matches the input',
		},
		{
			displayName: 'Adapt Concurrency',
			name: 'adaptiveConcurrency',
			type: 'boolean',
			default: false,
			description:
				'Whether to find how many requests the service takes at once: start at 5 and go up to Concurrency while answers keep their speed, halve on "too many requests" (429) or errors. Helps most with a distant service, where every request waits for a new connection. Max Requests per Second still applies.',
		},
		{
			displayName: 'Max Requests per Second',
			name: 'maxRequestsPerSecond',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: MAX_REQUESTS_PER_SECOND },
			default: 0,
			description: `Upper limit for all requests of this node in one run, retries included; 0 means no limit (at most ${MAX_REQUESTS_PER_SECOND})`,
		},
		{
			displayName: 'Max Retries',
			name: 'maxRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 10 },
			default: 3,
			description: `How often a request is repeated after "too many requests" (429, honouring a Retry-After of up to ${MAX_WAIT_MS / 1000} s; a longer one fails the item), after a connection that could not be made, and, for requests that are safe to repeat, after a 5xx, a timeout or a dropped connection${creates ? `. A creating request is never repeated once it may have reached the service (a repeat could call a person twice); it fails with "outcome unknown"${batch ? '' : ', unless it carries a Client External ID, which the service adds only once'}` : ''}`,
		},
		{
			displayName: 'Timeout (Seconds)',
			name: 'timeout',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_TIMEOUT_SECONDS },
			default: 30,
			description: 'How long to wait for the answer to one request',
		},
	];
	if (batch) {
		options.unshift({
			displayName: 'Batch Size',
			name: 'batchSize',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 10000 },
			default: 100,
			description: 'How many candidates (input items) go into one request',
		});
	}
	if (creates) options.unshift(repeatProtectionOption);
	if (startsCalls) options.unshift(allowedNumbersOption, maxCallsPerRunOption);
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}

export interface RunSettings extends TransportSettings {
	batchSize: number;
}

const isEmpty = (value: unknown) => value === undefined || value === null || value === '';

/** A number (decimals allowed) within bounds, from a number field or an expression's text. */
function requireNumber(field: string, value: unknown, min: number, max: number, meaning: string): number {
	const number = typeof value === 'string' && /^\s*[+-]?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number) || number < min || number > max) {
		throw new InputError(field, value, `is not ${meaning}`);
	}
	return number;
}

/**
 * The options as settings. Unknown keys are ignored: workflows saved with an option that no
 * longer exists (e.g. "Retry Creating Requests") keep running.
 */
export function readRunSettings(options: IDataObject): RunSettings {
	const integer = (name: string, field: string, fallback: number, min: number, max: number) =>
		isEmpty(options[name]) ? fallback : requireInteger(field, options[name], { min, max });
	return {
		concurrency: integer('concurrency', 'Concurrency', DEFAULT_TRANSPORT_SETTINGS.concurrency, 1, MAX_CONCURRENCY),
		adaptiveConcurrency: options.adaptiveConcurrency === true,
		maxRequestsPerSecond: isEmpty(options.maxRequestsPerSecond)
			? 0
			: requireNumber(
					'Max Requests per Second',
					options.maxRequestsPerSecond,
					0,
					MAX_REQUESTS_PER_SECOND,
					`a number from 0 (no limit) to ${MAX_REQUESTS_PER_SECOND}`,
				),
		maxRetries: integer('maxRetries', 'Max Retries', DEFAULT_TRANSPORT_SETTINGS.maxRetries, 0, 10),
		timeoutMs: isEmpty(options.timeout)
			? DEFAULT_TRANSPORT_SETTINGS.timeoutMs
			: Math.round(
					requireNumber('Timeout (Seconds)', options.timeout, 1, MAX_TIMEOUT_SECONDS, `a number of seconds from 1 to ${MAX_TIMEOUT_SECONDS}`) * 1000,
				),
		batchSize: integer('batchSize', 'Batch Size', 100, 1, 10000),
	};
}
