import { defineResource } from '../resource';
import { addManyToTask } from './addManyToTask.operation';
import { addToTask } from './addToTask.operation';
import { cancel } from './cancel.operation';
import { createAndRun } from './createAndRun.operation';
import { createBatch } from './createBatch.operation';
import { depersonalize } from './depersonalize.operation';

export const candidate = defineResource(
	{ name: 'Candidate', value: 'candidate' },
	[addManyToTask, addToTask, cancel, createAndRun, createBatch, depersonalize],
	createAndRun,
);
