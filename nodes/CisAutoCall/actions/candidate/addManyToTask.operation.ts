import type { IDataObject } from 'n8n-workflow';

import { candidateFields, candidateReader } from '../../../shared/candidateFields';
import { autoCallIdLocator, readTaskId, taskNotFoundMeans } from '../../../shared/callTaskLocator';
import { requestOptions } from '../../../shared/requestOptions';
import { forOperation } from '../displayOptions';
import type { BatchOperation } from '../operation';
import { forceStart } from './addToTask.operation';
import { mapBatchResponse } from './batchResponse';

export const description = forOperation('candidate', 'addManyToTask', [
	autoCallIdLocator,
	...candidateFields('addToTask'),
	forceStart,
	requestOptions({ creates: true, batch: true }),
]);

export const addManyToTask: BatchOperation = {
	kind: 'batch',
	description,
	prepare({ context, items }) {
		const readCandidate = candidateReader(context, items, 'addToTask');
		const perItem = context.getNodeParameter('inputMode', 0, 'define') === 'define';
		const runTaskId = perItem ? undefined : readTaskId(context, 0);
		return (itemIndex) => ({
			autoCallId: runTaskId ?? readTaskId(context, itemIndex),
			...readCandidate(itemIndex),
		});
	},
	async sendChunk({ client, context }, entries, itemIndexes) {
		const everyEntryHasExternalId = entries.every((entry) => typeof entry.clientExternalId === 'string');
		const response = await client.request(
			{
				method: 'POST',
				path: 'telephony/autoCallCandidate/batch',
				body: { batch: entries, forceStart: context.getNodeParameter('forceStart', 0, false) as boolean },
				repeatability: everyEntryHasExternalId ? 'createOnce' : 'create',
				beyondSpec: true,
				notFoundMeans: taskNotFoundMeans(entries.map((entry) => String(entry.autoCallId))),
			},
			itemIndexes[0],
		);
		return mapBatchResponse(response, entries.length).map((result: IDataObject, index) => ({
			...result,
			autoCallId: result.autoCallId ?? entries[index].autoCallId,
			phone: entries[index].phone,
		}));
	},
};
