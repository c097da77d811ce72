import type { INodeProperties } from 'n8n-workflow';

/**
 * The fields of the "… and Wait for Result" operations: what to set up (a notice naming where the
 * CIS Auto-Call Trigger must receive the call events), Wait at Most and its unit.
 */

const waitAtMost: INodeProperties = {
	displayName: 'Wait at Most',
	name: 'waitAtMost',
	type: 'number',
	typeOptions: { minValue: 1, numberPrecision: 0 },
	default: 1,
	description:
		'How long to wait for the result. Redials are spread over hours, so allow for them; after this time the workflow goes on with the input items unchanged.',
};

const waitUnit: INodeProperties = {
	displayName: 'Wait Unit',
	name: 'waitUnit',
	type: 'options',
	options: [
		{ name: 'Minutes', value: 'minutes' },
		{ name: 'Hours', value: 'hours' },
		{ name: 'Days', value: 'days' },
	],
	default: 'days',
};

/** `receivesEventsOf`: whose call events the trigger must receive, in the user's words. */
export function waitForResultFields(receivesEventsOf: string): { notice: INodeProperties; fields: INodeProperties[] } {
	return {
		notice: {
			displayName: `The workflow pauses here until the call has a result: the first answered call, or the person will not be called again. It needs a published workflow with a CIS Auto-Call Trigger whose Production URL receives the events Call Ended and Person Done ${receivesEventsOf}. If no result arrives within Wait at Most, the workflow goes on with this node's input items unchanged: they have no "outcome" field.`,
			name: 'waitNotice',
			type: 'notice',
			default: '',
		},
		fields: [waitAtMost, waitUnit],
	};
}
