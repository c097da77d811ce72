import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { taskStatusInWords } from '../../shared/taskStatus';
import { fromVersion2 } from '../versions';

/** Get / Get Many from version 2: on by default, as n8n's guidelines ask for large outputs. */
export const simplifyOption: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	displayOptions: fromVersion2,
	description: 'Whether to return a simplified version of the response instead of the raw data',
};

/** The counts people map, by the names the service's statistics use. */
const COUNTS: Array<[output: string, stat: string]> = [
	['people', 'candidates'],
	['peopleWaiting', 'candidatesNew'],
	['peopleInProgress', 'candidatesInProgress'],
	['peopleDone', 'candidatesDone'],
	['peopleSuccessful', 'candidatesSuccess'],
	['peopleFailed', 'candidatesFailed'],
	['peopleCancelled', 'candidatesCancelled'],
	['calls', 'calls'],
];

/**
 * A call task as most workflows use it: its ID, name, status in words, the counts of people and
 * calls where the answer has them, and its dates. What the answer lacks is left out, not invented.
 */
export function simplifyTask(task: IDataObject, autoCallId: IDataObject[string]): IDataObject {
	const simple: IDataObject = { autoCallId };
	if (task.name !== undefined) simple.name = task.name;
	if (task.status !== undefined) {
		simple.status = taskStatusInWords(task.status) as IDataObject[string];
		simple.statusCode = task.status;
	}
	const stats = (task.stats && typeof task.stats === 'object' ? task.stats : {}) as IDataObject;
	for (const [output, stat] of COUNTS)
		if (typeof stats[stat] === 'number') simple[output] = stats[stat];
	for (const date of ['createdAt', 'updatedAt'])
		if (task[date] !== undefined) simple[date] = task[date];
	return simple;
}
