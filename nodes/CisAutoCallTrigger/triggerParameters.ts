import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { type ReadParameter, readSavedParameter } from '../shared/parameterReaders';
import { readerFor } from './newTaskPanel';

/**
 * The parameter reader of a hook or webhook context, by version 1's names whatever the node's
 * version (newTaskPanel.ts says where version 2 keeps each field). A saved value without an expression
 * is read without n8n's expression engine. A webhook call builds the node from the published
 * workflow each time, so a changed setting counts from the next publish.
 */
export function parametersOf(context: IHookFunctions | IWebhookFunctions): ReadParameter {
	return readerFor(savedParametersOf(context), context.getNode().typeVersion);
}

/** The parameter reader by the names the parameters are saved under (those at the top level in every version). */
export function savedParametersOf(context: IHookFunctions | IWebhookFunctions): ReadParameter {
	return (name, fallback) => readSavedParameter(context, name, fallback);
}

/** The words that name this trigger node in n8n's log. */
export function whereInLog(context: IHookFunctions | IWebhookFunctions): string {
	return `CIS Auto-Call Trigger "${context.getNode().name}" (workflow ${context.getWorkflow().id ?? ''})`;
}
