import type { INodeProperties } from 'n8n-workflow';
import { getTask, getTaskRequest } from '../../../shared/callTasks';
import {
	autoCallIdLocator,
	perTask,
	taskIdOf,
	taskNotFoundMeans,
} from '../../helpers/callTaskLocator';
import { simplifyOption, simplifyTask } from '../../helpers/simplifyTask';
import { defineOperation } from '../defineOperation';
import type { PreparedRequest } from '../operation';

const fields: INodeProperties[] = [autoCallIdLocator, simplifyOption];

export const get = defineOperation<PreparedRequest & { simplify: boolean }>({
	kind: 'item',
	fields,
	creates: false,
	prepare: perTask((id, itemIndex, parameter) => ({
		request: getTaskRequest(id, { notFoundMeans: taskNotFoundMeans([id]) }),
		echo: { autoCallId: id },
		simplify: parameter('simplify', itemIndex, false) === true,
	})),
	async execute({ client }, { request, echo, simplify }, itemIndex) {
		const task = await getTask(client, request, itemIndex);
		const autoCallId = taskIdOf(task) ?? echo.autoCallId;
		return simplify ? simplifyTask(task, autoCallId) : { ...echo, ...task, autoCallId };
	},
});
