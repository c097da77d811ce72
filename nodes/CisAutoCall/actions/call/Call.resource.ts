import { defineResource } from '../resource';
import { deleteRecording } from './deleteRecording.operation';
import { depersonalize } from './depersonalize.operation';

export const call = defineResource({ name: 'Call', value: 'call' }, [deleteRecording, depersonalize], depersonalize);
