import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorMayHaveCarriedOut } from '../../shared/transport';

// The facts about an item's error that operations, the pipeline and the run features ask.

/**
 * Why the node did not send an item: `input` (a bad value), `refused` (a limit the builder set said
 * no), `badNumber` (the number itself cannot be a person's phone), or `notSent` (any other reason
 * of the node's own; its message says "Not sent").
 */
export type NotSentReason = 'input' | 'refused' | 'badNumber' | 'notSent';

/** An item the node itself did not send (nothing can have been created for it). */
export class NotSentError extends NodeOperationError {
	constructor(
		node: INode,
		message: string,
		options: ConstructorParameters<typeof NodeOperationError>[2] = {},
		readonly why: NotSentReason = 'notSent',
		/** A refusal's words apart (shared/validation.ts, Refusal): the reason, the builder's fix, what an AI Agent should do. */
		readonly refusal?: { reason: string; builderFix?: string; forModel?: string },
	) {
		super(node, message, options);
	}
}

/**
 * Whether a failed request may still have created something: never for an item the node did not
 * send; otherwise the transport's failure rules decide (errorMayHaveCarriedOut).
 */
export function mayHaveCreated(error: Error): boolean {
	return !(error instanceof NotSentError) && errorMayHaveCarriedOut(error);
}

/**
 * Whether an item's request may have been carried out (a call may have started): it succeeded, or
 * it failed in a way that may still have created something. No outcome: the item was not sent.
 */
export function mayHaveStarted(
	outcome: { ok: true } | { ok: false; error: Error } | undefined,
): boolean {
	return outcome !== undefined && (outcome.ok || mayHaveCreated(outcome.error));
}
