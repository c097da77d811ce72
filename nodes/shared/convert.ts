import { InputError, requireInteger } from './validation';

const TIMEZONE_LIMIT_SECONDS = 43200;

/**
 * A candidate's time zone in seconds from UTC. Accepts seconds (10800), or an offset
 * such as "+03:00", "UTC+3", "-05:30".
 */
export function parseTimezone(field: string, value: unknown): number {
	if (typeof value === 'string') {
		const offset = /^\s*(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?\s*$/i.exec(value);
		if (offset) {
			const seconds = offsetSeconds(field, value, offset[1], offset[2], offset[3]);
			if (Math.abs(seconds) > TIMEZONE_LIMIT_SECONDS) {
				throw new InputError(
					field,
					value,
					`is ${seconds} seconds, outside -43200 to 43200 (-12:00 to +12:00), what the service takes`,
				);
			}
			return seconds;
		}
		if (!/^\s*[+-]?\d+\s*$/.test(value) && value.trim() !== '') {
			throw new InputError(
				field,
				value,
				'is not a time zone; use seconds from UTC (10800) or an offset such as +03:00',
			);
		}
	}
	return requireInteger(field, value, {
		min: -TIMEZONE_LIMIT_SECONDS,
		max: TIMEZONE_LIMIT_SECONDS,
	});
}

/** "+03:30" as signed seconds; minutes past 59 (+03:60) are refused, not carried into the hour. */
function offsetSeconds(
	field: string,
	value: unknown,
	sign: string,
	hours: string,
	minutes = '0',
): number {
	if (Number(minutes) > 59) {
		throw new InputError(
			field,
			value,
			`has the offset minutes ${minutes}; minutes go from 00 to 59`,
		);
	}
	const seconds = Number(hours) * 3600 + Number(minutes) * 60;
	return sign === '-' ? -seconds : seconds;
}

export type CpsMode = 'perSecond' | 'everyNSeconds' | 'raw';

/** The parameter that holds the intensity in each mode. */
export const CPS_FIELDS: Record<CpsMode, string> = {
	perSecond: 'callsPerSecond',
	everyNSeconds: 'secondsBetweenCalls',
	raw: 'cps',
};

/** The platform's intensity value: N calls per second → 1 + N/100; one call every N seconds → 1 − N/100. */
export function toCps(mode: CpsMode, value: unknown): number {
	const field = CPS_FIELDS[mode];
	if (value === undefined || value === null || value === '')
		throw new InputError(field, value, 'is empty; enter a number');
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number)) {
		throw new InputError(field, value, 'is not a number');
	}
	if (mode === 'perSecond') {
		if (number < 1 || number > 100) throw new InputError(field, value, 'is outside 1..100');
		return round(1 + number / 100);
	}
	if (mode === 'everyNSeconds') {
		if (number < 1 || number > 99) throw new InputError(field, value, 'is outside 1..99');
		return round(1 - number / 100);
	}
	if (number <= 0 || number > 2)
		throw new InputError(field, value, 'is outside the range 0 (exclusive) to 2');
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

interface DateTimeParts {
	year: number;
	month: number;
	day: number;
	hour: number;
	minute: number;
	second: number;
	millisecond: number;
	hasTime: boolean;
	/** Seconds east of UTC when the text names an offset (or Z); undefined for wall time. */
	offsetSeconds?: number;
}

const DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(?:\s*(Z)|\s*([+-])(\d{2}):?(\d{2})?)?$/i;

/** The real world's offsets run from -12:00 to +14:00. */
const OFFSET_LIMIT_SECONDS = 14 * 3600;

/**
 * An ISO-like date-time read strictly: every part must exist on the calendar and the clock
 * (no 2026-02-30, no 24:00, no offset +03:60), so nothing is silently moved to another day.
 */
function parseDateTime(field: string, value: unknown, example: string): DateTimeParts {
	const text =
		value instanceof Date
			? Number.isNaN(value.getTime())
				? 'Invalid Date'
				: value.toISOString()
			: typeof value === 'string'
				? value.trim()
				: String(value ?? '');
	const match = DATE_TIME.exec(text);
	if (!match) {
		throw new InputError(
			field,
			value,
			`is not a valid date and time; pick one or use the form ${example}`,
		);
	}
	const [
		,
		year,
		month,
		day,
		hour,
		minute = '0',
		second = '0',
		fraction = '0',
		utc,
		sign,
		offsetHours,
		offsetMinutes,
	] = match;
	const parts: DateTimeParts = {
		year: Number(year),
		month: Number(month),
		day: Number(day),
		hour: Number(hour ?? 0),
		minute: Number(minute),
		second: Number(second),
		millisecond: Number(fraction.slice(0, 3).padEnd(3, '0')),
		hasTime: hour !== undefined,
	};
	if (parts.year < 1000) {
		throw new InputError(
			field,
			value,
			`has the year ${year}, which is not a real year; use the form ${example}`,
		);
	}
	if (parts.month < 1 || parts.month > 12) {
		throw new InputError(field, value, `has the month ${month}; months go from 01 to 12`);
	}
	const daysInMonth = new Date(Date.UTC(parts.year, parts.month, 0)).getUTCDate();
	if (parts.day < 1 || parts.day > daysInMonth) {
		throw new InputError(
			field,
			value,
			`is not a day of the calendar: ${year}-${month} has ${daysInMonth} days`,
		);
	}
	if (parts.hour > 23 || parts.minute > 59 || parts.second > 59) {
		throw new InputError(
			field,
			value,
			'has a time that is not on the clock (00:00:00 to 23:59:59)',
		);
	}
	if (utc) parts.offsetSeconds = 0;
	if (sign) {
		const offset = offsetSeconds(field, value, sign, offsetHours, offsetMinutes);
		if (Math.abs(offset) > OFFSET_LIMIT_SECONDS) {
			throw new InputError(
				field,
				value,
				`has the offset ${sign}${offsetHours}:${offsetMinutes ?? '00'}; offsets go from -12:00 to +14:00`,
			);
		}
		parts.offsetSeconds = offset;
	}
	return parts;
}

/** The instant at which a UTC clock shows `parts`. */
function asUtcMs(parts: ClockFields & { millisecond?: number }): number {
	return Date.UTC(
		parts.year,
		parts.month - 1,
		parts.day,
		parts.hour,
		parts.minute,
		parts.second,
		parts.millisecond ?? 0,
	);
}

const two = (number: number) => String(number).padStart(2, '0');

/**
 * The platform's `YYYY-MM-DD HH:MM`. A date-time without offset is taken as wall time;
 * one with an offset (or Z) is shown in the workflow's time zone.
 */
export function toStartMoment(field: string, value: unknown, timeZone: string): string {
	const example = '2026-12-31 09:00';
	const parts = parseDateTime(field, value, example);
	if (!parts.hasTime) {
		throw new InputError(field, value, `has no time of day; use the form ${example}`);
	}
	const wall =
		parts.offsetSeconds === undefined
			? parts
			: wallClock(asUtcMs(parts) - parts.offsetSeconds * 1000, timeZone);
	return `${wall.year}-${two(wall.month)}-${two(wall.day)} ${two(wall.hour)}:${two(wall.minute)}`;
}

/**
 * An ISO instant for a filter. A date-time without offset (what n8n's date picker gives) is
 * wall time in the workflow's time zone, not in the time zone of the n8n process; one with an
 * offset (or Z) is taken as it is.
 */
export function toInstant(field: string, value: unknown, timeZone: string): string {
	const parts = parseDateTime(field, value, '2026-12-31T09:00:00');
	const asUtc = asUtcMs(parts);
	if (parts.offsetSeconds !== undefined)
		return new Date(asUtc - parts.offsetSeconds * 1000).toISOString();
	// The zone's offset at that moment; a second pass settles a daylight-saving change in between.
	return new Date(
		asUtc - zoneOffsetMs(asUtc - zoneOffsetMs(asUtc, timeZone), timeZone),
	).toISOString();
}

/** The calendar fields of an instant as a clock in `timeZone` shows them. */
type ClockFields = Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number>;

function wallClock(instant: number, timeZone: string): ClockFields {
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
	) as ClockFields;
}

function zoneOffsetMs(instant: number, timeZone: string): number {
	return asUtcMs(wallClock(instant, timeZone)) - Math.floor(instant / 1000) * 1000;
}

/** A shallow copy of `value` without `key` (instead of a rest pattern whose left-out name would be unused). */
export function withoutKey<T extends object, K extends keyof T>(value: T, key: K): Omit<T, K> {
	const copy: Partial<T> = { ...value };
	delete copy[key];
	return copy as Omit<T, K>;
}
