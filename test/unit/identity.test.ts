import { identityAt, isIdentity } from '../../nodes/shared/answerShapes';
import { identityOf } from '../../nodes/shared/validation';

/** One unwrapping of ids: lenient for what the node reads, strict for what the spec promises in answers. */
test.each([
	[{ identity: 'task-1' }, 'task-1', 'task-1'],
	[{ identity: 42 }, '42', undefined],
	[{ identity: ' ' }, ' ', undefined],
	[{ identity: '' }, '', undefined],
	['task-1', 'task-1', undefined],
	['', undefined, undefined],
	[7, '7', undefined],
	[{ id: 'x' }, undefined, undefined],
	[null, undefined, undefined],
	[['task-1'], undefined, undefined],
])('%j: lenient %j, wrapped only %j', (value, lenient, wrappedOnly) => {
	expect(identityOf(value)).toBe(lenient);
	expect(identityOf(value, true)).toBe(wrappedOnly);
	expect(isIdentity(value)).toBe(wrappedOnly !== undefined);
	expect(identityAt({ id: value }, 'id')).toBe(wrappedOnly);
});
