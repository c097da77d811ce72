import type { INodeProperties } from 'n8n-workflow';

import { create as createCallTask } from './callTask/create.operation';
import { get as getCallTask } from './callTask/get.operation';
import { getMany as getManyCallTasks } from './callTask/getMany.operation';
import { pause, start, stop } from './callTask/setStatus.operation';
import { deleteRecording } from './call/deleteRecording.operation';
import { depersonalize as depersonalizeCall } from './call/depersonalize.operation';
import { addManyToTask } from './candidate/addManyToTask.operation';
import { addToTask } from './candidate/addToTask.operation';
import { cancel } from './candidate/cancel.operation';
import { createAndRun } from './candidate/createAndRun.operation';
import { createAndRunAndWait } from './candidate/createAndRunAndWait.operation';
import { createBatch } from './candidate/createBatch.operation';
import { depersonalize as depersonalizeCandidate } from './candidate/depersonalize.operation';
import type { Operation } from './operation';

/** resource → operation → implementation; the one table the router dispatches on. */
export const operations: Record<string, Record<string, Operation>> = {
	callTask: { create: createCallTask, get: getCallTask, getMany: getManyCallTasks, start, pause, stop },
	candidate: { createAndRun, createAndRunAndWait, createBatch, depersonalize: depersonalizeCandidate, addToTask, addManyToTask, cancel },
	call: { depersonalize: depersonalizeCall, deleteRecording },
};

export const resourceProperty: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	options: [
		{ name: 'Call', value: 'call' },
		{ name: 'Call Task', value: 'callTask' },
		{ name: 'Candidate', value: 'candidate' },
	],
	default: 'candidate',
};

export const operationProperties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['callTask'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Create a call task (campaign) with its dialling settings',
				action: 'Create a call task',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get one call task with its statistics',
				action: 'Get a call task',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List call tasks, with filters',
				action: 'Get many call tasks',
			},
			{
				name: 'Pause',
				value: 'pause',
				description: 'Pause a running call task',
				action: 'Pause a call task',
			},
			{
				name: 'Start',
				value: 'start',
				description: 'Start or resume a call task',
				action: 'Start a call task so its candidates are phoned',
			},
			{
				name: 'Stop',
				value: 'stop',
				description: 'Stop a call task for good (it cannot be started again)',
				action: 'Stop a call task',
			},
		],
		default: 'create',
	},
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['candidate'] } },
		options: [
			{
				name: 'Add Many to Task',
				value: 'addManyToTask',
				description: 'Add all input items as candidates to an existing call task, in batches',
				action: 'Add people to a call task to be phoned',
			},
			{
				name: 'Add to Task',
				value: 'addToTask',
				description: 'Add one candidate per input item to an existing call task',
				action: 'Add a person to a call task to be phoned',
			},
			{
				name: 'Cancel',
				value: 'cancel',
				description: 'Cancel a candidate of a call task by phone number',
				action: 'Cancel a candidate so it is not phoned',
			},
			{
				name: 'Create and Run',
				value: 'createAndRun',
				description:
					'Call one person now: adds the candidate to today\'s task of the bot (created from the default template) and starts it',
				action: 'Phone a person now with a voice bot',
			},
			{
				name: 'Create and Run and Wait for Result',
				value: 'createAndRunAndWait',
				description:
					'Call one person now and pause the workflow until the call has a result (needs a CIS Auto-Call Trigger that receives the bot\'s call events)',
				action: 'Phone a person now and wait for the result',
			},
			{
				name: 'Create Batch From Template',
				value: 'createBatch',
				description: 'Create a call task from a template with all input items as candidates, and start calling',
				action: 'Phone a list of people with a voice bot',
			},
			{
				name: 'Depersonalize',
				value: 'depersonalize',
				description: 'Delete the personal data of a candidate\'s call, keeping or deleting the recording; this cannot be undone',
				action: 'Depersonalize the call of a candidate',
			},
		],
		default: 'createAndRun',
	},
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['call'] } },
		options: [
			{
				name: 'Delete Recording',
				value: 'deleteRecording',
				description: 'Delete the audio recording of a call; this cannot be undone',
				action: 'Delete a call recording',
			},
			{
				name: 'Depersonalize',
				value: 'depersonalize',
				description: 'Delete the personal data of a call, keeping or deleting the recording; this cannot be undone',
				action: 'Depersonalize a call',
			},
		],
		default: 'depersonalize',
	},
];

export const operationDescriptions: INodeProperties[] = Object.values(operations).flatMap((byOperation) =>
	Object.values(byOperation).flatMap((operation) => operation.description),
);
