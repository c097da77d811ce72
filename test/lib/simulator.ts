/**
 * One service simulator for a whole jest test file, shared by the jest suites that talk to it
 * (test/actions, test/rules, test/credentials, test/methods through useActionSimulator of test/actions/fixtures;
 * test/trigger, test/simulator directly):
 *
 *   const sim = useActionSimulator();                               // the action node's tests
 *   const sim = useSimulator(startQuickSimulator, { settle: true, emptyAfter: true });
 *
 * It registers the hooks the files used to write by hand: the simulator starts in beforeAll, is
 * closed in afterAll, and is emptied (state, faults, request log: `reset()`) before each test, or
 * after each one with `emptyAfter`. `settle` first waits for what it still has scheduled (calls
 * being played, webhook deliveries: `idle()`), so that nothing of one test reaches the next.
 *
 * What it returns stands for the simulator started in beforeAll: use it in tests and hooks (not
 * while jest collects the tests, where it throws, as a `let sim` would be undefined there).
 */
import { createSimulator, type Simulator } from '../../simulator';

export interface SimulatorHooks {
	/** wait for the simulator's scheduled work (`idle()`) before emptying it */
	settle?: boolean;
	/** empty it after each test (afterEach) instead of before each (beforeEach) */
	emptyAfter?: boolean;
	/** done right after it is emptied, before each test (or after each with emptyAfter) */
	eachTest?: (sim: Simulator) => void | Promise<void>;
	/** closed with it in afterAll (an HTTP client, a second server) */
	closeAfterAll?: () => unknown;
}

export function useSimulator(
	start: () => Promise<Simulator>,
	hooks: SimulatorHooks = {},
): Simulator {
	let started: Simulator | undefined;
	const current = (): Simulator => {
		if (!started)
			throw new Error(
				'useSimulator: the simulator starts in beforeAll; use it in a test or a hook',
			);
		return started;
	};
	beforeAll(async () => {
		started = await start();
	});
	afterAll(async () => {
		await Promise.all([started?.close(), hooks.closeAfterAll?.()]);
	});
	const empty = async () => {
		const sim = current();
		if (hooks.settle) await sim.idle();
		sim.reset();
		await hooks.eachTest?.(sim);
	};
	if (hooks.emptyAfter) afterEach(empty);
	else beforeEach(empty);
	return new Proxy({} as Simulator, {
		get: (_target, property) => Reflect.get(current(), property),
		set: (_target, property, value) => Reflect.set(current(), property, value),
		has: (_target, property) => Reflect.has(current(), property),
	});
}

/** The simulator with its own defaults (token 'sim-token', a free port), its time 1,000 times faster. */
export async function startQuickSimulator(): Promise<Simulator> {
	return await createSimulator({ timeScale: 0.001 });
}
