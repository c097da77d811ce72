import type { INodeProperties } from 'n8n-workflow';

import { expectNoBody } from '../../shared/answerShapes';
import { requireId } from '../../shared/validation';
import { defineOperation } from './defineOperation';
import type { ItemOperation, PreparedRequest } from './operation';

const skipDeleteRecord: INodeProperties = {
	displayName: 'Keep Recording',
	name: 'skipDeleteRecord',
	type: 'boolean',
	default: false,
	description:
		'Whether the audio recording is kept; off, the recording is deleted together with the personal data',
};

const irreversibleNotice: INodeProperties = {
	displayName:
		'This cannot be undone: the personal data of the call is deleted for good, and so is its recording unless Keep Recording is on',
	name: 'irreversibleNotice',
	type: 'notice',
	default: '',
};

/** 4.1 and 4.2 of docs/service.md: the same request and answer, about a call or about a candidate's call. */
export function depersonalizeOperation(
	id: INodeProperties,
	pathOf: (encodedId: string) => string,
): ItemOperation<PreparedRequest> {
	return defineOperation<PreparedRequest>({
		kind: 'item',
		creates: false,
		notices: [irreversibleNotice],
		fields: [id, skipDeleteRecord],
		prepare({ parameter }) {
			return (itemIndex) => {
				const value = requireId(id.name, parameter(id.name, itemIndex));
				const keep = parameter('skipDeleteRecord', itemIndex, false) as boolean;
				return {
					request: {
						method: 'POST',
						path: pathOf(encodeURIComponent(value)),
						body: { skipDeleteRecord: keep },
						repeatability: 'safe',
						expect: expectNoBody,
					},
					echo: { success: true, [id.name]: value, recordingKept: keep },
				};
			};
		},
		async execute({ client }, { request, echo }, itemIndex) {
			await client.request(request, itemIndex);
			return echo;
		},
	});
}
