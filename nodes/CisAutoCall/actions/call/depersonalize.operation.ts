import type { INodeProperties } from 'n8n-workflow';

import { depersonalizeOperation } from '../privacy';

export const callId: INodeProperties = {
	displayName: 'Call ID',
	name: 'callId',
	type: 'string',
	required: true,
	default: '',
	description: 'The call\'s ID: map it from a Call Ended event of the CIS Auto-Call Trigger (or the last call of a Person Done event)',
};

export const depersonalize = depersonalizeOperation(
	{
		name: 'Depersonalize',
		value: 'depersonalize',
		description: 'Delete the personal data of a call, keeping or deleting the recording; this cannot be undone',
		action: 'Depersonalize a call',
	},
	callId,
	(id) => `calls/${id}/depersonalization`,
);
