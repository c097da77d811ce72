import type { IDataObject, INodeProperties } from 'n8n-workflow';

import {
	setTaskStatus,
	setTaskStatusRequest,
	type TaskStatusAction,
} from '../../../shared/callTasks';
import { autoCallIdLocator, perTask, taskNotFoundMeans } from '../../helpers/callTaskLocator';
import { defineOperation } from '../defineOperation';
import type { ItemOperation, PreparedRequest } from '../operation';

const stopNotice: INodeProperties = {
	displayName: 'Stopping is final: a stopped (halted) task cannot be started again',
	name: 'stopNotice',
	type: 'notice',
	default: '',
};

const startNotice: INodeProperties = {
	displayName:
		'Starting calls every person in the task who is still waiting, and each call costs money',
	name: 'startNotice',
	type: 'notice',
	default: '',
	// The AI Agent tool shows its own notice (defineOperation adds it to an operation that starts a task).
	displayOptions: { hide: { '@tool': [true] } },
};

/**
 * How many people the task holds, where the service's answer tells it (its statistics, or a count
 * of its own). No extra request: a Start must not fail, or be repeated, because a count was not read.
 */
export function peopleInTask(answer: unknown): number | undefined {
	if (!answer || typeof answer !== 'object') return undefined;
	const task = answer as IDataObject;
	const stats = (task.stats && typeof task.stats === 'object' ? task.stats : {}) as IDataObject;
	for (const count of [stats.candidates, task.candidatesCount, task.candidates]) {
		if (typeof count === 'number' && Number.isInteger(count) && count >= 0) return count;
	}
	return undefined;
}

/** Start (`play`), Pause (`pause`) and Stop (`halted`) differ only in the path's last word. */
function statusOperation(
	operation: 'start' | 'pause' | 'stop',
	action: TaskStatusAction,
): ItemOperation<PreparedRequest> {
	const notices: Record<typeof operation, INodeProperties[]> = {
		start: [startNotice],
		pause: [],
		stop: [stopNotice],
	};
	return defineOperation<PreparedRequest>({
		kind: 'item',
		notices: notices[operation],
		fields: [autoCallIdLocator],
		creates: false,
		prepare: perTask((id) => ({
			request: setTaskStatusRequest(id, action, { notFoundMeans: taskNotFoundMeans([id]) }),
			echo: { success: true, autoCallId: id, action },
		})),
		// Starting a task phones everyone in it: an AI Agent may do it only when the user allows it.
		...(operation === 'start' ? { startsTask: () => true } : {}),
		async execute({ client, context }, { request, echo }, itemIndex) {
			const response = await setTaskStatus(client, request, itemIndex);
			if (!response || typeof response !== 'object') return echo;
			// Nodes saved with version 1 keep 0.1.0's output.
			const people =
				operation === 'start' && context.getNode().typeVersion >= 2
					? peopleInTask(response)
					: undefined;
			return people === undefined
				? { ...echo, response }
				: { ...echo, peopleInTask: people, response };
		},
	});
}

export const start = statusOperation('start', 'play');
export const pause = statusOperation('pause', 'pause');
export const stop = statusOperation('stop', 'halted');
