import { requestOptions } from '../../../shared/requestOptions';
import { requireString } from '../../../shared/validation';
import { forOperation } from '../displayOptions';
import type { ItemOperation, PreparedRequest } from '../operation';
import { skipDeleteRecord } from '../privacy';

export const description = forOperation('candidate', 'depersonalize', [
	{
		displayName: 'Deletes the personal data of the candidate\'s call for good; it cannot be recovered',
		name: 'irreversibleNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Candidate ID',
		name: 'autoCallCandidateId',
		type: 'string',
		required: true,
		default: '',
		description: 'Identifier of the candidate (as returned by Create and Run or Create Batch From Template)',
	},
	skipDeleteRecord,
	requestOptions({ creates: false, batch: false }),
]);

export const depersonalize: ItemOperation<PreparedRequest> = {
	kind: 'item',
	description,
	prepare({ context }) {
		return (itemIndex) => {
			const id = requireString('autoCallCandidateId', context.getNodeParameter('autoCallCandidateId', itemIndex));
			const keep = context.getNodeParameter('skipDeleteRecord', itemIndex, false) as boolean;
			return {
				request: {
					method: 'POST',
					path: `telephony/autoCallCandidate/${encodeURIComponent(id)}/depersonalization`,
					body: { skipDeleteRecord: keep },
					repeatability: 'safe',
				},
				echo: { success: true, autoCallCandidateId: id, recordingKept: keep },
			};
		};
	},
	async execute({ client }, { request, echo }, itemIndex) {
		await client.request(request, itemIndex);
		return echo;
	},
};
