import type { INodeProperties } from 'n8n-workflow';

import { create as createCallTask } from './callTask/create.operation';
import { deleteRecording } from './call/deleteRecording.operation';
import { depersonalize as depersonalizeCall } from './call/depersonalize.operation';
import { createAndRun } from './candidate/createAndRun.operation';
import { createBatch } from './candidate/createBatch.operation';
import { depersonalize as depersonalizeCandidate } from './candidate/depersonalize.operation';
import type { Operation } from './operation';

/** resource → operation → implementation; the one table the router dispatches on. */
export const operations: Record<string, Record<string, Operation>> = {
	callTask: { create: createCallTask },
	candidate: { createAndRun, createBatch, depersonalize: depersonalizeCandidate },
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
				name: 'Create and Run',
				value: 'createAndRun',
				description:
					'Call one person now: adds the candidate to today\'s task of the bot (created from the default template) and starts it',
				action: 'Create a candidate and run the call',
			},
			{
				name: 'Create Batch From Template',
				value: 'createBatch',
				description: 'Create a call task from a template with all input items as candidates, and start calling',
				action: 'Create a call task from a template with a batch of candidates',
			},
			{
				name: 'Depersonalize',
				value: 'depersonalize',
				description: 'Delete the personal data of a candidate\'s call, keeping or deleting the recording',
				action: 'Depersonalize a candidate s call',
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
				description: 'Delete the audio recording of a call',
				action: 'Delete a call recording',
			},
			{
				name: 'Depersonalize',
				value: 'depersonalize',
				description: 'Delete the personal data of a call, keeping or deleting the recording',
				action: 'Depersonalize a call',
			},
		],
		default: 'depersonalize',
	},
];

export const operationDescriptions: INodeProperties[] = Object.values(operations).flatMap((byOperation) =>
	Object.values(byOperation).flatMap((operation) => operation.description),
);
