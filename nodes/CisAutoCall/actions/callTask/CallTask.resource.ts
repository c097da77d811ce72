import { defineResource } from '../defineResource';
import { create } from './create.operation';
import { get } from './get.operation';
import { getMany } from './getMany.operation';
import { pause, start, stop } from './setStatus.operation';

export const callTask = defineResource({ name: 'Call Task', value: 'callTask' }, 'create', [
	{
		name: 'Create',
		value: 'create',
		description: 'Create a call task (campaign) with its dialling settings',
		action: 'Create a call task',
		operation: create,
	},
	{
		name: 'Get',
		value: 'get',
		description: 'Get one call task with its statistics',
		action: 'Get a call task',
		operation: get,
	},
	{
		name: 'Get Many',
		value: 'getMany',
		description: 'List call tasks, with filters',
		action: 'Get many call tasks',
		operation: getMany,
	},
	{
		name: 'Pause',
		value: 'pause',
		description: 'Pause a running call task',
		action: 'Pause a call task',
		operation: pause,
	},
	{
		name: 'Start',
		value: 'start',
		description: 'Start or resume a call task',
		action: 'Start a call task so its candidates are phoned',
		operation: start,
	},
	{
		name: 'Stop',
		value: 'stop',
		description: 'Stop a call task for good (it cannot be started again)',
		action: 'Stop a call task',
		operation: stop,
	},
]);
