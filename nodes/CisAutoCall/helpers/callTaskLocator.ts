import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { ReadItemParameter } from '../../shared/parameterReaders';

import { identityOf, requireId } from '../../shared/validation';

/** The call task an operation targets: picked from a searchable list, or given by ID. */
export const autoCallIdLocator: INodeProperties = {
	displayName: 'Call Task',
	name: 'autoCallId',
	type: 'resourceLocator',
	required: true,
	default: { mode: 'list', value: '' },
	description:
		'The call task (campaign): pick it from the list, or map its ID from the output of Create or of a trigger event',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a call task...',
			typeOptions: { searchListMethod: 'searchCallTasks', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 0195b6f0-5f3c-7e3a-9a51-1c2d3e4f5a6b',
		},
	],
};

/** What a 404 means for a request naming call tasks: an unknown task, or a server without the endpoint. */
export function taskNotFoundMeans(taskIds: string[]): string {
	const ids = [...new Set(taskIds)].map((id) => `"${id}"`);
	const missing =
		ids.length === 1
			? `No call task with the ID ${ids[0]} exists`
			: `One of the call tasks ${ids.join(', ')} does not exist`;
	return `${missing}, or this server does not offer this operation (not every server of the service offers it).`;
}

/** A task of `GET telephony/autoCall`: its id may come wrapped as {identity} or plain. */
export function taskIdOf(task: IDataObject): string | undefined {
	return identityOf(task.id) ?? identityOf(task.uuid) ?? identityOf(task.autoCallId);
}

export function taskListOf(response: unknown): IDataObject[] {
	if (Array.isArray(response)) return response as IDataObject[];
	const items = (response as IDataObject | undefined)?.items;
	return Array.isArray(items) ? (items as IDataObject[]) : [];
}

/** The id of the task chosen in the locator (list or by ID) for one item. */
export function readTaskId(parameter: ReadItemParameter, itemIndex: number): string {
	return requireId(
		'autoCallId',
		parameter('autoCallId', itemIndex, undefined, { extractValue: true }),
	);
}

/**
 * `prepare` of an operation about the call task each item names: reads the task's ID (list or by
 * ID), then builds what the item sends from it.
 */
export function perTask<Prepared>(
	build: (taskId: string, itemIndex: number, parameter: ReadItemParameter) => Prepared,
): (run: { parameter: ReadItemParameter }) => (itemIndex: number) => Prepared {
	return ({ parameter }) =>
		(itemIndex) =>
			build(readTaskId(parameter, itemIndex), itemIndex, parameter);
}
