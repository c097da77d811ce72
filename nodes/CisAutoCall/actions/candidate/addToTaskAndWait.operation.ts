import { waitForResultFields } from '../../descriptions/waitFields';
import { defineOperation } from '../defineOperation';
import { addToTaskDeclaration } from './addToTask.operation';

/**
 * Add to Task and Wait for Result: the request of Add to Task, then the execution waits until the
 * CIS Auto-Call Trigger hands it the call's result (actions/waiting/). The person is called when
 * the task runs: a task that is not running (and Start the Task Too off) ends at Wait at Most.
 */
export const addToTaskAndWait = defineOperation({
	...addToTaskDeclaration,
	waits: waitForResultFields(
		'of this task (the trigger that created it, or its Production URL in the task or template), and the task must run: start it or turn on Start the Task Too',
	),
});
