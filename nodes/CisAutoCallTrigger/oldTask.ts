import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';

import type { ApiClient } from '../shared/transport';

/**
 * What happens to a call task this trigger stops using: when the workflow is deactivated, and
 * when changed settings (or a new webhook URL) make the trigger register a new task. The
 * service has no call to detach a webhook from a task, so an old task would otherwise go on
 * calling its candidates, with its events refused.
 */
export type OldTaskPolicy = 'pause' | 'stop' | 'leave';

export const DEFAULT_OLD_TASK_POLICY: OldTaskPolicy = 'pause';

export const OLD_TASK_POLICY_OPTIONS: INodePropertyOptions[] = [
	{
		name: 'Pause It',
		value: 'pause',
		description:
			'Deactivating or changing the settings pauses the task. Activating again with unchanged settings takes it back and resumes it. Reversible.',
	},
	{
		name: 'Stop It When Replaced',
		value: 'stop',
		description:
			'When changed settings register a new task, the old one is stopped for good (final: a stopped task cannot be started again). Deactivating pauses it, because n8n also deactivates a trigger when its workflow is saved or re-published.',
	},
	{
		name: 'Leave It Running',
		value: 'leave',
		description:
			'Nothing is done: the old task keeps calling the candidates it has, and its events are refused (401)',
	},
];

/** Why the trigger stops using a task. */
export type RetireReason = 'deactivated' | 'replaced';

export function readOldTaskPolicy(value: unknown): OldTaskPolicy {
	return value === 'stop' || value === 'leave' ? value : DEFAULT_OLD_TASK_POLICY;
}

/** The platform endpoint (`telephony/autoCall/{id}/<action>`) a policy calls for, if any. */
export function retireActionFor(policy: OldTaskPolicy, reason: RetireReason): 'pause' | 'halted' | undefined {
	if (policy === 'leave') return undefined;
	return policy === 'stop' && reason === 'replaced' ? 'halted' : 'pause';
}

export interface RetireOutcome {
	/** What became of the task, in words for the user ("paused", "already stopped", ...). */
	result: string;
	/** The task status read before acting (platform-facts: GET telephony/autoCall/{id}), if known. */
	statusBefore?: string;
	/** True when this call paused the task, so that taking it back may resume it. */
	pausedHere: boolean;
}

/** The HTTP status of a NodeApiError from the transport, as n8n keeps it (text). */
export function httpCodeOf(error: unknown): string | undefined {
	const code = (error as { httpCode?: unknown } | undefined)?.httpCode;
	return typeof code === 'string' ? code : undefined;
}

const taskPath = (autoCallId: string) => `telephony/autoCall/${encodeURIComponent(autoCallId)}`;

async function readStatus(client: ApiClient, autoCallId: string): Promise<{ status?: string; found: boolean }> {
	try {
		const task = await client.request<IDataObject>({ method: 'GET', path: taskPath(autoCallId), repeatability: 'safe', beyondSpec: true });
		const status = task && typeof task === 'object' && typeof task.status === 'string' ? task.status.toUpperCase() : undefined;
		return { status, found: true };
	} catch {
		// A task that cannot be read may still be paused: the pause request decides.
		return { found: false };
	}
}

/**
 * Pauses or stops (`halted`) a task the trigger no longer uses. A task that is already
 * stopped, or (for a pause) already paused or never started, is left as it is. When the
 * service refuses or does not answer, the result carries its error (`failed`).
 */
export async function retireTask(
	client: ApiClient,
	autoCallId: string,
	action: 'pause' | 'halted',
): Promise<RetireOutcome | { failed: Error }> {
	const { status, found } = await readStatus(client, autoCallId);
	if (status === 'HALTED') return { result: 'already stopped', statusBefore: status, pausedHere: false };
	if (action === 'pause' && status === 'PAUSED') return { result: 'already paused', statusBefore: status, pausedHere: false };
	if (action === 'pause' && status === 'BLANK') return { result: 'not started, left as it is', statusBefore: status, pausedHere: false };
	try {
		await client.request({ method: 'POST', path: `${taskPath(autoCallId)}/${action}`, repeatability: 'safe', beyondSpec: true });
	} catch (error) {
		// Neither readable nor found: the task no longer exists, so it calls nobody.
		if (!found && httpCodeOf(error) === '404') return { result: 'not found on the service', pausedHere: false };
		return { failed: error as Error };
	}
	return { result: action === 'pause' ? 'paused' : 'stopped', statusBefore: status, pausedHere: action === 'pause' };
}

/** Resumes (`play`) a task that retireTask() paused while it was running. */
export async function resumeTask(client: ApiClient, autoCallId: string): Promise<void> {
	await client.request({ method: 'POST', path: `${taskPath(autoCallId)}/play`, repeatability: 'safe', beyondSpec: true });
}
