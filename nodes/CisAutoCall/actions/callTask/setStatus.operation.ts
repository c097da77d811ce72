import type { INodeProperties } from 'n8n-workflow';

import { setTaskStatus, setTaskStatusRequest, type TaskStatusAction } from '../../../shared/callTasks';
import { agentStartNotice } from '../../guardrails';
import { autoCallIdLocator, readTaskId, taskNotFoundMeans } from '../../helpers/callTaskLocator';
import { requestOptions } from '../../helpers/requestOptions';
import { forOperation } from '../displayOptions';
import type { ItemOperation, PreparedRequest } from '../operation';

const stopNotice: INodeProperties = {
	displayName: 'Stopping is final: a stopped (halted) task cannot be started again',
	name: 'stopNotice',
	type: 'notice',
	default: '',
};

/** Start (`play`), Pause (`pause`) and Stop (`halted`) differ only in the path's last word. */
function statusOperation(operation: 'start' | 'pause' | 'stop', action: TaskStatusAction): ItemOperation<PreparedRequest> {
	const description = forOperation('callTask', operation, [
		...(operation === 'stop' ? [stopNotice] : []),
		...(operation === 'start' ? [agentStartNotice] : []),
		autoCallIdLocator,
		requestOptions({ creates: false, batch: false, startsTask: operation === 'start' }),
	]);
	return {
		kind: 'item',
		description,
		creates: false,
		prepare({ parameter }) {
			return (itemIndex) => {
				const id = readTaskId(parameter, itemIndex);
				return {
					request: setTaskStatusRequest(id, action, { notFoundMeans: taskNotFoundMeans([id]) }),
					echo: { success: true, autoCallId: id, action },
				};
			};
		},
		// Starting a task phones everyone in it: an AI Agent may do it only when the user allows it.
		...(operation === 'start' ? { startsTask: () => true } : {}),
		async execute({ client }, { request, echo }, itemIndex) {
			const response = await setTaskStatus(client, request, itemIndex);
			return response && typeof response === 'object' ? { ...echo, response } : echo;
		},
	};
}

export const start = statusOperation('start', 'play');
export const pause = statusOperation('pause', 'pause');
export const stop = statusOperation('stop', 'halted');
