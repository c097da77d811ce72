/**
 * The statuses of a call task, in the words of the service's own interface (the API's codes stay
 * the option values and what is sent).
 */
export const TASK_STATUSES = [
	{ name: 'Draft', value: 'BLANK' },
	{ name: 'Ready', value: 'READY' },
	{ name: 'Running', value: 'PROCESS' },
	{ name: 'Paused', value: 'PAUSED' },
	{ name: 'Stopped', value: 'HALTED' },
];

/** "Running" for PROCESS; an unknown status is passed through as the service wrote it. */
export function taskStatusInWords(status: unknown): unknown {
	return TASK_STATUSES.find((known) => known.value === status)?.name ?? status;
}
