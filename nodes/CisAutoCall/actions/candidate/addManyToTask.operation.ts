import type { IDataObject } from 'n8n-workflow';

import { expectAddedCandidates } from '../../../shared/answerShapes';
import { candidateReader } from '../../helpers/candidateReader';
import { readTaskId, taskNotFoundMeans } from '../../helpers/callTaskLocator';
import { defineOperation } from '../defineOperation';
import type { BatchOperation } from '../operation';
import { addToTaskFields } from './addToTask.operation';
import { batchAnswerOptions, mapBatchResponse } from './batchResponse';
import { withoutKey } from '../../../shared/convert';

export const addManyToTask: BatchOperation = defineOperation({
	kind: 'batch',
	fields: addToTaskFields,
	creates: true,
	prepare({ parameter, items, readPhones }) {
		const readCandidate = candidateReader(parameter, items, 'addToTask', readPhones);
		return (itemIndex) => ({
			autoCallId: readTaskId(parameter, itemIndex),
			...readCandidate(itemIndex),
			forceStart: parameter('forceStart', itemIndex, false) as boolean,
		});
	},
	dialledPhones: (entry) => entry.phone as string[],
	startsTask: (entry) => entry.forceStart === true,
	// forceStart belongs to the request, not to an entry: items that differ in it are sent apart.
	groupOf: (_run, entry) => String(entry.forceStart),
	request: (entries) => ({
		method: 'POST',
		path: 'telephony/autoCallCandidate/batch',
		body: {
			batch: entries.map((entry) => withoutKey(entry, 'forceStart')),
			forceStart: entries[0].forceStart,
		},
		// The batch endpoint promises no de-duplication, Client External IDs or not: after a
		// 5xx, a reset or a timeout the batch's outcome is unknown and it is not sent again.
		repeatability: 'create',
		beyondSpec: true,
		notFoundMeans: taskNotFoundMeans(entries.map((entry) => String(entry.autoCallId))),
		expect: expectAddedCandidates,
	}),
	chunkSender({ client, context }) {
		return async (entries, itemIndexes) => {
			const response = await client.request(addManyToTask.request(entries), itemIndexes[0]);
			const sent = entries.map((entry) => ({
				taskId: String(entry.autoCallId),
				phones: entry.phone as string[],
			}));
			return mapBatchResponse(response, itemIndexes, sent, batchAnswerOptions(context)).map(
				(result: IDataObject, index) => ({
					...result,
					autoCallId: result.autoCallId ?? entries[index].autoCallId,
					phone: entries[index].phone,
				}),
			);
		};
	},
});
