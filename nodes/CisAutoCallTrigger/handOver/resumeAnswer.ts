import { isPlainObject } from '../../shared/validation';

/**
 * What n8n's answer to a hand-over (a POST to n8n's own waiting address) means. Only n8n's own
 * answers count: the waiting node's (it resumed, it waits for results this process does not hold,
 * it refused the key) and n8n's words that the execution no longer waits (it does not exist, it has
 * finished). Anything else means "try again later": a webhook process that is starting up answers
 * every request 200 "n8n is starting up. Please wait", then 404 until its routes exist; a balancer
 * answers 502 for a process that is down; n8n answers 503 while its database is not ready, 409
 * while the execution still runs and 500 while another process resumes it (docs/queue-mode.md).
 */
export interface Gone {
	kind: 'gone';
	/** doesNotExist: deleted or pruned; failed: ended with an error (n8n restarted while it waited); finished / notWaitingHere: went on. */
	how: 'doesNotExist' | 'failed' | 'finished' | 'notWaitingHere';
}

export type ResumeAnswer =
	| { kind: 'resumed' }
	/** The execution waits for results this process does not hold. */
	| { kind: 'waiting' }
	/** Not a resume of this wait: the waiting node refused the key, or n8n the token. */
	| { kind: 'notThisWait' }
	| Gone
	/** `running`: n8n says the execution runs (resumed, or not saved as waiting yet). */
	| { kind: 'later'; reason: string; running?: true };

/** n8n's words about an execution, as n8n 2.41.1 and 1.123.81 write them (`The execution "28 has finished already.`). */
function says(message: string, execution: string, what: string): boolean {
	const id = execution.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return new RegExp(`^The execution "?${id}"? ${what}\\.$`).test(message);
}

export function resumeAnswerOf(status: number, body: unknown, execution: string): ResumeAnswer {
	const answer = isPlainObject(body) ? body : {};
	const message = typeof answer.message === 'string' ? answer.message : '';
	if (status === 200 && answer.resumed === true) return { kind: 'resumed' };
	if (status === 202 && answer.resumed === false) return { kind: 'waiting' };
	if (status === 401 && (answer.resumed === false || answer.error === 'Invalid token'))
		return { kind: 'notThisWait' };
	if (status === 404 && says(message, execution, 'does not exist'))
		return { kind: 'gone', how: 'doesNotExist' };
	if (status === 409 && says(message, execution, 'has finished with error'))
		return { kind: 'gone', how: 'failed' };
	if (status === 409 && says(message, execution, 'has finished already'))
		return { kind: 'gone', how: 'finished' };
	if (
		status === 404 &&
		message.startsWith(
			`The workflow for execution "${execution}" does not contain a waiting webhook`,
		)
	) {
		return { kind: 'gone', how: 'notWaitingHere' };
	}
	const running = status === 409 && says(message, execution, 'is running already');
	const said =
		message ||
		(typeof body === 'string' ? body.replace(/<[^>]*>/g, ' ') : '')
			.replace(/\s+/g, ' ')
			.trim()
			.slice(0, 80);
	return {
		kind: 'later',
		reason: `n8n's own waiting address answered ${status}${said ? ` (${said})` : ''}`,
		...(running ? { running: true as const } : {}),
	};
}
