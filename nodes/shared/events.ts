import type { IDataObject } from 'n8n-workflow';

// The one list of events is events.json: data, so that the simulator, the tests and the docs check read it without node code,
// and tsc copies it into dist/.
import eventList from './events.json';

/** One of the service's webhook events (docs/service.md, Events), as the editor shows it. */
export interface EventDescription {
	name: string;
	value: string;
	description: string;
}

/** The service's webhook events (docs/service.md, Events). */
export const EVENTS: readonly EventDescription[] = eventList;

/** The events' names as the service sends them (`CALL_ENDED`, ...). */
export const EVENT_NAMES: readonly string[] = EVENTS.map((event) => event.value);

/** The `events` map of a webhook target: every event present, `value` true for the chosen ones. */
export function toEventsMap(chosen: readonly string[]): IDataObject {
	const events: IDataObject = {};
	for (const name of EVENT_NAMES) {
		events[name] = { name, value: chosen.includes(name) };
	}
	return events;
}
