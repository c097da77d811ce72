import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { expectAcknowledgement } from '../../../shared/answerShapes';
import { autoCallIdLocator, perTask } from '../../helpers/callTaskLocator';
import { type ApiRequest, restatedApiError } from '../../../shared/transport';
import { defineOperation } from '../defineOperation';
import type { Run } from '../operation';

const fields: INodeProperties[] = [
	autoCallIdLocator,
	{
		displayName: 'Phone Numbers',
		name: 'phone',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 79876543210, 79876543211',
		description:
			'Numbers of the candidates to cancel in that task: one, several separated by commas or new lines, or a list',
		hint: 'Each number is cancelled with a request of its own and gives an output item.',
	},
];

/** What one item cancels: every number it names, in one task. */
interface Cancellation {
	autoCallId: string;
	phones: string[];
}

/** The service cancels one number per request, named in the query (`?autoCallId=&phone=`). */
function cancelRequest(autoCallId: string, phone: string): ApiRequest {
	return {
		method: 'POST',
		path: 'telephony/autoCallCandidate/cancel',
		qs: { autoCallId, phone },
		// Cancelling twice changes nothing more: the transport may repeat it after a timeout or a 5xx.
		repeatability: 'safe',
		beyondSpec: true,
		notFoundMeans: `No candidate with the number ${phone} in the task "${autoCallId}", or this server does not offer this operation (not every server of the service offers it).`,
		expect: expectAcknowledgement,
	};
}

/**
 * Some numbers of an item were cancelled and others not: the item fails (n8n shows no green
 * success for people who may still be called), and its error names both lists.
 */
function partlyCancelled(
	run: Run,
	itemIndex: number,
	cancelled: string[],
	failures: Array<{ phone: string; error: Error }>,
): Error {
	const notCancelled = failures.map(({ phone }) => phone);
	const message = `Not every number was cancelled: ${notCancelled.join(', ')} ${notCancelled.length === 1 ? 'was' : 'were'} not [item ${itemIndex}]`;
	const description = [
		`Cancelled: ${cancelled.length > 0 ? cancelled.join(', ') : 'none'}.`,
		`Not cancelled (these people may still be called): ${failures.map(({ phone, error }) => `${phone} (${error.message})`).join('; ')}.`,
		'Cancelling again is safe: run the item again once the cause is fixed.',
	].join('\n');
	const first = failures[0].error;
	if (first instanceof NodeApiError)
		return restatedApiError(run.context.getNode(), first, message, description, itemIndex);
	return new NodeOperationError(run.context.getNode(), message, { itemIndex, description });
}

export const cancel = defineOperation<Cancellation>({
	kind: 'item',
	fields,
	creates: false,
	namesPeopleByPhone: true,
	// The same reading of phones as the operations that dial (lists, Default Country, validity): the number
	// that cancels is the number that was dialled. A bad number stops the run before any request.
	prepare: (run) =>
		perTask((autoCallId, itemIndex, parameter) => ({
			autoCallId,
			phones: run.readPhones('phone', parameter('phone', itemIndex), itemIndex),
		}))(run),
	async execute(run, { autoCallId, phones }, itemIndex) {
		const results: IDataObject[] = [];
		const failures: Array<{ phone: string; error: Error }> = [];
		// Every number is tried, also after a failure: each one left running may call a person.
		for (const phone of phones) {
			try {
				const response = await run.client.request<IDataObject | undefined>(
					cancelRequest(autoCallId, phone),
					itemIndex,
				);
				const echo: IDataObject = { success: true, autoCallId, phone };
				results.push(response && typeof response === 'object' ? { ...echo, response } : echo);
			} catch (error) {
				failures.push({ phone, error: error as Error });
			}
		}
		if (failures.length === 0) return results.length === 1 ? results[0] : results;
		if (phones.length === 1) throw failures[0].error;
		throw partlyCancelled(
			run,
			itemIndex,
			results.map((result) => result.phone as string),
			failures,
		);
	},
});
