import type { IDataObject } from 'n8n-workflow';

import type { Operation } from '../../operation';
import { API_PATH, type ApiRequest } from '../../../../shared/transport/types';
import type { ItemResults, Step } from '../feature';

type ShownRequest = Pick<ApiRequest, 'method' | 'path' | 'qs' | 'body'>;

/** The request one prepared item or entry would send (item operations prepare an ApiRequest, or one with an echo). */
function requestOf(operation: Operation, prepared: unknown): ShownRequest | undefined {
	if (operation.kind === 'batch') return operation.request([prepared as IDataObject]);
	if (!prepared || typeof prepared !== 'object') return undefined;
	const value = prepared as IDataObject;
	const request = (
		value.request && typeof value.request === 'object' ? value.request : value
	) as IDataObject;
	return typeof request.method === 'string' && typeof request.path === 'string'
		? (request as unknown as ShownRequest)
		: undefined;
}

/** What one prepared item would send: the method, the path and the body (entries of batch operations). */
function previewOf(operation: Operation, prepared: unknown): IDataObject {
	const request = requestOf(operation, prepared);
	if (!request) return { body: prepared as IDataObject };
	const preview: IDataObject = { method: request.method, path: `${API_PATH}${request.path}` };
	if (request.qs !== undefined) preview.query = request.qs;
	if (request.body !== undefined) preview.body = request.body;
	return preview;
}

/**
 * Dry Run's step: the run sends nothing. Every item is checked as a real run checks it (its fields,
 * and the other steps' `check`: Allowed Numbers, what an AI Agent may do), and gives the request it
 * would send. Nothing is sent, nothing is booked against Max Calls per Run, and nothing is
 * recorded for re-runs.
 */
export const dryRunStep: Step = {
	sendsNothing: true,
	show(operation: Operation, prepared: Map<number, unknown>, results: ItemResults): void {
		for (const [itemIndex, value] of prepared) {
			results.succeed(itemIndex, {
				dryRun: true,
				wouldSend: previewOf(operation, value),
				sent: false,
			});
		}
	},
};
