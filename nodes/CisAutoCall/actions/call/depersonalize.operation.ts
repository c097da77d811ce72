import type { INodeProperties } from 'n8n-workflow';

import { requestOptions } from '../../../shared/requestOptions';
import { requireString } from '../../../shared/validation';
import { forOperation } from '../displayOptions';
import type { ItemOperation, PreparedRequest } from '../operation';
import { skipDeleteRecord } from '../privacy';

export const callId: INodeProperties = {
	displayName: 'Call ID',
	name: 'callId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. {{ $json.ID }}',
	description: 'Identifier of the call (the "ID" of a Call Ended event)',
};

export const description = forOperation('call', 'depersonalize', [
	{
		displayName: 'Deletes the call\'s personal data for good; it cannot be recovered',
		name: 'irreversibleNotice',
		type: 'notice',
		default: '',
	},
	callId,
	skipDeleteRecord,
	requestOptions({ creates: false, batch: false }),
]);

export const depersonalize: ItemOperation<PreparedRequest> = {
	kind: 'item',
	description,
	prepare({ context }) {
		return (itemIndex) => {
			const id = requireString('callId', context.getNodeParameter('callId', itemIndex));
			const keep = context.getNodeParameter('skipDeleteRecord', itemIndex, false) as boolean;
			return {
				request: {
					method: 'POST',
					path: `calls/${encodeURIComponent(id)}/depersonalization`,
					body: { skipDeleteRecord: keep },
					repeatability: 'safe',
				},
				echo: { success: true, callId: id, recordingKept: keep },
			};
		};
	},
	async execute({ client }, { request, echo }, itemIndex) {
		await client.request(request, itemIndex);
		return echo;
	},
};
