import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { requireInteger } from '../../shared/validation';

export const DEFAULT_REPEAT_PROTECTION_HOURS = 24;
export const MAX_REPEAT_PROTECTION_HOURS = 24 * 30;

/**
 * The "Repeat Protection" option of the operations that create (see pipeline/repeatProtection.ts):
 * how long the node refuses to send a request it already sent. Not settable by an expression, so
 * that neither an item nor an AI agent can turn it off.
 */
export const repeatProtectionOption: INodeProperties = {
	displayName: 'Repeat Protection (Hours)',
	name: 'repeatProtectionHours',
	type: 'number',
	noDataExpression: true,
	typeOptions: { minValue: 0, maxValue: MAX_REPEAT_PROTECTION_HOURS },
	default: DEFAULT_REPEAT_PROTECTION_HOURS,
	description:
		'The node remembers each request it sends (per workflow and node) and does not send the same request again for this long, so that n8n\'s "Retry" of a failed execution calls nobody twice. An item left out this way says "already done by an earlier execution". Counted in quarters of this time: the same request is sent again after at least three quarters of it and at most all of it. 0 turns the protection off: every run sends everything again.',
};

/** The option's value in hours; 0: off. */
export function readRepeatProtectionHours(options: IDataObject): number {
	const value = options.repeatProtectionHours;
	if (value === undefined || value === null || value === '') return DEFAULT_REPEAT_PROTECTION_HOURS;
	return requireInteger('Repeat Protection (Hours)', value, { min: 0, max: MAX_REPEAT_PROTECTION_HOURS });
}
