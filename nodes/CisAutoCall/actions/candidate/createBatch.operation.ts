import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { candidateFields } from '../../descriptions/candidateFields';
import { candidateReader } from '../../helpers/candidateReader';
import { expectAddedCandidates, expectBatchAnswer } from '../../../shared/answerShapes';
import { optionalIdText } from '../../../shared/validation';
import { mayHaveCreated, NotSentError } from '../itemErrors';
import { defineOperation } from '../defineOperation';
import type { BatchOperation, GroupTask, Run } from '../operation';
import {
	batchAnswerOptions,
	mapBatchResponse,
	type SentEntry,
	singleTaskIdOf,
} from './batchResponse';

const taskSettings: INodeProperties = {
	displayName: 'Task Settings',
	name: 'taskSettings',
	type: 'collection',
	placeholder: 'Add Setting',
	default: {},
	options: [
		{
			displayName: 'Bot Script ID',
			name: 'botSettingsId',
			type: 'string',
			default: '',
			description: "Script for the calls; left out, the template's script is used",
		},
		{
			displayName: 'Check Phones',
			name: 'checkPhone',
			type: 'boolean',
			default: false,
			description: 'Whether the service checks that the numbers are valid',
			hint: "Applies to the batches that create a task: with One Task for the Whole Run, only the first batch's numbers (adding to a task has no such setting).",
		},
		{
			displayName: 'Template ID',
			name: 'autoCallTemplateId',
			type: 'string',
			default: '',
			description:
				'Call-task template to use; left out, the template marked default in the service is used',
		},
	],
};

const callTasks: INodeProperties = {
	displayName: 'Call Tasks',
	name: 'callTasks',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'One Task for the Whole Run',
			value: 'oneTask',
			description: 'The first request creates and starts the task; the other batches join it',
		},
		{
			name: 'A New Task per Batch',
			value: 'taskPerBatch',
			description:
				'Each request of Batch Size candidates creates and starts its own task: 250 items with Batch Size 100 make 3 campaigns',
		},
	],
	default: 'oneTask',
	description: 'Items with a different template or bot script always go to a task of their own',
	hint: 'Not every server of the service can add people to a task: if yours cannot, choose A New Task per Batch. With it, each campaign dials (and is billed) separately.',
};

const fields: INodeProperties[] = [...candidateFields('batch'), taskSettings, callTasks];

function readTaskSettings(settings: IDataObject): IDataObject {
	const entry: IDataObject = {};
	const botSettingsId = optionalIdText('botSettingsId', settings.botSettingsId);
	if (botSettingsId) entry.botSettingsId = botSettingsId;
	const autoCallTemplateId = optionalIdText('autoCallTemplateId', settings.autoCallTemplateId);
	if (autoCallTemplateId) entry.autoCallTemplateId = autoCallTemplateId;
	if (typeof settings.checkPhone === 'boolean') entry.checkPhone = settings.checkPhone;
	return entry;
}

/** The fields an entry of `POST telephony/autoCallCandidate/batch` has, besides autoCallId. */
const JOINING_FIELDS = [
	'phone',
	'variables',
	'callbackData',
	'clientExternalId',
	'timezone',
] as const;

/**
 * An entry of a task that already exists: its id and only the fields that endpoint knows. The
 * settings that made the task (template, script, Check Phones) are not sent: a strict server
 * would refuse them, a lenient one would ignore them without a word.
 */
function joiningEntry(autoCallId: string, entry: IDataObject): IDataObject {
	const joining: IDataObject = { autoCallId };
	for (const field of JOINING_FIELDS) if (entry[field] !== undefined) joining[field] = entry[field];
	return joining;
}

function itemsText(itemIndexes: number[]): string {
	return itemIndexes.length === 1
		? `item ${itemIndexes[0]}`
		: `${itemIndexes.length} items from item ${itemIndexes[0]}`;
}

export const createBatch: BatchOperation = defineOperation({
	kind: 'batch',
	fields,
	creates: true,
	prepare({ parameter, items, readPhones }) {
		const readCandidate = candidateReader(parameter, items, 'batch', readPhones);
		return (itemIndex) => ({
			...readCandidate(itemIndex),
			...readTaskSettings(parameter('taskSettings', itemIndex, {}) as IDataObject),
		});
	},
	// One task per template and bot script (4.5 makes one task per template; a task has one script).
	groupOf: (run, entry) =>
		isTaskPerBatch(run)
			? ''
			: JSON.stringify([entry.autoCallTemplateId ?? '', entry.botSettingsId ?? '']),
	dialledPhones: (entry) => entry.phone as string[],
	// The run's first batch creates the call task; later batches join it with fewer fields each.
	request: (entries) => ({
		method: 'POST',
		path: 'telephony/autoCallCandidate/single/batch',
		body: { batch: entries },
		repeatability: 'create',
		expect: expectBatchAnswer,
	}),
	chunkSender(run) {
		const { client, context, groupTasks } = run;
		const taskPerBatch = isTaskPerBatch(run);

		const create = async (entries: IDataObject[], itemIndexes: number[]) => {
			const response = await client.request(createBatch.request(entries), itemIndexes[0]);
			return withPhones(
				mapBatchResponse(
					response,
					itemIndexes,
					sentEntries(entries),
					batchAnswerOptions(run.context),
				),
				entries,
			);
		};

		const join = async (autoCallId: string, entries: IDataObject[], itemIndexes: number[]) => {
			const response = await client.request(
				{
					method: 'POST',
					path: 'telephony/autoCallCandidate/batch',
					body: { batch: entries.map((entry) => joiningEntry(autoCallId, entry)) },
					repeatability: 'create',
					beyondSpec: true,
					notFoundMeans: `The call task "${autoCallId}" that this run created was not found, or this server cannot add people to a task (not every server of the service can). Choose "A New Task per Batch" under Call Tasks, or a Batch Size that holds all items.`,
					expect: expectAddedCandidates,
				},
				itemIndexes[0],
			);
			const results = withPhones(
				mapBatchResponse(
					response,
					itemIndexes,
					sentEntries(entries, autoCallId),
					batchAnswerOptions(run.context),
				),
				entries,
			);
			for (const result of results) result.autoCallId ??= autoCallId;
			return results;
		};

		return async (entries, itemIndexes) => {
			if (taskPerBatch) return await create(entries, itemIndexes);
			const group = createBatch.groupOf!(run, entries[0]);
			for (;;) {
				const task = groupTasks.get(group);
				if (task && 'taskId' in task) return await join(task.taskId, entries, itemIndexes);
				if (task && 'unusable' in task) {
					throw new NotSentError(
						context.getNode(),
						`Not sent: ${task.unusable} [item ${itemIndexes[0]}]`,
						{
							itemIndex: itemIndexes[0],
							description:
								'These candidates were not sent, so that nobody is put into a second task. Find the task on the service and add them with Candidate → Add Many to Task, or choose "A New Task per Batch" under Call Tasks.',
						},
					);
				}
				if (task) {
					await task.creating;
					continue;
				}
				let created!: () => void;
				groupTasks.set(group, { creating: new Promise<void>((resolve) => (created = resolve)) });
				const outcome = await create(entries, itemIndexes).then(
					(results) => ({ results }),
					(error: Error) => ({ error }),
				);
				const made = taskOfGroup(outcome, itemIndexes);
				if (made) groupTasks.set(group, made);
				else groupTasks.delete(group);
				created();
				if ('error' in outcome) throw outcome.error;
				return outcome.results;
			}
		};
	},
});

function isTaskPerBatch({ parameter }: Run): boolean {
	return parameter('callTasks', 0, 'oneTask') === 'taskPerBatch';
}

/** What the request creating a group's task left for the group's other batches. */
function taskOfGroup(
	outcome: { results: IDataObject[] } | { error: Error },
	itemIndexes: number[],
): GroupTask | undefined {
	if ('results' in outcome) {
		const taskId = singleTaskIdOf(outcome.results);
		if (taskId) return { taskId };
		return {
			unusable: `the answer to the request that created the call task (${itemsText(itemIndexes)}) names no single task to add them to`,
		};
	}
	if (mayHaveCreated(outcome.error)) {
		return {
			unusable: `the request that creates the call task (${itemsText(itemIndexes)}) failed after it was sent, so whether the task exists is unknown`,
		};
	}
	// Refused: nothing was created, so the next batch of the group creates the task.
	return undefined;
}

/** What the answer is matched against: each entry's task (when the request names it) and numbers. */
function sentEntries(entries: IDataObject[], taskId?: string): SentEntry[] {
	return entries.map((entry) => ({ taskId, phones: entry.phone as string[] }));
}

/** Adds each entry's phone to its result (in place: the results are new objects, one per item). */
function withPhones(results: IDataObject[], entries: IDataObject[]): IDataObject[] {
	results.forEach((result, index) => (result.phone = entries[index].phone));
	return results;
}
