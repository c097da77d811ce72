import type { INodeProperties } from 'n8n-workflow';

import { expectNoBody } from '../../../shared/answerShapes';
import { requireId } from '../../../shared/validation';
import { defineOperation } from '../defineOperation';
import type { PreparedRequest } from '../operation';
import { callId } from './depersonalize.operation';

const irreversibleNotice: INodeProperties = {
	displayName: 'This cannot be undone: the audio recording of the call is deleted for good',
	name: 'irreversibleNotice',
	type: 'notice',
	default: '',
};

export const deleteRecording = defineOperation<PreparedRequest>({
	kind: 'item',
	notices: [irreversibleNotice],
	fields: [callId],
	creates: false,
	prepare({ parameter }) {
		return (itemIndex) => {
			const id = requireId('callId', parameter('callId', itemIndex));
			return {
				request: {
					method: 'DELETE',
					path: `calls/${encodeURIComponent(id)}/record`,
					repeatability: 'safe',
					expect: expectNoBody,
				},
				echo: { success: true, deleted: true, callId: id },
			};
		};
	},
	async execute({ client }, { request, echo }, itemIndex) {
		await client.request(request, itemIndex);
		return echo;
	},
});
