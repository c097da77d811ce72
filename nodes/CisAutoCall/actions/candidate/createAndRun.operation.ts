import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { candidateIdOf, expectCandidateId, identityAt } from '../../../shared/answerShapes';
import { candidateFields } from '../../descriptions/candidateFields';
import { candidateReader } from '../../helpers/candidateReader';
import type { ApiRequest } from '../../../shared/transport';
import { requireIdText } from '../../../shared/validation';
import { defineOperation, type ItemDeclaration } from '../defineOperation';

const botSettingsId: INodeProperties = {
	displayName: 'Bot Script ID',
	name: 'botSettingsId',
	type: 'string',
	required: true,
	default: '',
	description:
		'Bot script that talks to the candidate; all other settings come from the default call-task template',
};

/** Create and Run as declared; Create and Run and Wait for Result declares the same and waits. */
export const createAndRunDeclaration: ItemDeclaration<ApiRequest> = {
	kind: 'item',
	fields: [botSettingsId, ...candidateFields('single')],
	creates: true,
	prepare({ parameter, items, readPhones }) {
		const readCandidate = candidateReader(parameter, items, 'single', readPhones);
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

export const createAndRun = defineOperation(createAndRunDeclaration);
