/**
 * The marker of a waiting call as the trigger reads it from an event's Callback Data: only markers
 * of the expected shape are handed over, and the waiting path can never name another origin.
 */
import {
	WAIT_MARKER_FIELD,
	waitMarkerOf,
	withoutWaitMarker,
} from '../../nodes/shared/waitForResult';

const marker = {
	execution: '42',
	token: 'abc.DEF-1_~',
	node: 'node-1',
	item: 0,
	key: 'a'.repeat(64),
};
const withMarker = (fields: Record<string, unknown>) => ({
	crmId: 'C-1',
	[WAIT_MARKER_FIELD]: { ...marker, ...fields },
});

test('a marker of the expected shape is read, with or without a waiting path', () => {
	expect(waitMarkerOf(withMarker({}))).toEqual(marker);
	expect(waitMarkerOf(withMarker({ path: '/webhook-waiting' }))).toEqual({
		...marker,
		path: '/webhook-waiting',
	});
	expect(waitMarkerOf(withMarker({ path: '/n8n/hooks/resume' }))?.path).toBe('/n8n/hooks/resume');
});

test.each([
	['a path to another host', { path: '//evil.example.com/x' }],
	['a full address as the path', { path: 'https://evil.example.com/webhook-waiting' }],
	['a path that climbs up', { path: '/webhook-waiting/../rest' }],
	['a path of one dot', { path: '/./webhook-waiting' }],
	['a path with a query', { path: '/webhook-waiting?x=1' }],
	['a path that is not text', { path: 42 }],
	['an execution id with a slash', { execution: '42/../1' }],
	['a key that is not 64 hex digits', { key: 'z'.repeat(64) }],
	['a token with a space', { token: 'a b' }],
	['a negative item', { item: -1 }],
])('%s: no marker (the event is not handed over)', (_, fields) => {
	expect(waitMarkerOf(withMarker(fields))).toBeUndefined();
});

test("the user's Callback Data comes back without the marker, and unchanged without one", () => {
	expect(withoutWaitMarker(withMarker({}))).toEqual({ crmId: 'C-1' });
	const own = { crmId: 'C-2' };
	expect(withoutWaitMarker(own)).toBe(own);
});
