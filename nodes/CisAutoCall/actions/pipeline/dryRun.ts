import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Guardrails } from '../../guardrails';
import type { Operation, Run } from '../operation';
import { API_PATH } from '../../../shared/transport/types';
import { checkItems } from './guard';
import { type Outcomes } from './outcome';
import { normalOutput } from './output';

/** A prepared item that is one request (item operations prepare an ApiRequest, or one with an echo). */
function requestOf(prepared: unknown): IDataObject | undefined {
	if (!prepared || typeof prepared !== 'object') return undefined;
	const value = prepared as IDataObject;
	const request = (value.request && typeof value.request === 'object' ? value.request : value) as IDataObject;
	return typeof request.method === 'string' && typeof request.path === 'string' ? request : undefined;
}

/** What one prepared item would send: the method, the path and the body (entries of batch operations). */
export function previewOf(operation: Operation, prepared: unknown): IDataObject {
	if (operation.kind === 'batch' && operation.preview) return operation.preview(prepared as IDataObject);
	const request = requestOf(prepared);
	if (!request) return { body: prepared as IDataObject };
	const preview: IDataObject = { method: request.method, path: `${API_PATH}${String(request.path)}` };
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
	run: Run,
	operation: Operation,
	prepared: Map<number, unknown>,
	outcomes: Outcomes,
	guardrails: Guardrails | undefined,
	continueOnFail: boolean,
): INodeExecutionData[] {
	if (guardrails) checkItems(run, operation, guardrails, prepared, outcomes, continueOnFail);
	for (const [itemIndex, value] of prepared) {
		outcomes[itemIndex] = { ok: true, json: { dryRun: true, wouldSend: previewOf(operation, value), sent: false } };
	}
	return normalOutput(outcomes);
}
