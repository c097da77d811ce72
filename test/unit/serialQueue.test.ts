import { ExpiringMap } from '../../nodes/shared/expiringMap';
import {
	newTurns,
	SerialQueue,
	Slots,
	type SlotsState,
	takeTurn,
	type Turns,
} from '../../nodes/shared/serialQueue';

/** A piece of work that runs until released, counting how many pieces run at once. */
function gate(running: { now: number; most: number }, order: string[], name: string) {
	let release!: () => void;
	const released = new Promise<void>((resolve) => (release = resolve));
	const work = async () => {
		running.now++;
		running.most = Math.max(running.most, running.now);
		order.push(`start ${name}`);
		await released;
		running.now--;
		order.push(`end ${name}`);
		return name;
	};
	return { work, release };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the serial queue', () => {
	test('work of one key runs one piece at a time, in the order it came', async () => {
		const queue = new SerialQueue(new ExpiringMap<Turns>(60_000, 10));
		const running = { now: 0, most: 0 };
		const order: string[] = [];
		const pieces = ['a', 'b', 'c'].map((name) => gate(running, order, name));
		const results = pieces.map((piece) => queue.run('key', piece.work));
		await settle();
		expect(order).toEqual(['start a']);
		pieces[0].release();
		await settle();
		pieces[2].release();
		pieces[1].release();
		expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
		expect(order).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
		expect(running.most).toBe(1);
	});

	test('different keys do not wait for one another', async () => {
		const queue = new SerialQueue(new ExpiringMap<Turns>(60_000, 10));
		const running = { now: 0, most: 0 };
		const order: string[] = [];
		const one = gate(running, order, 'one');
		const other = gate(running, order, 'other');
		const results = [queue.run('first', one.work), queue.run('second', other.work)];
		await settle();
		expect(running.now).toBe(2);
		one.release();
		other.release();
		await Promise.all(results);
	});

	test("a piece that fails does not stop the line; its error is its caller's alone", async () => {
		const turns = newTurns();
		const failed = takeTurn(turns, async () => {
			throw new Error('database down');
		});
		const next = takeTurn(turns, async () => 'next ran');
		await expect(failed).rejects.toThrow('database down');
		await expect(next).resolves.toBe('next ran');
	});

	test('a line may carry more than its turns', () => {
		const queue = new SerialQueue(new ExpiringMap<Turns & { waiting?: string }>(60_000, 10));
		queue.lineOf('key').waiting = 'x';
		expect(queue.lineOf('key').waiting).toBe('x');
		expect(queue.lineOf('other').waiting).toBeUndefined();
	});
});

describe('slots', () => {
	const slotsOf = (size: number, maxWaiting: number) =>
		new Slots(new ExpiringMap<SlotsState>(Number.POSITIVE_INFINITY, 1), size, maxWaiting);

	test('at most `size` pieces run at once; the others start in the order they came, as slots free', async () => {
		const slots = slotsOf(2, 10);
		const running = { now: 0, most: 0 };
		const order: string[] = [];
		const pieces = ['a', 'b', 'c', 'd'].map((name) => gate(running, order, name));
		const results = pieces.map((piece) => slots.run(piece.work));
		await settle();
		expect(order).toEqual(['start a', 'start b']);
		pieces[1].release();
		await settle();
		expect(order).toEqual(['start a', 'start b', 'end b', 'start c']);
		pieces[0].release();
		pieces[2].release();
		pieces[3].release();
		expect(await Promise.all(results)).toEqual(
			['a', 'b', 'c', 'd'].map((result) => ({ full: false, result })),
		);
		expect(running.most).toBe(2);
	});

	test('a slot handed on to a waiting piece stays counted: a piece that comes next waits too', async () => {
		const slots = slotsOf(1, 10);
		const running = { now: 0, most: 0 };
		const order: string[] = [];
		const [a, b, c] = ['a', 'b', 'c'].map((name) => gate(running, order, name));
		const done = [slots.run(a.work), slots.run(b.work)];
		await settle();
		a.release();
		await settle();
		expect(order).toEqual(['start a', 'end a', 'start b']);
		done.push(slots.run(c.work));
		await settle();
		expect(order).toEqual(['start a', 'end a', 'start b']);
		b.release();
		c.release();
		await Promise.all(done);
		expect(running.most).toBe(1);
	});

	test('beyond `maxWaiting` waiting, run() says full at once and runs nothing; a failed piece frees its slot', async () => {
		const slots = slotsOf(1, 1);
		const running = { now: 0, most: 0 };
		const order: string[] = [];
		const first = gate(running, order, 'first');
		const second = gate(running, order, 'second');
		const firstDone = slots.run(first.work);
		const secondDone = slots.run(second.work);
		let thirdRan = false;
		expect(
			await slots.run(async () => {
				thirdRan = true;
				return 'third';
			}),
		).toEqual({ full: true });
		expect(thirdRan).toBe(false);
		first.release();
		second.release();
		await Promise.all([firstDone, secondDone]);
		await expect(slots.run(async () => Promise.reject(new Error('broken')))).rejects.toThrow(
			'broken',
		);
		expect(await slots.run(async () => 'after')).toEqual({ full: false, result: 'after' });
		expect(running.most).toBe(1);
	});
});
