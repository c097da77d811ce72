import type { INodeProperties } from 'n8n-workflow';

import { depersonalizeOperation } from '../depersonalizeOperation';

const autoCallCandidateId: INodeProperties = {
	displayName: 'Candidate ID',
	name: 'autoCallCandidateId',
	type: 'string',
	required: true,
	default: '',
	description:
		"The person's ID in the task: map it from the output of the operation that added them",
	hint: 'Create and Run, Add to Task, Add Many to Task and Create Batch From Template output it.',
};

export const depersonalize = depersonalizeOperation(
	autoCallCandidateId,
	(id) => `telephony/autoCallCandidate/${id}/depersonalization`,
);
