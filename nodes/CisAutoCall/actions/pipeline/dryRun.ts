import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Guardrails } from '../../guardrails';
import type { Operation } from '../operation';
import { API_PATH, type ApiRequest } from '../../../shared/transport/types';
import { checkItems } from './guard';
import { type Outcomes } from './outcome';
import { normalOutput } from './output';

type ShownRequest = Pick<ApiRequest, 'method' | 'path' | 'qs' | 'body'>;

/** The request one prepared item or entry would send (item operations prepare an ApiRequest, or one with an echo). */
function requestOf(operation: Operation, prepared: unknown): ShownRequest | undefined {
	if (operation.kind === 'batch') return operation.request([prepared as IDataObject]);
	if (!prepared || typeof prepared !== 'object') return undefined;
	const value = prepared as IDataObject;
	const request = (value.request && typeof value.request === 'object' ? value.request : value) as IDataObject;
	return typeof request.method === 'string' && typeof request.path === 'string' ? (request as unknown as ShownRequest) : undefined;
}

/** What one prepared item would send: the method, the path and the body (entries of batch operations). */
export function previewOf(operation: Operation, prepared: unknown): IDataObject {
	const request = requestOf(operation, prepared);
	if (!request) return { body: prepared as IDataObject };
	const preview: IDataObject = { method: request.method, path: `${API_PATH}${request.path}` };
	if (request.qs !== undefined) preview.query = request.qs;
	if (request.body !== undefined) preview.body = request.body;
	return preview;
}

/**
 * Dry Run: every item is checked as a real run checks it (its fields, Allowed Numbers, what an
 * AI Agent may do), and gives the request it would send. Nothing is sent, nothing is booked
 * against Max Calls per Run, and nothing is recorded for re-runs.
 */
export function dryRunOutput(
	operation: Operation,
	prepared: Map<number, unknown>,
	outcomes: Outcomes,
	guardrails: Guardrails | undefined,
): INodeExecutionData[] {
	if (guardrails) checkItems(operation, guardrails, prepared, outcomes);
	for (const [itemIndex, value] of prepared) {
		outcomes.succeed(itemIndex, { dryRun: true, wouldSend: previewOf(operation, value), sent: false });
	}
	return normalOutput(outcomes.all);
}
