import type { INodeProperties } from 'n8n-workflow';

import { depersonalizeOperation } from '../privacy';

const autoCallCandidateId: INodeProperties = {
	displayName: 'Candidate ID',
	name: 'autoCallCandidateId',
	type: 'string',
	required: true,
	default: '',
	description: 'Identifier of the candidate (as returned by Create and Run or Create Batch From Template)',
};

export const depersonalize = depersonalizeOperation(
	'candidate',
	autoCallCandidateId,
	(id) => `telephony/autoCallCandidate/${id}/depersonalization`,
);
