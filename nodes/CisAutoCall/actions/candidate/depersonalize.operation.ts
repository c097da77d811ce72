import type { INodeProperties } from 'n8n-workflow';

import { depersonalizeOperation } from '../privacy';

const autoCallCandidateId: INodeProperties = {
	displayName: 'Candidate ID',
	name: 'autoCallCandidateId',
	type: 'string',
	required: true,
	default: '',
	description: 'The person\'s ID in the task: map it from the output of Create and Run, Add to Task, Add Many to Task or Create Batch From Template',
};

export const depersonalize = depersonalizeOperation(
	{
		name: 'Depersonalize',
		value: 'depersonalize',
		description:
			'Delete the personal data of a candidate\'s call, keeping or deleting the recording; this cannot be undone',
		action: 'Depersonalize the call of a candidate',
	},
	autoCallCandidateId,
	(id) => `telephony/autoCallCandidate/${id}/depersonalization`,
);
