/**
 * Time in a zone, from `Intl` only (nothing here reads a clock): the wall clock at an instant, the
 * instant of a wall time (a spring-forward gap read as the moment the clock jumps past it), the
 * zone's offset (read once per UTC hour for instants in time order), and local dates.
 */
import { WEEKDAYS, type Weekday } from '../contracts/records/schedule';

export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after midnight of `HH:MM` (`24:00` only where `end` is true), or null when malformed. */
export function parseTime(text: string, end = false): number | null {
  if (end && text === '24:00') return 24 * 60;
  const m = TIME.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

// --- wall clock --------------------------------------------------------------------------------

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True for a zone `Intl` knows by that name (IANA names such as `Europe/London`, and `UTC`). */
export function isTimeZone(name: string): boolean {
  if (name === '' || name.length > 64) return false;
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

export interface WallClock {
  /** Local date, `YYYY-MM-DD`. */
  date: string;
  weekday: Weekday;
  /** Minutes after local midnight, 0–1439. */
  minutes: number;
  /** The local date and time as if it were UTC, in ms (whole seconds). */
  wallMs: number;
}

const SHORT_DAYS: Record<string, Weekday> = {
  Mon: 'mon',
  Tue: 'tue',
  Wed: 'wed',
  Thu: 'thu',
  Fri: 'fri',
  Sat: 'sat',
  Sun: 'sun',
};

/** The wall clock in `timeZone` at `instant` (ms since the epoch). */
export function wallClock(instant: number, timeZone: string): WallClock {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(instant)) parts[p.type] = p.value;
  const year = Number(parts.year);
  const month = Number(parts.month);
  const day = Number(parts.day);
  const hour = Number(parts.hour);
  const minute = Number(parts.minute);
  const second = Number(parts.second);
  const date = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  return {
    date,
    weekday: SHORT_DAYS[parts.weekday ?? ''] ?? 'mon',
    minutes: hour * 60 + minute,
    wallMs: Date.UTC(year, month - 1, day, hour, minute, second),
  };
}

/** The zone's offset from UTC at `instant`, in ms (local = UTC + offset). */
export function offsetAt(instant: number, timeZone: string): number {
  return wallClock(instant, timeZone).wallMs - Math.floor(instant / 1000) * 1000;
}

const HOUR = 60 * MINUTE;
/** `clockNow` works out dates of four-digit years only. */
const YEAR_9000 = Date.UTC(9000, 0, 1);
/**
 * Per zone, the last UTC hour `clockNow` read and the zone's offset throughout it (null when it
 * changes within that hour). Calls arrive in time order, so the hour is mostly the one before.
 */
const hourOffsets = new Map<
  string,
  { hour: number; offset: number | null; day: number; date: string }
>();

/**
 * `wallClock`, for instants that come in time order (call routing's): the offset is read from
 * `Intl` once per UTC hour and zone, and the wall clock is worked out from it. An hour whose first
 * and last second have the same offset has it throughout: no zone changes its offset twice within
 * an hour. An hour with a change, or an instant before 1970, is read from `Intl` as by `wallClock`.
 */
export function clockNow(instant: number, timeZone: string): WallClock {
  if (!(instant >= 0 && instant < YEAR_9000)) return wallClock(instant, timeZone);
  const hour = Math.floor(instant / HOUR);
  let known = hourOffsets.get(timeZone);
  if (known?.hour !== hour) {
    const start = hour * HOUR;
    const first = offsetAt(start, timeZone);
    const offset = first === offsetAt(start + HOUR - 1000, timeZone) ? first : null;
    known = { hour, offset, day: NaN, date: '' };
    hourOffsets.set(timeZone, known);
  }
  if (known.offset === null) return wallClock(instant, timeZone);
  const wallMs = Math.floor(instant / 1000) * 1000 + known.offset;
  const days = Math.floor(wallMs / DAY);
  if (known.day !== days) {
    known.day = days;
    known.date = dateOf(days * DAY);
  }
  return {
    date: known.date,
    weekday: WEEKDAYS[(((days + 3) % 7) + 7) % 7]!,
    minutes: Math.floor((wallMs - days * DAY) / MINUTE),
    wallMs,
  };
}

/** The first instant in (lo, hi] whose offset differs from the offset at `lo` (to the second). */
export function transitionIn(lo: number, hi: number, timeZone: string): number {
  const before = offsetAt(lo, timeZone);
  // Offsets change on whole seconds: search on them.
  let a = Math.floor(lo / 1000) * 1000;
  let b = Math.ceil(hi / 1000) * 1000;
  while (b - a > 1000) {
    const mid = a + Math.floor((b - a) / 2000) * 1000;
    if (offsetAt(mid, timeZone) === before) a = mid;
    else b = mid;
  }
  return b;
}

/** A `YYYY-MM-DD` date as UTC midnight ms. */
export function dateMs(date: string): number {
  return Date.UTC(
    Number(date.slice(0, 4)),
    Number(date.slice(5, 7)) - 1,
    Number(date.slice(8, 10)),
  );
}

export function dateOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function weekdayOf(date: string): Weekday {
  // 1970-01-01 was a Thursday.
  const days = Math.floor(dateMs(date) / DAY);
  return WEEKDAYS[(((days + 3) % 7) + 7) % 7]!;
}

/**
 * The first instant at which the wall clock in `timeZone` reads `minutes` after midnight of `date`
 * or later: in a spring-forward gap, the moment the clock jumps past it.
 */
export function wallToInstant(date: string, minutes: number, timeZone: string): number {
  const zone = zoneOrUtc(timeZone);
  const wall = dateMs(date) + minutes * MINUTE;
  // Real zones change offset at most once within a few hours of any wall time.
  const early = wall - 14 * 3_600_000;
  const late = wall + 14 * 3_600_000;
  const offsets = [offsetAt(early, zone), offsetAt(late, zone)];
  const exact = offsets
    .map((o) => wall - o)
    .filter((t) => offsetAt(t, zone) === wall - t)
    .sort((x, y) => x - y);
  if (exact.length > 0) return exact[0]!;
  // In a spring-forward gap: the wall clock never reads it; it jumps past it at the transition.
  return transitionIn(early, late, zone);
}

/** `timeZone`, or UTC for a zone `Intl` does not know. */
export function zoneOrUtc(timeZone: string): string {
  return isTimeZone(timeZone) ? timeZone : 'UTC';
}

/** Every zone the browser knows, for suggestions (a field takes any IANA name `Intl` accepts). */
export function zoneNames(): string[] {
  const intl = Intl as typeof Intl & { supportedValuesOf?: (key: 'timeZone') => string[] };
  return intl.supportedValuesOf?.('timeZone') ?? [];
}
