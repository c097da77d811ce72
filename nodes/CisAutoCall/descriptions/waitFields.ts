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
		'How long to wait for the result; after this time the workflow goes on with the input items unchanged',
	hint: 'Redials are spread over hours, so allow for them.',
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

/**
 * `receivesEventsOf`: whose call events the trigger must receive, in the user's words. The notice
 * stays within 60 words and two sentences (test/unit/noticeLength.test.ts); what a result is and
 * what happens after Wait at Most are in the Wait at Most field and in docs/getting-started.md.
 */
export interface WaitForResultFields {
	notice: INodeProperties;
	fields: INodeProperties[];
}

export function waitForResultFields(receivesEventsOf: string): WaitForResultFields {
	return {
		notice: {
			displayName: `The workflow pauses here until the call has a result. It needs a CIS Auto-Call Trigger in a published workflow that receives the events Call Ended and Person Done ${receivesEventsOf}.`,
			name: 'waitNotice',
			type: 'notice',
			default: '',
		},
		fields: [waitAtMost, waitUnit],
	};
}
