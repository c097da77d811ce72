import type { INodeProperties } from 'n8n-workflow';

import { depersonalizeOperation } from '../privacy';

export const callId: INodeProperties = {
	displayName: 'Call ID',
	name: 'callId',
	type: 'string',
	required: true,
	default: '',
	description: 'Identifier of the call, for example the ID that a Call Ended event carries',
};

export const depersonalize = depersonalizeOperation('call', callId, (id) => `calls/${id}/depersonalization`);
