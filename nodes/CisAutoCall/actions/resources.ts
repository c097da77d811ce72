import type { INodeProperties } from 'n8n-workflow';

import { call } from './call/Call.resource';
import { callTask } from './callTask/CallTask.resource';
import { candidate } from './candidate/Candidate.resource';
import type { Operation } from './operation';

/** The node's resources, in the order of the Resource list (n8n's lint wants it alphabetical). */
export const resources = [call, callTask, candidate];

/** resource → operation → implementation; the one table the router dispatches on. */
export const operations: Record<string, Record<string, Operation>> = Object.fromEntries(
	resources.map((resource) => [resource.option.value, resource.operations]),
);

const defaultResource = candidate.option.value;

export const resourceProperty: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	options: resources.map((resource) => resource.option),
	default: defaultResource,
};

/** Every resource's Operation list, then every operation's fields. */
export const resourceProperties: INodeProperties[] = [
	...resources.map((resource) => resource.operationProperty),
	...resources.flatMap((resource) => resource.fields),
];
