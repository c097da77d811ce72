import type { IDataObject } from 'n8n-workflow';

import { expectAcknowledgement, expectTask, expectTaskId, identityAt } from './answerShapes';
import type { ApiClient, ApiRequest } from './transport';

/**
 * The call-task requests both nodes send (create, read, start / pause / stop), written once with
 * the answer checks of answerShapes.ts, so that the trigger's registration and retiring of tasks and
 * the action node's Call Task operations cannot drift apart.
 */

/** The last word of the status paths: Start (`play`), Pause (`pause`) and Stop (`halted`). */
export type TaskStatusAction = 'play' | 'pause' | 'halted';

/** What an operation may add to a task request: its own wording for a 404. */
export type TaskRequestExtras = Pick<ApiRequest, 'notFoundMeans'>;

const TASKS_PATH = 'telephony/autoCall';

const taskPath = (autoCallId: string) => `${TASKS_PATH}/${encodeURIComponent(autoCallId)}`;

/** 4.6 of docs/service.md: creates a task from a body built by callTaskBody.ts. Never repeated by itself. */
export function createTaskRequest(body: IDataObject): ApiRequest {
	return { method: 'POST', path: TASKS_PATH, body, repeatability: 'create', expect: expectTaskId };
}

/** `GET telephony/autoCall/{id}` (beyond the spec): the task as an object, possibly wrapped as `{item}`. */
export function getTaskRequest(autoCallId: string, extras: TaskRequestExtras = {}): ApiRequest {
	return {
		method: 'GET',
		path: taskPath(autoCallId),
		repeatability: 'safe',
		beyondSpec: true,
		...extras,
		expect: expectTask,
	};
}

/** `POST telephony/autoCall/{id}/{play|pause|halted}` (beyond the spec): safe to repeat, the task ends in the same status. */
export function setTaskStatusRequest(
	autoCallId: string,
	action: TaskStatusAction,
	extras: TaskRequestExtras = {},
): ApiRequest {
	return {
		method: 'POST',
		path: `${taskPath(autoCallId)}/${action}`,
		repeatability: 'safe',
		beyondSpec: true,
		...extras,
		expect: expectAcknowledgement,
	};
}

/** Sends a create request; the answer passed expectTaskId, so the id is there. */
export async function createTask(
	client: ApiClient,
	request: ApiRequest,
	itemIndex?: number,
): Promise<{ autoCallId: string; response: IDataObject }> {
	const response = await client.request<IDataObject>(request, itemIndex);
	return { autoCallId: identityAt(response, 'id') as string, response };
}

/** Reads a task, unwrapped from `{item}` when the service wraps it. */
export async function getTask(
	client: ApiClient,
	request: ApiRequest,
	itemIndex?: number,
): Promise<IDataObject> {
	const response = await client.request<IDataObject>(request, itemIndex);
	return (response?.item ?? response) as IDataObject;
}

/** Moves a task; the service's answer (an object, or nothing) is returned as it came. */
export async function setTaskStatus(
	client: ApiClient,
	request: ApiRequest,
	itemIndex?: number,
): Promise<IDataObject | string | undefined> {
	return await client.request<IDataObject | string | undefined>(request, itemIndex);
}
