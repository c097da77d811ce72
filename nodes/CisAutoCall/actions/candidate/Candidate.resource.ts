import { defineResource } from '../defineResource';
import { addManyToTask } from './addManyToTask.operation';
import { addToTask } from './addToTask.operation';
import { addToTaskAndWait } from './addToTaskAndWait.operation';
import { cancel } from './cancel.operation';
import { createAndRun } from './createAndRun.operation';
import { createAndRunAndWait } from './createAndRunAndWait.operation';
import { createBatch } from './createBatch.operation';
import { depersonalize } from './depersonalize.operation';

export const candidate = defineResource({ name: 'Candidate', value: 'candidate' }, 'createAndRun', [
	{
		name: 'Add Many to Task',
		value: 'addManyToTask',
		description: 'Add all input items as candidates to an existing call task, in batches',
		action: 'Add people to a call task to be phoned',
		operation: addManyToTask,
	},
	{
		name: 'Add to Task',
		value: 'addToTask',
		description: 'Add one candidate per input item to an existing call task',
		action: 'Add a person to a call task to be phoned',
		operation: addToTask,
	},
	{
		name: 'Add to Task and Wait for Result',
		value: 'addToTaskAndWait',
		description:
			'Add one candidate per input item to an existing task and wait for the result; needs a CIS Auto-Call Trigger',
		action: 'Add a person to a call task and wait for the result',
		operation: addToTaskAndWait,
	},
	{
		name: 'Cancel',
		value: 'cancel',
		description: 'Cancel a candidate of a call task by phone number',
		action: 'Cancel a candidate so it is not phoned',
		operation: cancel,
	},
	{
		name: 'Create and Run',
		value: 'createAndRun',
		description:
			"Call one person now: adds the candidate to today's task of the bot (created from the default template) and starts it",
		action: 'Phone a person now with a voice bot',
		operation: createAndRun,
	},
	{
		name: 'Create and Run and Wait for Result',
		value: 'createAndRunAndWait',
		description:
			'Call one person now and pause the workflow until the call has a result; needs a CIS Auto-Call Trigger',
		action: 'Phone a person now and wait for the result',
		operation: createAndRunAndWait,
	},
	{
		name: 'Create Batch From Template',
		value: 'createBatch',
		description:
			'Create a call task from a template with all input items as candidates, and start calling',
		action: 'Phone a list of people with a voice bot',
		operation: createBatch,
	},
	{
		name: 'Depersonalize',
		value: 'depersonalize',
		description:
			"Delete the personal data of a candidate's call, keeping or deleting the recording; this cannot be undone",
		action: 'Depersonalize the call of a candidate',
		operation: depersonalize,
	},
]);
