import { waitForResultFields } from '../../descriptions/waitFields';
import { defineOperation } from '../defineOperation';
import { createAndRunDeclaration } from './createAndRun.operation';

/**
 * Create and Run and Wait for Result: the request of Create and Run, then the execution waits
 * (n8n's own waiting, as its send-and-wait operations do) until the CIS Auto-Call Trigger hands
 * it the call's result (actions/waiting/; the trigger's side: CisAutoCallTrigger/handOver/).
 */
export const createAndRunAndWait = defineOperation({
	...createAndRunDeclaration,
	waits: waitForResultFields(
		'of these calls: Connect To "Existing Task or Template", its Production URL in your default call-task template',
	),
});
