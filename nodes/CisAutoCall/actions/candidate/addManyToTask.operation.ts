import type { IDataObject } from 'n8n-workflow';

import { expectAddedCandidates } from '../../../shared/answers';
import { candidateFields, candidateReader } from '../../../shared/candidateFields';
import { autoCallIdLocator, readTaskId, taskNotFoundMeans } from '../../../shared/callTaskLocator';
import { agentToolNotice } from '../../../shared/guardrails';
import { requestOptions } from '../../../shared/requestOptions';
import { forOperation } from '../displayOptions';
import type { BatchOperation } from '../operation';
import { forceStart } from './addToTask.operation';
import { mapBatchResponse } from './batchResponse';

export const description = forOperation('candidate', 'addManyToTask', [
	agentToolNotice,
	autoCallIdLocator,
	...candidateFields('addToTask'),
	forceStart,
	requestOptions({ creates: true, batch: true, startsCalls: true }),
]);

export const addManyToTask: BatchOperation = {
	kind: 'batch',
	description,
	creates: true,
	prepare({ parameter, items }) {
		const readCandidate = candidateReader(parameter, items, 'addToTask');
		const perItem = parameter('inputMode', 0, 'define') === 'define';
		const runTaskId = perItem ? undefined : readTaskId(parameter, 0);
		return (itemIndex) => ({
			autoCallId: runTaskId ?? readTaskId(parameter, itemIndex),
			...readCandidate(itemIndex),
		});
	},
	dialledPhones: (entry) => entry.phone as string[],
	chunkSender({ client, parameter }) {
		return async (entries, itemIndexes) => {
			const everyEntryHasExternalId = entries.every((entry) => typeof entry.clientExternalId === 'string');
			const response = await client.request(
				{
					method: 'POST',
					path: 'telephony/autoCallCandidate/batch',
					body: { batch: entries, forceStart: parameter('forceStart', 0, false) as boolean },
					repeatability: everyEntryHasExternalId ? 'createOnce' : 'create',
					beyondSpec: true,
					notFoundMeans: taskNotFoundMeans(entries.map((entry) => String(entry.autoCallId))),
					expect: expectAddedCandidates,
				},
				itemIndexes[0],
			);
			return mapBatchResponse(response, itemIndexes).map((result: IDataObject, index) => ({
				...result,
				autoCallId: result.autoCallId ?? entries[index].autoCallId,
				phone: entries[index].phone,
			}));
		};
	},
};
