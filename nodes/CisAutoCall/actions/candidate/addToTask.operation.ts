import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { addedCandidateIdOf, expectAddedCandidate } from '../../../shared/answerShapes';
import { candidateFields } from '../../descriptions/candidateFields';
import { candidateReader } from '../../helpers/candidateReader';
import { autoCallIdLocator, readTaskId, taskNotFoundMeans } from '../../helpers/callTaskLocator';
import type { ApiRequest } from '../../../shared/transport';
import { defineOperation, type ItemDeclaration } from '../defineOperation';

const forceStart: INodeProperties = {
	displayName: 'Start the Task Too',
	name: 'forceStart',
	type: 'boolean',
	default: false,
	description: 'Whether the task is started (if it is not running yet) once the candidate is added',
};

/** Shown while "Start the Task Too" is on. */
const forceStartNotice: INodeProperties = {
	displayName:
		'Starting the task calls every person in it who is still waiting, not only the ones added here, and each call costs money',
	name: 'forceStartNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: { forceStart: [true] } },
};

/** The own fields of Add to Task, Add Many to Task and Add to Task and Wait for Result. */
export const addToTaskFields: INodeProperties[] = [
	autoCallIdLocator,
	...candidateFields('addToTask'),
	forceStart,
	forceStartNotice,
];

/** Add to Task as declared; Add to Task and Wait for Result declares the same and waits. */
export const addToTaskDeclaration: ItemDeclaration<ApiRequest> = {
	kind: 'item',
	fields: addToTaskFields,
	creates: true,
	prepare({ parameter, items, readPhones }) {
		const readCandidate = candidateReader(parameter, items, 'addToTask', readPhones);
		return (itemIndex) => {
			const candidate = readCandidate(itemIndex);
			const autoCallId = readTaskId(parameter, itemIndex);
			const body: IDataObject = {
				autoCallId,
				...candidate,
				forceStart: parameter('forceStart', itemIndex, false) as boolean,
			};
			return {
				method: 'POST',
				path: 'telephony/autoCallCandidate',
				body,
				repeatability: candidate.clientExternalId ? 'createOnce' : 'create',
				beyondSpec: true,
				notFoundMeans: taskNotFoundMeans([autoCallId]),
				expect: expectAddedCandidate,
			};
		};
	},
	dialledPhones: (request) => (request.body as IDataObject).phone as string[],
	startsTask: (request) => (request.body as IDataObject).forceStart === true,
	async execute({ client }, request, itemIndex) {
		const response = await client.request<IDataObject>(request, itemIndex);
		const body = request.body as IDataObject;
		return {
			autoCallCandidateId: addedCandidateIdOf(response),
			autoCallId: body.autoCallId,
			phone: body.phone,
			response,
		};
	},
};

export const addToTask = defineOperation(addToTaskDeclaration);
