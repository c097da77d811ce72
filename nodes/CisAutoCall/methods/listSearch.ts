import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { expectTaskList } from '../../shared/answerShapes';
import { taskIdOf, taskListOf } from '../helpers/callTaskLocator';
import { createApiClient } from '../../shared/transport';

const PAGE_SIZE = 100;

export async function searchCallTasks(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const client = await createApiClient(this);
	const offset = paginationToken ? Number(paginationToken) : 0;
	const response = await client.request({
		method: 'GET',
		path: 'telephony/autoCall',
		qs: { limit: PAGE_SIZE, offset, sort: '-updatedAt', ...(filter ? { keyword: filter } : {}) },
		repeatability: 'safe',
		beyondSpec: true,
		expect: expectTaskList,
	});
	const tasks = taskListOf(response);
	return {
		results: tasks
			.map((task) => ({ id: taskIdOf(task), task }))
			.filter((entry): entry is { id: string; task: typeof entry.task } => entry.id !== undefined)
			.map(({ id, task }) => ({
				name: `${String(task.name ?? id)}${task.status ? ` (${String(task.status)})` : ''}`,
				value: id,
			})),
		paginationToken: tasks.length === PAGE_SIZE ? String(offset + PAGE_SIZE) : undefined,
	};
}
