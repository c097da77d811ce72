import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';

/** The service's webhook events (spec section 6). */
export const EVENTS = [
	{ name: 'Call Ended', value: 'CALL_ENDED', description: 'A call attempt ended (sent after every attempt, so redials send several)' },
	{ name: 'Candidate Changed', value: 'CANDIDATE_CHANGED', description: 'The candidate is fully processed and will not be called again' },
	{ name: 'Call Redirected', value: 'CALL_REDIRECTED', description: 'The call was transferred to an operator' },
	{ name: 'Recall Scheduled', value: 'RECALL_SCHEDULED', description: 'A callback for the candidate was scheduled' },
	{ name: 'Efficiency Reached', value: 'EFFICIENCY_REACHED', description: 'The call success status was set' },
	{ name: 'Call Task Status Changed', value: 'AUTOCALL_STATUS_CHANGED', description: 'The call task changed status (for example started, paused, halted)' },
] as const satisfies readonly INodePropertyOptions[];

export type EventName = (typeof EVENTS)[number]['value'];

export const EVENT_NAMES: readonly EventName[] = EVENTS.map((event) => event.value);

/** The spec's `events` map: every event present, `value` true for the chosen ones. */
export function toEventsMap(chosen: readonly string[]): IDataObject {
	const events: IDataObject = {};
	for (const name of EVENT_NAMES) {
		events[name] = { name, value: chosen.includes(name) };
	}
	return events;
}
