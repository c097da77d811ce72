import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { DEFAULT_TRANSPORT_SETTINGS, type TransportSettings } from './transport';
import { requireInteger } from './validation';

/** The "Options" collection of an operation: how requests are sent. */
export function requestOptions({ creates, batch }: { creates: boolean; batch: boolean }): INodeProperties {
	const options: INodeProperties[] = [
		{
			displayName: 'Concurrency',
			name: 'concurrency',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 50 },
			default: 5,
			description: batch
				? 'How many batch requests are in flight at once'
				: 'How many requests are in flight at once; output order still matches the input',
		},
		{
			displayName: 'Max Requests per Second',
			name: 'maxRequestsPerSecond',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0,
			description: 'Upper limit for all requests of this node in one run, retries included; 0 means no limit',
		},
		{
			displayName: 'Max Retries',
			name: 'maxRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 10 },
			default: 3,
			description:
				'How often a request is repeated after "too many requests" (429, honouring Retry-After), after a connection that could not be made, and, for requests that are safe to repeat, after 502/503/504, timeouts or dropped connections',
		},
		{
			displayName: 'Timeout (Seconds)',
			name: 'timeout',
			type: 'number',
			typeOptions: { minValue: 1 },
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
	if (creates) {
		options.push({
			displayName: 'Retry Creating Requests',
			name: 'retryUncertainCreates',
			type: 'boolean',
			default: false,
			description: 'Whether a creating request is repeated after a 502/503/504, a timeout or a dropped connection. The first attempt may have succeeded, so a repeat can create a second task or call a person twice. Off: such items fail with "outcome unknown". Requests carrying a Client External ID are repeated anyway, since the platform adds a repeated ID once.',
		});
	}
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

export function readRunSettings(options: IDataObject): RunSettings {
	const number = (name: string, fallback: number, min: number, max?: number) =>
		options[name] === undefined || options[name] === '' || options[name] === null
			? fallback
			: requireInteger(name, options[name], { min, max });
	return {
		concurrency: number('concurrency', DEFAULT_TRANSPORT_SETTINGS.concurrency, 1, 50),
		maxRequestsPerSecond:
			options.maxRequestsPerSecond === undefined || options.maxRequestsPerSecond === null || options.maxRequestsPerSecond === ''
				? 0
				: Math.max(0, Number(options.maxRequestsPerSecond)),
		maxRetries: number('maxRetries', DEFAULT_TRANSPORT_SETTINGS.maxRetries, 0, 10),
		timeoutMs:
			options.timeout === undefined || options.timeout === '' ? DEFAULT_TRANSPORT_SETTINGS.timeoutMs : Math.max(1, Number(options.timeout)) * 1000,
		retryUncertainCreates: options.retryUncertainCreates === true,
		batchSize: number('batchSize', 100, 1, 10000),
	};
}
