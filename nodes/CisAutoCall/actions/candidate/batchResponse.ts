import type { IDataObject } from 'n8n-workflow';

import { addedCandidateIdOf } from '../../../shared/answers';
import { identityOf, isPlainObject } from '../../../shared/validation';

/**
 * Maps a batch answer back to its entries, one result per entry. The spec (4.5) answers "an array
 * whose elements are arrays" of {autoCallId, autoCallCandidateId} and leaves the mapping "not
 * shown"; both readings are met: one inner array per entry (`[[A], [B], [C]]`) and one inner array
 * per task (`[[A, B, C]]`). Flattened, position i is entry i when the counts match. Otherwise every
 * result says so, and the raw answer is kept once, in the first entry's result, so that run data
 * stays proportional to the items.
 */
export function mapBatchResponse(response: unknown, itemIndexes: number[]): IDataObject[] {
	const entries: unknown[] = Array.isArray(response)
		? response.flatMap((element: unknown) => (Array.isArray(element) ? element : [element]))
		: [];
	if (entries.length === itemIndexes.length && entries.every((entry) => isPlainObject(entry))) {
		return (entries as IDataObject[]).map((entry) => ({
			autoCallId: identityOf(entry.autoCallId),
			autoCallCandidateId: addedCandidateIdOf(entry),
		}));
	}
	const taskIds = new Set(
		entries
			.map((entry) => (isPlainObject(entry) ? identityOf(entry.autoCallId) : undefined))
			.filter((id): id is string => id !== undefined),
	);
	const autoCallId = taskIds.size === 1 ? [...taskIds][0] : undefined;
	const mappingProblem =
		`The answer holds ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'} for the ${itemIndexes.length} candidates of this request, ` +
		`so which candidate id belongs to which item is unknown. The candidates were sent; check them on the service. The raw answer is in the output of item ${itemIndexes[0]}.`;
	return itemIndexes.map((_, position) => ({
		autoCallId,
		autoCallCandidateId: undefined,
		mappingProblem,
		...(position === 0 ? { unmappedResponse: response as IDataObject } : {}),
	}));
}

/** The one call task all results name, if they name exactly one. */
export function singleTaskIdOf(results: IDataObject[]): string | undefined {
	const taskIds = new Set(results.map((result) => result.autoCallId));
	const [taskId] = [...taskIds];
	return taskIds.size === 1 && typeof taskId === 'string' ? taskId : undefined;
}
