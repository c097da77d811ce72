import type { IDataObject } from 'n8n-workflow';

import { identityOf, isPlainObject } from '../../../shared/validation';

/**
 * Maps a batch answer back to its entries. The spec answers an array of arrays of
 * {autoCallId, autoCallCandidateId}; which outer element belongs to which entry is "not shown",
 * so position i is taken as entry i when the counts match. Anything else keeps the raw answer.
 */
export function mapBatchResponse(response: unknown, entryCount: number): IDataObject[] {
	const elements = Array.isArray(response) ? response.map((element) => (Array.isArray(element) ? element[0] : element)) : [];
	const matches = elements.length === entryCount && elements.every((element) => isPlainObject(element));
	if (matches) {
		return elements.map((element: IDataObject) => ({
			autoCallId: identityOf(element.autoCallId),
			autoCallCandidateId: identityOf(element.autoCallCandidateId),
		}));
	}
	const taskIds = new Set(
		elements.filter((element) => isPlainObject(element)).map((element: IDataObject) => identityOf(element.autoCallId)),
	);
	const autoCallId = taskIds.size === 1 ? [...taskIds][0] : undefined;
	return Array.from({ length: entryCount }, () => ({
		autoCallId,
		autoCallCandidateId: undefined,
		unmappedResponse: response as IDataObject,
	}));
}
