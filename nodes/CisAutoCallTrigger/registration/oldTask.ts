import type { IHookFunctions, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	getTask,
	getTaskRequest,
	setTaskStatus,
	setTaskStatusRequest,
} from '../../shared/callTasks';
import { type ApiClient, type FailureKind, kindOfError } from '../../shared/transport';
import { parametersOf } from '../triggerParameters';
import type { Registration } from '../staticData';
import { withoutKey } from '../../shared/convert';

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
			'Unpublishing or changing the settings pauses the task; publishing again with unchanged settings resumes it',
	},
	{
		name: 'Stop It When Replaced',
		value: 'stop',
		description:
			'A task replaced by changed settings is stopped for good (it cannot be started again); unpublishing pauses it',
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

function readOldTaskPolicy(value: unknown): OldTaskPolicy {
	return value === 'stop' || value === 'leave' ? value : DEFAULT_OLD_TASK_POLICY;
}

/** The platform endpoint (`telephony/autoCall/{id}/<action>`) a policy calls for, if any. */
function retireActionFor(
	policy: OldTaskPolicy,
	reason: RetireReason,
): 'pause' | 'halted' | undefined {
	if (policy === 'leave') return undefined;
	return policy === 'stop' && reason === 'replaced' ? 'halted' : 'pause';
}

export interface RetireOutcome {
	/** What became of the task, in words for the user ("paused", "already stopped", ...). */
	result: string;
	/** The task status read before acting (the service's GET telephony/autoCall/{id}), if known. */
	statusBefore?: string;
	/** True when this call paused the task, so that taking it back may resume it. */
	pausedHere: boolean;
}

async function readStatus(
	client: ApiClient,
	autoCallId: string,
): Promise<{ status?: string; found: boolean }> {
	try {
		const task = await getTask(client, getTaskRequest(autoCallId));
		const status = typeof task.status === 'string' ? task.status.toUpperCase() : undefined;
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
async function retireTask(
	client: ApiClient,
	autoCallId: string,
	action: 'pause' | 'halted',
): Promise<RetireOutcome | { failed: Error }> {
	const { status, found } = await readStatus(client, autoCallId);
	if (status === 'HALTED')
		return { result: 'already stopped', statusBefore: status, pausedHere: false };
	if (action === 'pause' && status === 'PAUSED')
		return { result: 'already paused', statusBefore: status, pausedHere: false };
	if (action === 'pause' && status === 'BLANK')
		return { result: 'not started, left as it is', statusBefore: status, pausedHere: false };
	try {
		await setTaskStatus(client, setTaskStatusRequest(autoCallId, action));
	} catch (error) {
		// Neither readable nor found: the task no longer exists, so it calls nobody.
		if (!found && kindOfError(error) === 'notFound')
			return { result: 'not found on the service', pausedHere: false };
		return { failed: error as Error };
	}
	return {
		result: action === 'pause' ? 'paused' : 'stopped',
		statusBefore: status,
		pausedHere: action === 'pause',
	};
}

/** Resumes (`play`) a task that retireTask() paused while it was running. */
async function resumeTask(client: ApiClient, autoCallId: string): Promise<void> {
	await setTaskStatus(client, setTaskStatusRequest(autoCallId, 'play'));
}

/**
 * Applies the "Old Task" choice to a task the trigger stops using. Throws a NodeOperationError
 * that says what to do when the task could not be paused or stopped.
 */
export async function retire(
	context: IHookFunctions,
	client: () => Promise<ApiClient>,
	registration: Registration,
	reason: RetireReason,
): Promise<RetireOutcome> {
	const policy = readOldTaskPolicy(parametersOf(context)('oldTask', DEFAULT_OLD_TASK_POLICY));
	const action = retireActionFor(policy, reason);
	const id = registration.autoCallId;
	if (!action) return { result: 'left running', pausedHere: false };
	let outcome: RetireOutcome | { failed: Error };
	try {
		outcome = await retireTask(await client(), id, action);
	} catch (error) {
		outcome = { failed: error as Error };
	}
	if ('failed' in outcome) {
		const verb = action === 'pause' ? 'paused' : 'stopped';
		throw new NodeOperationError(
			context.getNode(),
			`The call task ${id} could not be ${verb}: ${outcome.failed.message}`,
			{
				description:
					reason === 'replaced'
						? `The settings changed, so this trigger would register a new task; none was created, so that two campaigns do not call at once. Pause or stop task ${id} (in the service, or with CIS Auto-Call → Call Task → Pause / Stop), or set "Old Task" to "Leave It Running", then activate again.`
						: `The workflow is deactivated, but task ${id} may still be calling its candidates. Pause or stop it in the service or with CIS Auto-Call → Call Task → Pause / Stop.`,
			},
		);
	}
	context.logger.info(
		`CIS Auto-Call Trigger "${context.getNode().name}": call task ${id} ${outcome.result} (${reason === 'replaced' ? 'replaced by a new task' : 'workflow deactivated'})`,
	);
	return outcome;
}

/**
 * A registration set aside after retire(): marked for resuming only when the trigger paused it
 * while it was seen running (PROCESS), so that taking it back never moves it further than it was.
 * A task paused before its start moment (READY), or whose status could not be read, is not
 * marked: resuming it would start calling at once instead of at that moment.
 */
export function parkedAfter(registration: Registration, outcome: RetireOutcome): Registration {
	const parked = withoutKey(registration, 'pausedByTrigger');
	return outcome.pausedHere && outcome.statusBefore === 'PROCESS'
		? { ...parked, pausedByTrigger: true }
		: parked;
}

/** Answers to a resume that mean the task is gone or stopped for good (404, 409, 400/422): a new one is created. */
const CANNOT_TAKE_BACK = new Set<FailureKind>(['notFound', 'conflict', 'refusedInput']);

/**
 * Takes a parked task back: resumes it if deactivation paused it while it was running. False
 * when it cannot be taken back (deleted, or stopped meanwhile): a new task is created instead.
 */
export async function takeBack(
	context: IHookFunctions,
	client: () => Promise<ApiClient>,
	parked: Registration,
): Promise<boolean> {
	if (parked.pausedByTrigger !== true) return true;
	try {
		await resumeTask(await client(), parked.autoCallId);
	} catch (error) {
		const kind = kindOfError(error);
		if (kind !== undefined && CANNOT_TAKE_BACK.has(kind)) return false;
		throw new NodeOperationError(
			context.getNode(),
			`The call task ${parked.autoCallId} could not be resumed: ${(error as Error).message}`,
			{
				description:
					'Deactivating the workflow paused it; activating with unchanged settings takes it back. Activate again, or start it with CIS Auto-Call → Call Task → Start.',
			},
		);
	}
	context.logger.info(
		`CIS Auto-Call Trigger "${context.getNode().name}": call task ${parked.autoCallId} taken back and resumed`,
	);
	return true;
}
