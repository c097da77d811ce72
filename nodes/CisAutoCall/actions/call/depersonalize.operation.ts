import type { INodeProperties } from 'n8n-workflow';

import { depersonalizeOperation } from '../depersonalizeOperation';

export const callId: INodeProperties = {
	displayName: 'Call ID',
	name: 'callId',
	type: 'string',
	required: true,
	default: '',
	description:
		"The call's ID: map it from a Call Ended event of the CIS Auto-Call Trigger (or the last call of a Person Done event)",
};

export const depersonalize = depersonalizeOperation(
	callId,
	(id) => `calls/${id}/depersonalization`,
);
