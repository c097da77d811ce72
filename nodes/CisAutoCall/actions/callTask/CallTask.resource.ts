import { defineResource } from '../resource';
import { create } from './create.operation';
import { get } from './get.operation';
import { getMany } from './getMany.operation';
import { pause, start, stop } from './setStatus.operation';

export const callTask = defineResource({ name: 'Call Task', value: 'callTask' }, [create, get, getMany, pause, start, stop], create);
