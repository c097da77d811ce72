import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { ApiRequest } from '../../../shared/transport';
import { WAIT_MARKER_FIELD } from '../../../shared/waitForResult';
import type { ItemOperation } from '../operation';
import { createAndRun, createAndRunFields } from './createAndRun.operation';

/**
 * Create and Run and Wait for Result: the request of Create and Run, then the execution waits
 * (n8n's own waiting, as its send-and-wait operations do) until the CIS Auto-Call Trigger hands
 * it the call's result (actions/waiting.ts; the trigger's side: CisAutoCallTrigger/handOver.ts).
 */

export const WAIT_OPERATION = 'createAndRunAndWait';

const waitNotice: INodeProperties = {
	displayName:
		'The workflow pauses here until the call has a result: the first answered call, or the person will not be called again. It needs a published workflow with a CIS Auto-Call Trigger whose Production URL receives the events Call Ended and Person Done of the bot\'s call tasks (New Call Task, or the URL pasted into the template). If no result arrives within Wait at Most, the workflow goes on with this node\'s input items unchanged: they have no "outcome" field.',
	name: 'waitNotice',
	type: 'notice',
	default: '',
};

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

/**
 * The operation as listed (what Dry Run shows and what the operation table describes): Create and
 * Run's request. A run that waits sends it through `withWaitMarkers`.
 */
export const createAndRunAndWait: ItemOperation<ApiRequest> = {
	...createAndRun,
	fields: createAndRunFields({ notice: waitNotice, fields: [waitAtMost, waitUnit] }),
};

/**
 * The operation of one waiting run: each candidate's Callback Data gets the wait's marker, next to
 * (never instead of) the user's own Callback Data.
 */
export function withWaitMarkers(markerOf: (itemIndex: number) => IDataObject): ItemOperation<ApiRequest> {
	return {
		...createAndRunAndWait,
		prepare(run) {
			const prepareItem = createAndRunAndWait.prepare(run);
			return (itemIndex) => {
				const request = prepareItem(itemIndex);
				const body = request.body as IDataObject;
				const userData = (body.callbackData ?? {}) as IDataObject;
				return { ...request, body: { ...body, callbackData: { ...userData, [WAIT_MARKER_FIELD]: markerOf(itemIndex) } } };
			};
		},
	};
}
