import { defineResource } from '../defineResource';
import { deleteRecording } from './deleteRecording.operation';
import { depersonalize } from './depersonalize.operation';

export const call = defineResource({ name: 'Call', value: 'call' }, 'depersonalize', [
	{
		name: 'Delete Recording',
		value: 'deleteRecording',
		description: 'Delete the audio recording of a call; this cannot be undone',
		action: 'Delete a call recording',
		operation: deleteRecording,
	},
	{
		name: 'Depersonalize',
		value: 'depersonalize',
		description:
			'Delete the personal data of a call, keeping or deleting the recording; this cannot be undone',
		action: 'Depersonalize a call',
		operation: depersonalize,
	},
]);
