import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { DEFAULT_TRANSPORT_SETTINGS, type TransportSettings } from '../../shared/transport';
import { MAX_WAIT_MS } from '../../shared/transport/retryPolicy';
import { InputError, requireInteger } from '../../shared/validation';

const MAX_REQUESTS_PER_SECOND = 1000;
/** n8n opens a connection per request; against a distant service many in flight hide that wait. */
const MAX_CONCURRENCY = 200;
const MAX_TIMEOUT_SECONDS = 3600;

/**
 * What a run of a one-request-per-item operation does when Options are left alone: Adapt
 * Concurrency on, from 5 up to this many in flight. n8n opens a new connection for every request,
 * so a distant service is only fast with many requests in flight; the adaptation halves them on
 * 429, 5xx and failures, so a service that cannot take them is not flooded (chosen by measurement;
 * docs/performance.md).
 */
export const DEFAULT_ADAPTIVE_CEILING = 100;

/** In flight without Adapt Concurrency when Concurrency is not set; batch requests' default. */
export const DEFAULT_FIXED_CONCURRENCY = DEFAULT_TRANSPORT_SETTINGS.concurrency;

/**
 * Concurrency and Adapt Concurrency of the operations that send one request per item: on by
 * default, up to DEFAULT_ADAPTIVE_CEILING (literal values: n8n's lint reads them; a test checks
 * that a run reads the same defaults).
 */
const perItemConcurrencyOptions: INodeProperties[] = [
	{
		displayName: 'Concurrency',
		name: 'concurrency',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
		default: 100,
		description: 'The most requests in flight at once; output order still matches the input',
		hint: `With Adapt Concurrency on (the default of new nodes) the node starts with 5 and goes up to this number only while the service keeps up; with it off, exactly this many (${DEFAULT_FIXED_CONCURRENCY} when not set). Lower it if the service's owner asks for fewer requests at once.`,
	},
	{
		displayName: 'Adapt Concurrency',
		name: 'adaptiveConcurrency',
		type: 'boolean',
		default: true,
		description:
			'Whether to find how many requests the service takes at once (on by default for nodes added since 0.2.0)',
		hint: 'Starts with 5 and goes up to Concurrency while answers keep their speed; halves on "too many requests" (429), server errors or failed connections, and sends nothing new while the service asks to wait. Off: a fixed number at once (see Concurrency). Max Requests per Second always applies.',
	},
];

/** The same for batch requests (up to 10,000 candidates each): 5 at once, not adapted, unless set. */
const batchConcurrencyOptions: INodeProperties[] = [
	{
		displayName: 'Concurrency',
		name: 'concurrency',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
		default: 5,
		description: 'How many batch requests are in flight at once (with Adapt Concurrency: at most)',
	},
	{
		displayName: 'Adapt Concurrency',
		name: 'adaptiveConcurrency',
		type: 'boolean',
		default: false,
		description: 'Whether to find how many batch requests the service takes at once',
		hint: 'Starts at 5 and goes up to Concurrency while answers keep their speed; halves on "too many requests" (429) or errors. Max Requests per Second still applies.',
	},
];

/** How requests are sent: concurrency, rate, retries, timeout (and Batch Size for batch requests). */
export function sendingOptions({
	creates,
	batch,
}: {
	creates: boolean;
	batch: boolean;
}): INodeProperties[] {
	const options: INodeProperties[] = [
		...(batch ? batchConcurrencyOptions : perItemConcurrencyOptions),
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
			description: 'How often a request is repeated after a failure that is safe to repeat',
			hint: `Repeated after "too many requests" (429, honouring a Retry-After of up to ${MAX_WAIT_MS / 1000} s; a longer one fails the item), after a connection that could not be made, and, for requests that are safe to repeat, after a 5xx, a timeout or a dropped connection.${creates ? ` A creating request is never repeated once it may have reached the service (a repeat could call a person twice); it fails with "outcome unknown"${batch ? '' : ', unless it carries a Client External ID, which the service adds only once'}.` : ''}`,
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
	return options;
}

export interface RunSettings extends TransportSettings {
	batchSize: number;
}

const isEmpty = (value: unknown) => value === undefined || value === null || value === '';

/** A number (decimals allowed) within bounds, from a number field or an expression's text. */
function requireNumber(
	field: string,
	value: unknown,
	min: number,
	max: number,
	meaning: string,
): number {
	const number =
		typeof value === 'string' && /^\s*[+-]?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number) || number < min || number > max) {
		throw new InputError(field, value, `is not ${meaning}`);
	}
	return number;
}

/**
 * The options as settings. Unknown keys are ignored: workflows saved with an option that no
 * longer exists (e.g. "Retry Creating Requests") keep running. Nodes saved with version 1 keep
 * 0.1.0's default when Options are left alone: 5 requests at once, not adapted.
 */
export function readRunSettings(
	options: IDataObject,
	{ batch = false, nodeVersion = 2 }: { batch?: boolean; nodeVersion?: number } = {},
): RunSettings {
	const integer = (name: string, field: string, fallback: number, min: number, max: number) =>
		isEmpty(options[name]) ? fallback : requireInteger(field, options[name], { min, max });
	// Not set: on for one request per item (from version 2), off for batch requests (the options' defaults above).
	const adaptiveConcurrency = isEmpty(options.adaptiveConcurrency)
		? !batch && nodeVersion >= 2
		: options.adaptiveConcurrency === true;
	return {
		concurrency: integer(
			'concurrency',
			'Concurrency',
			adaptiveConcurrency && !batch ? DEFAULT_ADAPTIVE_CEILING : DEFAULT_FIXED_CONCURRENCY,
			1,
			MAX_CONCURRENCY,
		),
		adaptiveConcurrency,
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
					requireNumber(
						'Timeout (Seconds)',
						options.timeout,
						1,
						MAX_TIMEOUT_SECONDS,
						`a number of seconds from 1 to ${MAX_TIMEOUT_SECONDS}`,
					) * 1000,
				),
		batchSize: integer('batchSize', 'Batch Size', 100, 1, 10000),
	};
}
