import { peopleInTask } from '../../nodes/CisAutoCall/actions/callTask/setStatus.operation';

/** Call Task → Start: how many people the task holds, only where the answer says it. */
describe('peopleInTask', () => {
	test.each([
		[{ stats: { candidates: 12 } }, 12],
		[{ candidatesCount: 4 }, 4],
		[{ candidates: 0 }, 0],
		[{ stats: { candidates: '12' } }, undefined],
		[{ stats: { candidates: -1 } }, undefined],
		[{ candidates: [{ id: 'a' }] }, undefined],
		[{ id: 'task-1', status: 'PROCESS' }, undefined],
		[null, undefined],
		['OK', undefined],
	])('%j → %p', (answer, expected) => {
		expect(peopleInTask(answer)).toBe(expected);
	});
});
