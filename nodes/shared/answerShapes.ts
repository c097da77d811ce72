import type { IDataObject } from 'n8n-workflow';

import type { AnswerCheck } from './transport';
import { identityOf, isPlainObject } from './validation';

/**
 * What a 2xx answer must look like for each endpoint (set as `ApiRequest.expect`). The operations
 * 4.1 to 4.6 of docs/service.md are checked against their contract; the other endpoints only
 * against what their use needs, passing unknown fields through. The problem texts name shapes and field names,
 * never values: the transport decides how much of the body to quote.
 */

/** The wrapper of every id (docs/service.md, Identifiers): `{identity: "<non-empty string>"}`. */
export function isIdentity(value: unknown): boolean {
	return identityOf(value, true) !== undefined;
}

/** The id wrapped as `{identity}` in `answer[field]`, if it is there. */
export function identityAt(answer: unknown, field: string): string | undefined {
	return isPlainObject(answer) ? identityOf(answer[field], true) : undefined;
}

/** A short description of an answer's shape, for problem texts. */
export function shapeOf(answer: unknown): string {
	if (answer === undefined || answer === null) return 'an empty answer';
	if (typeof answer === 'string') {
		const text = answer.trim();
		if (text === '') return 'an empty answer';
		return text.startsWith('<') ? 'an HTML or XML page, not JSON' : 'a text, not a JSON object';
	}
	if (Array.isArray(answer))
		return `a list of ${answer.length} element${answer.length === 1 ? '' : 's'}`;
	if (isPlainObject(answer)) {
		const fields = Object.keys(answer);
		if (fields.length === 0) return 'an empty object';
		const named = fields.slice(0, 6).join(', ') + (fields.length > 6 ? ', ...' : '');
		return `an object with the field${fields.length === 1 ? '' : 's'} ${named}`;
	}
	return `a ${typeof answer}`;
}

/** An answer that reports a failure in a 2xx (`{"error": "..."}`), as the platform's error bodies do. */
function carriesError(answer: IDataObject): boolean {
	const error = answer.error;
	return error !== undefined && error !== null && error !== false && error !== '';
}

/** "200 with no body" (4.1, 4.2, 4.3 of docs/service.md). n8n hands an empty body over as '' (or nothing); `{}` is accepted as empty too. */
function isEmpty(answer: unknown): boolean {
	if (answer === undefined || answer === null) return true;
	if (typeof answer === 'string') return answer.trim() === '';
	return isPlainObject(answer) && Object.keys(answer).length === 0;
}

/** 4.1, 4.2, 4.3 of docs/service.md: HTTP 200 with no body. */
export const expectNoBody: AnswerCheck = (answer) =>
	isEmpty(answer) ? undefined : `the API promises an empty answer, but it is ${shapeOf(answer)}`;

/** 4.6 of docs/service.md (and the trigger's registration): `{id: {identity}}`, the created task's id. */
export const expectTaskId: AnswerCheck = (answer) => {
	if (isPlainObject(answer) && isIdentity(answer.id) && !carriesError(answer)) return undefined;
	return `the API promises the task id as {"id": {"identity": "..."}}, but the answer is ${shapeOf(answer)}`;
};

/** The candidate id of a 4.4 answer: `id.identity` (spec), or `autoCallCandidateId.identity` (the 4.5 entry form). */
export function candidateIdOf(answer: unknown): string | undefined {
	return identityAt(answer, 'id') ?? identityAt(answer, 'autoCallCandidateId');
}

/** 4.4 of docs/service.md: `{id: {identity}}`, the added candidate's id. */
export const expectCandidateId: AnswerCheck = (answer) => {
	if (candidateIdOf(answer) !== undefined && !carriesError(answer as IDataObject)) return undefined;
	return `the API promises the candidate id as {"id": {"identity": "..."}}, but the answer is ${shapeOf(answer)}`;
};

/** 4.5 of docs/service.md: an array whose elements are arrays of {autoCallId: {identity}, autoCallCandidateId: {identity}}. */
export const expectBatchAnswer: AnswerCheck = (answer) => {
	const promise =
		'the API promises a list of lists of {"autoCallId": {"identity"}, "autoCallCandidateId": {"identity"}}';
	if (!Array.isArray(answer) || answer.length === 0)
		return `${promise}, but the answer is ${shapeOf(answer)}`;
	for (let index = 0; index < answer.length; index++) {
		const inner: unknown = answer[index];
		if (!Array.isArray(inner) || inner.length === 0) {
			return `${promise}, but element ${index} of the answer is ${shapeOf(inner)}`;
		}
		const wrong = inner.findIndex(
			(entry: unknown) =>
				!isPlainObject(entry) ||
				!isIdentity(entry.autoCallId) ||
				!isIdentity(entry.autoCallCandidateId),
		);
		if (wrong !== -1)
			return `${promise}, but entry ${wrong} of element ${index} is ${shapeOf(inner[wrong])}`;
	}
	return undefined;
};

/**
 * `POST telephony/autoCallCandidate` (beyond 4.1 to 4.6 of docs/service.md): an object carrying the candidate's id
 * (`id` wrapped or plain, or `autoCallCandidateId`); other fields pass through.
 */
export function addedCandidateIdOf(answer: unknown): string | undefined {
	if (!isPlainObject(answer)) return undefined;
	return identityOf(answer.id) ?? identityOf(answer.autoCallCandidateId);
}

export const expectAddedCandidate: AnswerCheck = (answer) => {
	if (addedCandidateIdOf(answer) !== undefined && !carriesError(answer as IDataObject))
		return undefined;
	return `a candidate id was expected (as "id" or "autoCallCandidateId"), but the answer is ${shapeOf(answer)}`;
};

/**
 * `POST telephony/autoCallCandidate/batch` (beyond the spec): a list of entries carrying candidate
 * ids, nested as in 4.5 or flat.
 */
export const expectAddedCandidates: AnswerCheck = (answer) => {
	if (!Array.isArray(answer) || answer.length === 0) {
		return `a list of added candidates was expected, but the answer is ${shapeOf(answer)}`;
	}
	const entries = answer.flatMap((element: unknown) =>
		Array.isArray(element) ? element : [element],
	);
	const wrong = entries.findIndex((entry: unknown) => addedCandidateIdOf(entry) === undefined);
	if (entries.length === 0 || wrong !== -1) {
		return `a list of added candidates, each with a candidate id, was expected, but entry ${Math.max(0, wrong)} is ${shapeOf(entries[wrong])}`;
	}
	return undefined;
};

/** `GET telephony/autoCall` (beyond the spec, DOC): `{items: [...]}` of task objects; a bare list is accepted too. */
export const expectTaskList: AnswerCheck = (answer) => {
	const tasks: unknown = Array.isArray(answer)
		? answer
		: isPlainObject(answer)
			? answer.items
			: undefined;
	if (!Array.isArray(tasks))
		return `a list of call tasks as {"items": [...]} was expected, but the answer is ${shapeOf(answer)}`;
	const wrong = tasks.findIndex((task: unknown) => !isPlainObject(task));
	return wrong === -1
		? undefined
		: `a list of call tasks was expected, but its element ${wrong} is ${shapeOf(tasks[wrong])}`;
};

/** `GET telephony/autoCall/{id}` (beyond the spec, CODE): the task as an object, possibly wrapped as `{item}`. */
export const expectTask: AnswerCheck = (answer) => {
	if (isPlainObject(answer) && !carriesError(answer)) {
		const task = answer.item ?? answer;
		if (isPlainObject(task) && Object.keys(task).length > 0) return undefined;
	}
	return `a call task object was expected, but the answer is ${shapeOf(answer)}`;
};

/**
 * Start / Pause / Stop and Cancel (beyond the spec, answers unknown): an empty answer or an
 * object that does not report an error; its fields pass through.
 */
export const expectAcknowledgement: AnswerCheck = (answer) => {
	if (isEmpty(answer) || (isPlainObject(answer) && !carriesError(answer))) return undefined;
	return `an empty answer or a JSON object was expected, but the answer is ${shapeOf(answer)}`;
};
