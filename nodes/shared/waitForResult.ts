import { createHash, timingSafeEqual } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from './validation';

/**
 * "Create and Run and Wait for Result": what the action node and the trigger share. The action
 * node adds a marker to each candidate's Callback Data (the service returns Callback Data
 * unchanged in every event); the trigger finds it in an event and resumes the waiting execution
 * at this n8n's own waiting-webhook address, with the wait's key; the waiting node accepts only
 * that key (on every n8n version, also on those that check nothing themselves).
 */

/** The Callback Data key of the marker; removed from everything the nodes output. */
export const WAIT_MARKER_FIELD = 'n8nCisAutoCallWait';

/** The body key of a resume request (the trigger → the waiting node). */
export const RESUME_BODY_FIELD = 'cisAutoCallResume';

/** What the action node puts into a candidate's Callback Data. */
export interface WaitMarker {
	/** The waiting execution's id. */
	execution: string;
	/** n8n 2.x: the execution's resume token (from `$execution.resumeUrl`); '' on n8n 1.x. */
	token: string;
	/**
	 * The path of this n8n's waiting webhooks (from `$execution.resumeUrl`: "/webhook-waiting", or
	 * another N8N_ENDPOINT_WEBHOOK_WAIT). Only a path: the trigger puts its own origin in front.
	 */
	path?: string;
	/** The waiting node's id: the path of its waiting webhook. */
	node: string;
	/** The input item the candidate came from. */
	item: number;
	/** The wait's key: 32 random bytes as hex, made for this wait only. */
	key: string;
	/** When the wait's time limit (Wait at Most) passes, in seconds since 1970; markers of 0.3.0 have none. */
	until?: number;
}

const ID_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;
const KEY_PATTERN = /^[0-9a-f]{64}$/;
const TOKEN_PATTERN = /^[A-Za-z0-9_.~-]{0,200}$/;
const PATH_PATTERN = /^(\/[A-Za-z0-9_.~-]{1,100}){1,8}$/;

/** The marker of `callbackData` (an object, as the trigger normalised it), or undefined when it has none or a bad one. */
export function waitMarkerOf(callbackData: unknown): WaitMarker | undefined {
	if (!isPlainObject(callbackData)) return undefined;
	const marker = (callbackData as IDataObject)[WAIT_MARKER_FIELD];
	if (!isPlainObject(marker)) return undefined;
	const { execution, token, node, item, key, path, until } = marker as IDataObject;
	if (typeof execution !== 'string' || !ID_PATTERN.test(execution)) return undefined;
	if (typeof node !== 'string' || !ID_PATTERN.test(node)) return undefined;
	if (typeof token !== 'string' || !TOKEN_PATTERN.test(token)) return undefined;
	if (typeof key !== 'string' || !KEY_PATTERN.test(key)) return undefined;
	if (typeof item !== 'number' || !Number.isInteger(item) || item < 0 || item > 1_000_000)
		return undefined;
	if (
		path !== undefined &&
		(typeof path !== 'string' || !PATH_PATTERN.test(path) || /\/\.{1,2}(\/|$)/.test(path))
	)
		return undefined;
	return {
		execution,
		token,
		node,
		item,
		key,
		...(path === undefined ? {} : { path }),
		...(typeof until === 'number' && Number.isFinite(until) ? { until } : {}),
	};
}

/** Callback Data without the marker: what the user put there, as the user put it. */
export function withoutWaitMarker(callbackData: unknown): unknown {
	if (!isPlainObject(callbackData) || !(WAIT_MARKER_FIELD in (callbackData as IDataObject)))
		return callbackData;
	const rest = { ...(callbackData as IDataObject) };
	delete rest[WAIT_MARKER_FIELD];
	return rest;
}

/** The hash kept in the waiting execution: enough to check a key, useless to resume with. */
export function hashWaitKey(key: string): string {
	return createHash('sha256').update(`cis-autocall-wait:${key}`).digest('hex');
}

/** Whether `key` is the one whose hash the execution keeps (constant time). */
export function waitKeyMatches(key: unknown, storedHash: unknown): boolean {
	if (typeof key !== 'string' || !KEY_PATTERN.test(key) || typeof storedHash !== 'string')
		return false;
	const given = Buffer.from(hashWaitKey(key), 'hex');
	const stored = Buffer.from(storedHash, 'hex');
	return stored.length === given.length && timingSafeEqual(given, stored);
}

/** How a candidate's wait ended, as the output says it. */
type WaitOutcome = 'answered' | 'notReached';

/** The result of one candidate that the trigger hands to the waiting node. */
export interface CandidateResult extends IDataObject {
	outcome: WaitOutcome;
	/** The call's status code (ANSWERED, NOANSWER, ...), when a call of the candidate was reported. */
	callStatus: string | null;
	callId: string | null;
	taskId: string | null;
	result: IDataObject | null;
	variables: IDataObject | null;
	/** The user's own Callback Data (marker removed). */
	callbackData: IDataObject;
	/** When the call ended, as the service said it, or when its report reached n8n. */
	endedAt: string;
	/** The event that ended the wait: CALL_ENDED (answered) or CANDIDATE_CHANGED (finished). */
	endedBy: string;
}

/** The call statuses of the service's Call Ended event in words. */
const CALL_STATUS_WORDS: Record<string, string> = {
	ANSWERED: 'Answered',
	NOANSWER: 'No answer',
	BUSY: 'Busy',
	CONGESTION: 'Network busy',
	CHANUNAVAIL: 'Line unavailable',
	FAILED: 'Failed',
	CANCEL: 'Cancelled',
	SCHEDULED: 'Scheduled',
	BLACKLIST: 'Number on the blocklist',
	DIAL: 'Dialling',
	INPROGRESS: 'In progress',
	INVALID: 'Invalid number',
	UNAVAILABLE: 'Unavailable',
	EXPIRED: 'Dialling took too long',
	REJECTED: 'Rejected',
};

/** The status in words for the output: what a CRM field can take as it is. */
export function statusInWords(result: CandidateResult): string {
	if (result.outcome === 'answered') return 'Answered';
	const last = result.callStatus
		? (CALL_STATUS_WORDS[result.callStatus] ?? result.callStatus)
		: undefined;
	return last ? `Not reached (last call: ${last})` : 'Not reached';
}
