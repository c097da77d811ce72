import { getTask, getTaskRequest } from '../../../shared/callTasks';
import { autoCallIdLocator, readTaskId, taskIdOf, taskNotFoundMeans } from '../../helpers/callTaskLocator';
import { requestOptions } from '../../helpers/requestOptions';
import { forOperation } from '../displayOptions';
import type { ItemOperation, PreparedRequest } from '../operation';

export const description = forOperation('callTask', 'get', [
	autoCallIdLocator,
	requestOptions({ creates: false, batch: false }),
]);

export const get: ItemOperation<PreparedRequest> = {
	kind: 'item',
	description,
	creates: false,
	prepare({ parameter }) {
		return (itemIndex) => {
			const id = readTaskId(parameter, itemIndex);
			return {
				request: getTaskRequest(id, { notFoundMeans: taskNotFoundMeans([id]) }),
				echo: { autoCallId: id },
			};
		};
	},
	async execute({ client }, { request, echo }, itemIndex) {
		const task = await getTask(client, request, itemIndex);
		return { ...echo, ...task, autoCallId: taskIdOf(task) ?? echo.autoCallId };
	},
};
