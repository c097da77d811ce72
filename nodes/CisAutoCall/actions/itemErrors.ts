import { NodeOperationError } from 'n8n-workflow';

import { errorMayHaveCarriedOut } from '../../shared/transport';

// The two facts about an item's error that operations and the pipeline both ask.

/** An item the node itself did not send (nothing can have been created for it). */
export class NotSentError extends NodeOperationError {}

/**
 * Whether a failed request may still have created something: never for an item the node did not
 * send; otherwise the transport's failure rules decide (errorMayHaveCarriedOut).
 */
export function mayHaveCreated(error: Error): boolean {
	return !(error instanceof NotSentError) && errorMayHaveCarriedOut(error);
}
