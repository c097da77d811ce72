import type { IDataObject } from 'n8n-workflow';

import { addedCandidateIdOf } from '../../../shared/answerShapes';
import { identityOf, isPlainObject } from '../../../shared/validation';
import { CANDIDATE_ID_UNKNOWN } from '../agent';

/** What one entry of a batch request was sent with: its call task when known, and its numbers (digits). */
export interface SentEntry {
	/** Undefined when the request itself creates the task (Create Batch's first request). */
	taskId?: string;
	phones: string[];
}

interface AnswerEntry {
	taskId?: string;
	candidateId?: string;
	/** Digits of the number(s) the answer names for the entry, when it names any. */
	phones?: string[];
}

/**
 * Maps a batch answer back to what was sent, one result per sent entry. The spec (4.5) answers "an
 * array whose elements are arrays" of {autoCallId, autoCallCandidateId} and leaves the mapping "not
 * shown"; the answer may hold one inner array per entry (`[[A], [B], [C]]`) or one per task
 * (`[[A1, A3], [B2]]`, whose order is not the order sent). So each answer entry is matched to a
 * sent entry of the same call task (and of the same number, when the answer names one), in the
 * order sent within each task. Where that cannot be done unambiguously (another count, a task or
 * number that matches nothing, several tasks where the request did not say which entry goes where)
 * no item gets a candidate id: each says why in `candidateIdUnknown`, and the raw answer is kept
 * once, in the first entry's result, so that run data stays proportional to the items (nodes
 * saved with version 1 keep 0.1.0's output: the raw answer in every entry's result).
 */
export function mapBatchResponse(
	response: unknown,
	itemIndexes: number[],
	sent: SentEntry[],
	{ rawInEveryEntry = false }: { rawInEveryEntry?: boolean } = {},
): IDataObject[] {
	const raw: unknown[] = Array.isArray(response)
		? response.flatMap((element: unknown) => (Array.isArray(element) ? element : [element]))
		: [];
	const answers = raw.map(readAnswerEntry);
	const matched =
		raw.length !== sent.length
			? `The answer holds ${raw.length} ${raw.length === 1 ? 'entry' : 'entries'} for the ${sent.length} candidates of this request`
			: answers.some((answer) => answer === undefined)
				? 'An entry of the answer is not an object'
				: matchAnswers(answers as AnswerEntry[], sent);
	if (typeof matched !== 'string') {
		return matched.map((answerIndex) => {
			const answer = answers[answerIndex] as AnswerEntry;
			return { autoCallId: answer.taskId, autoCallCandidateId: answer.candidateId };
		});
	}
	const taskIds = new Set(
		answers.map((answer) => answer?.taskId).filter((id): id is string => id !== undefined),
	);
	const answerTask = taskIds.size === 1 ? [...taskIds][0] : undefined;
	const why =
		`${matched}, so which candidate id belongs to which item is unknown. The candidates were sent (do not send them again); ` +
		`find their ids on the service. The raw answer is in the output of item ${itemIndexes[0]}.`;
	return itemIndexes.map((_, position) => ({
		autoCallId: sent[position].taskId ?? answerTask,
		[CANDIDATE_ID_UNKNOWN]: why,
		...(position === 0 || rawInEveryEntry ? { unmappedResponse: response as IDataObject } : {}),
	}));
}

function readAnswerEntry(entry: unknown): AnswerEntry | undefined {
	if (!isPlainObject(entry)) return undefined;
	const phone = entry.phone;
	const list = Array.isArray(phone) ? phone : phone === undefined || phone === null ? [] : [phone];
	const phones = list
		.filter(
			(value): value is string | number => typeof value === 'string' || typeof value === 'number',
		)
		.map((value) => String(value).replace(/[^0-9]/g, ''))
		.filter((digits) => digits !== '');
	return {
		taskId: identityOf(entry.autoCallId),
		candidateId: addedCandidateIdOf(entry),
		...(phones.length > 0 ? { phones } : {}),
	};
}

/** For each sent entry, the index of its answer entry; or why no unambiguous match exists. */
function matchAnswers(answers: AnswerEntry[], sent: SentEntry[]): number[] | string {
	const sentTasks = new Set(sent.map((entry) => entry.taskId).filter((id) => id !== undefined));
	const answerTasks = new Set(
		answers.map((answer) => answer.taskId).filter((id) => id !== undefined),
	);
	const everyAnswerNamesNumber = answers.every((answer) => answer.phones !== undefined);
	const tasksUnsaid = sent.some((entry) => entry.taskId === undefined);
	if (tasksUnsaid && answerTasks.size > 1 && !everyAnswerNamesNumber) {
		return `The answer names ${answerTasks.size} call tasks without saying which number went to which`;
	}
	const taken = new Set<number>();
	const result: number[] = [];
	for (const [sentIndex, entry] of sent.entries()) {
		const answerIndex = answers.findIndex((answer, index) => {
			if (taken.has(index)) return false;
			if (entry.taskId !== undefined) {
				if (answer.taskId === undefined ? sentTasks.size > 1 : answer.taskId !== entry.taskId)
					return false;
			}
			return (
				answer.phones === undefined || answer.phones.some((digits) => entry.phones.includes(digits))
			);
		});
		if (answerIndex === -1) {
			return `No entry of the answer matches candidate ${sentIndex + 1} of this request (its call task and number)`;
		}
		taken.add(answerIndex);
		result.push(answerIndex);
	}
	return result;
}

/** The one call task all results name, if they name exactly one. */
export function singleTaskIdOf(results: IDataObject[]): string | undefined {
	const taskIds = new Set(results.map((result) => result.autoCallId));
	const [taskId] = [...taskIds];
	return taskIds.size === 1 && typeof taskId === 'string' ? taskId : undefined;
}

/** Nodes saved with version 1 keep 0.1.0's output of an answer that cannot be matched. */
export function batchAnswerOptions(context: { getNode(): { typeVersion: number } }): {
	rawInEveryEntry: boolean;
} {
	return { rawInEveryEntry: context.getNode().typeVersion < 2 };
}
