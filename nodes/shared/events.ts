import type { IDataObject } from 'n8n-workflow';

// The one list of events is events.json: data, so that the simulator and the tests read it without node code, and tsc copies it into dist/.
import eventList from './events.json';

/** One of the service's webhook events (spec section 6), as the editor shows it. */
export interface EventDescription {
	name: string;
	value: string;
	description: string;
}

/** The service's webhook events (spec section 6). */
export const EVENTS: readonly EventDescription[] = eventList;

/** The events' names as the service sends them (`CALL_ENDED`, ...). */
export const EVENT_NAMES: readonly string[] = EVENTS.map((event) => event.value);

/** The spec's `events` map: every event present, `value` true for the chosen ones. */
export function toEventsMap(chosen: readonly string[]): IDataObject {
	const events: IDataObject = {};
	for (const name of EVENT_NAMES) {
		events[name] = { name, value: chosen.includes(name) };
	}
	return events;
}
