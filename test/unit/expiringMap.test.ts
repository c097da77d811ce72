import { ExpiringMap } from '../../nodes/shared/expiringMap';

describe('ExpiringMap: entries expire ttl after they were last set, the oldest go beyond the capacity', () => {
	let now = 0;
	const clock = () => now;
	beforeEach(() => (now = 1_000));

	test('an entry lives for ttl ms after it was set, and setting it again starts its time anew', () => {
		const map = new ExpiringMap<string>(100, 10, clock);
		map.set('a', 'one');
		now += 99;
		expect(map.get('a')).toBe('one');
		map.set('a', 'two');
		now += 99;
		expect(map.get('a')).toBe('two');
		now += 1;
		expect(map.get('a')).toBeUndefined();
		expect(map.size).toBe(0);
	});

	test('beyond the capacity the entry set longest ago goes first', () => {
		const map = new ExpiringMap<number>(1_000, 2, clock);
		map.set('a', 1);
		map.set('b', 2);
		map.set('a', 3);
		map.set('c', 4);
		expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([3, undefined, 4]);
	});

	test('delete forgets at once', () => {
		const map = new ExpiringMap<number>(1_000, 2, clock);
		map.set('a', 1);
		map.delete('a');
		expect(map.get('a')).toBeUndefined();
	});
});
