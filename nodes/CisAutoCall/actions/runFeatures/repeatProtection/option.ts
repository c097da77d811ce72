import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { requireInteger } from '../../../../shared/validation';

const DEFAULT_REPEAT_PROTECTION_HOURS = 24;
const MAX_REPEAT_PROTECTION_HOURS = 24 * 30;

/**
 * The "Repeat Protection" option of the operations that create (its step: step.ts):
 * how long a retry of a failed execution leaves out a request this node already sent. Not settable by an expression, so
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
		'When you retry a failed execution, requests sent within this many hours are not sent again; 0 = off',
	hint: 'So nobody is called twice; each item left out says so. Every other execution sends everything it is given.',
};

/** The option's value in hours; 0: off. */
export function readRepeatProtectionHours(options: IDataObject): number {
	const value = options.repeatProtectionHours;
	if (value === undefined || value === null || value === '') return DEFAULT_REPEAT_PROTECTION_HOURS;
	return requireInteger('Repeat Protection (Hours)', value, {
		min: 0,
		max: MAX_REPEAT_PROTECTION_HOURS,
	});
}
