import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { readerFor } from './layout';

/** Reads a node parameter, like `getNodeParameter`, in either kind of context. */
export type ParameterReader = (name: string, fallback: unknown) => unknown;

/**
 * The parameter reader of a hook or webhook context, by version 1's names whatever the node's
 * version (layout.ts says where version 2 keeps each field).
 */
export function parametersOf(context: IHookFunctions | IWebhookFunctions): ParameterReader {
	return readerFor((name, fallback) => context.getNodeParameter(name, fallback), context.getNode().typeVersion);
}
