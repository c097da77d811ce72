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
