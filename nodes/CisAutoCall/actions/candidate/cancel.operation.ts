import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { expectAcknowledgement } from '../../../shared/answers';
import { autoCallIdLocator, perTask } from '../../helpers/callTaskLocator';
import { runOptionsField } from '../runFeatures';
import { toPhones } from '../../../shared/validation';
import type { ItemOperation, PreparedRequest } from '../operation';

const fields: INodeProperties[] = [
	autoCallIdLocator,
	{
		displayName: 'Phone Number',
		name: 'phone',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 79876543210',
		description: 'Number of the candidate to cancel in that task',
	},
	runOptionsField({ creates: false, batch: false }),
];

export const cancel: ItemOperation<PreparedRequest> = {
	kind: 'item',
	fields,
	creates: false,
	prepare: perTask((autoCallId, itemIndex, parameter) => {
		const [phone] = toPhones('phone', parameter('phone', itemIndex));
		return {
			request: {
				method: 'POST',
				path: 'telephony/autoCallCandidate/cancel',
				qs: { autoCallId, phone },
				repeatability: 'safe',
				beyondSpec: true,
				notFoundMeans: `No candidate with the number ${phone} in the task "${autoCallId}", or this server does not offer this operation (not every server of the service offers it).`,
				expect: expectAcknowledgement,
			},
			echo: { success: true, autoCallId, phone },
		};
	}),
	async execute({ client }, { request, echo }, itemIndex) {
		const response = await client.request<IDataObject | undefined>(request, itemIndex);
		return response && typeof response === 'object' ? { ...echo, response } : echo;
	},
};
