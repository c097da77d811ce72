import type { SimTask, Simulator, TaskStatus } from '../../simulator';

/** The simulator state's own task factory (state.js), which index.d.ts does not declare. */
interface TaskFactory {
	createTask(input: { body: Record<string, unknown>; source: 'autoCall' | 'single' | 'batch'; templateId?: string }): SimTask;
}

/** A call task put straight into the simulator's state, as if created earlier (status BLANK unless given). */
export function createTaskInState(
	sim: Simulator,
	body: Record<string, unknown> & { name: string },
	fields: { status?: TaskStatus; createdAt?: string; updatedAt?: string } = {},
): SimTask {
	const task = (sim.state as unknown as TaskFactory).createTask({ body, source: 'autoCall' });
	Object.assign(task, fields);
	return task;
}

/** `count` call tasks put into the simulator's state, named Task 0000, Task 0001, … unless `name` says otherwise. */
export function addTasks(sim: Simulator, count: number, name = (index: number) => `Task ${String(index).padStart(4, '0')}`): SimTask[] {
	return Array.from({ length: count }, (_, index) => createTaskInState(sim, { name: name(index) }));
}

/** The call task of that id in the simulator's state; throws if there is none. */
export function storedTask(sim: Simulator, id: string): SimTask {
	const found = sim.state.tasks.get(id);
	if (!found) throw new Error(`no task ${id}`);
	return found;
}

/** The candidates in the simulator's state whose phones include this one. */
export function candidatesWithPhone(sim: Simulator, phone: string) {
	return [...sim.state.candidates.values()].filter((candidate) => candidate.phone.includes(phone));
}
