/**
 * The fixtures of the trigger's jest tests (test/trigger): the parameters most of them start from.
 * The hand-over to a waiting execution shares the wait operations' set-up (test/actions/fixtures,
 * useWaitingN8n).
 */
import type { INodeParameters } from 'n8n-workflow';

/**
 * The trigger in New Call Task mode: a task of that name for bot-1, reporting the two events of a
 * call. Local URLs are allowed: the tests' n8n answers on 127.0.0.1, which the simulator reaches.
 */
export const newTaskParameters = (
	name: string,
	overrides: INodeParameters = {},
): INodeParameters => ({
	connectTo: 'newTask',
	authentication: 'accessToken',
	events: ['CALL_ENDED', 'CANDIDATE_CHANGED'],
	name,
	defaultExecData: 'bot-1',
	options: { allowLocalUrl: true },
	...overrides,
});
