import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { candidateIdOf, expectCandidateId, identityAt } from '../../../shared/answerShapes';
import { candidateFields, dialsNotice } from '../../descriptions/candidateFields';
import { candidateReader } from '../../helpers/candidateReader';
import { agentToolNotice } from '../runFeatures/guardrails';
import { runOptionsField } from '../runFeatures';
import type { ApiRequest } from '../../../shared/transport';
import { requireIdText } from '../../../shared/validation';
import type { ItemOperation } from '../operation';

const botSettingsId: INodeProperties = {
	displayName: 'Bot Script ID',
	name: 'botSettingsId',
	type: 'string',
	required: true,
	default: '',
	description: 'Bot script that talks to the candidate. All other settings come from the default call-task template.',
};

/**
 * The panel of Create and Run, and of Create and Run and Wait for Result (`wait`: its notice in
 * place of the AI Agent notice, since it refuses as a tool, and its fields before the options).
 */
export function createAndRunFields(wait?: { notice: INodeProperties; fields: INodeProperties[] }): INodeProperties[] {
	return [
		dialsNotice,
		wait?.notice ?? agentToolNotice,
		botSettingsId,
		...candidateFields('single'),
		...(wait?.fields ?? []),
		runOptionsField({ creates: true, batch: false, startsCalls: true }),
	];
}

export const createAndRun: ItemOperation<ApiRequest> = {
	kind: 'item',
	fields: createAndRunFields(),
	creates: true,
	prepare({ parameter, items }) {
		const readCandidate = candidateReader(parameter, items, 'single');
		return (itemIndex) => {
			const candidate = readCandidate(itemIndex);
			const body: IDataObject = {
				phone: candidate.phone,
				botSettingsId: requireIdText('botSettingsId', parameter('botSettingsId', itemIndex)),
			};
			if (candidate.variables) body.variables = candidate.variables;
			if (candidate.timezone !== undefined) body.timezone = candidate.timezone;
			if (candidate.callbackData) body.callbackData = candidate.callbackData;
			return {
				method: 'POST',
				path: 'telephony/autoCallCandidate/single',
				body,
				repeatability: 'create',
				expect: expectCandidateId,
			};
		};
	},
	dialledPhones: (request) => (request.body as IDataObject).phone as string[],
	async execute({ client }, request, itemIndex) {
		const response = await client.request<IDataObject>(request, itemIndex);
		const autoCallId = identityAt(response, 'autoCallId');
		return {
			autoCallCandidateId: candidateIdOf(response),
			...(autoCallId ? { autoCallId } : {}),
			phone: (request.body as IDataObject).phone,
			response,
		};
	},
};
