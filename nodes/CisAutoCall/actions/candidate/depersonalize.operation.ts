import type { INodeProperties } from 'n8n-workflow';

import { depersonalizeOperation } from '../depersonalizeOperation';

const autoCallCandidateId: INodeProperties = {
	displayName: 'Candidate ID',
	name: 'autoCallCandidateId',
	type: 'string',
	required: true,
	default: '',
	description: 'The person\'s ID in the task: map it from the output of Create and Run, Add to Task, Add Many to Task or Create Batch From Template',
};

export const depersonalize = depersonalizeOperation(
	autoCallCandidateId,
	(id) => `telephony/autoCallCandidate/${id}/depersonalization`,
);
