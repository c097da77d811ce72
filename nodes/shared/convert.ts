import { InputError, requireInteger } from './validation';

export const TIMEZONE_LIMIT_SECONDS = 43200;

/**
 * A candidate's time zone in seconds from UTC. Accepts seconds (10800), or an offset
 * such as "+03:00", "UTC+3", "-05:30".
 */
export function parseTimezone(field: string, value: unknown): number {
	if (typeof value === 'string') {
		const offset = /^\s*(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?\s*$/i.exec(value);
		if (offset) {
			const seconds = Number(offset[2]) * 3600 + Number(offset[3] ?? 0) * 60;
			const signed = offset[1] === '-' ? -seconds : seconds;
			return requireInteger(field, signed, { min: -TIMEZONE_LIMIT_SECONDS, max: TIMEZONE_LIMIT_SECONDS });
		}
	}
	return requireInteger(field, value, { min: -TIMEZONE_LIMIT_SECONDS, max: TIMEZONE_LIMIT_SECONDS });
}

export type CpsMode = 'perSecond' | 'everyNSeconds' | 'raw';

/** The platform's intensity value: N calls per second → 1 + N/100; one call every N seconds → 1 − N/100. */
export function toCps(mode: CpsMode, value: unknown): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number)) {
		throw new InputError('cps', value, 'is not a number');
	}
	if (mode === 'perSecond') {
		if (number < 1 || number > 100) throw new InputError('callsPerSecond', value, 'is outside 1..100');
		return round(1 + number / 100);
	}
	if (mode === 'everyNSeconds') {
		if (number < 1 || number > 99) throw new InputError('secondsBetweenCalls', value, 'is outside 1..99');
		return round(1 - number / 100);
	}
	if (number <= 0 || number > 2) throw new InputError('cps', value, 'is outside the range 0 (exclusive) to 2');
	return number;
}

function round(value: number): number {
	return Math.round(value * 10000) / 10000;
}

/** "09:00" or "9:30:15" → seconds since midnight; a whole number is taken as seconds already. */
export function timeOfDayToSeconds(field: string, value: unknown): number {
	if (typeof value === 'string') {
		const time = /^\s*(\d{1,2}):(\d{2})(?::(\d{2}))?\s*$/.exec(value);
		if (time) {
			const [hours, minutes, seconds] = [Number(time[1]), Number(time[2]), Number(time[3] ?? 0)];
			if (hours > 23 || minutes > 59 || seconds > 59) {
				throw new InputError(field, value, 'is not a time of day (00:00 to 23:59)');
			}
			return hours * 3600 + minutes * 60 + seconds;
		}
		if (!/^\s*\d+\s*$/.test(value)) {
			throw new InputError(field, value, 'is not a time of day such as 09:00');
		}
	}
	return requireInteger(field, value, { min: 0, max: 86399 });
}

/**
 * The platform's `YYYY-MM-DD HH:MM`. A date-time without offset is taken as wall time;
 * one with an offset (or Z) is shown in the workflow's time zone.
 */
export function toStartMoment(field: string, value: unknown, timeZone: string): string {
	const text = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value.trim() : String(value ?? '');
	const wallTime = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?$/.exec(text);
	if (wallTime && !Number.isNaN(Date.parse(`${wallTime[1]}T${wallTime[2]}:00Z`))) {
		return `${wallTime[1]} ${wallTime[2]}`;
	}
	const instant = /^\d{4}-\d{2}-\d{2}T/.test(text) ? new Date(text) : new Date(NaN);
	if (Number.isNaN(instant.getTime())) {
		throw new InputError(field, value, 'is not a valid date and time; pick one or use the form 2026-12-31 09:00');
	}
	const parts = wallClock(instant.getTime(), timeZone);
	const two = (number: number) => String(number).padStart(2, '0');
	return `${parts.year}-${two(parts.month)}-${two(parts.day)} ${two(parts.hour)}:${two(parts.minute)}`;
}

/**
 * An ISO instant for a filter. A date-time without offset (what n8n's date picker gives) is
 * wall time in the workflow's time zone, not in the time zone of the n8n process; one with an
 * offset (or Z) is taken as it is.
 */
export function toInstant(field: string, value: unknown, timeZone: string): string {
	const text = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value.trim() : String(value ?? '');
	const wall = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?$/.exec(text);
	if (wall) {
		const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '0'] = wall;
		const asUtc = Date.UTC(+year, +month - 1, +day, +hour, +minute, +second, +fraction.padEnd(3, '0'));
		// The zone's offset at that moment; a second pass settles a daylight-saving change in between.
		const instant = asUtc - zoneOffsetMs(asUtc - zoneOffsetMs(asUtc, timeZone), timeZone);
		if (!Number.isNaN(instant)) return new Date(instant).toISOString();
	}
	const date = /^\d{4}-\d{2}-\d{2}T/.test(text) ? new Date(text) : new Date(NaN);
	if (Number.isNaN(date.getTime())) {
		throw new InputError(field, value, 'is not a valid date and time; pick one or use the form 2026-12-31T09:00:00');
	}
	return date.toISOString();
}

/** The calendar fields of an instant as a clock in `timeZone` shows them. */
function wallClock(instant: number, timeZone: string): Record<string, number> {
	return Object.fromEntries(
		new Intl.DateTimeFormat('en-CA', {
			timeZone,
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			second: '2-digit',
			hourCycle: 'h23',
		})
			.formatToParts(instant)
			.filter((part) => part.type !== 'literal')
			.map((part) => [part.type, Number(part.value)]),
	);
}

function zoneOffsetMs(instant: number, timeZone: string): number {
	const parts = wallClock(instant, timeZone);
	const wallAsUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
	return wallAsUtc - Math.floor(instant / 1000) * 1000;
}
