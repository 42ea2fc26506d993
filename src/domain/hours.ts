/**
 * Whether a ring group is open at an instant, and until when: one pure function of (schedule,
 * calendar, instant) shared by the admin screens and call routing. Time zones come from `Intl`
 * only; nothing here reads a clock.
 *
 * The definition is on the wall clock of the schedule's zone. At an instant, take the local date
 * and time there: closed all day if the date falls in a holiday (inclusive ranges of local dates);
 * otherwise open iff the local time is inside one of that weekday's ranges (start inclusive, end
 * exclusive, `24:00` allowed as an end). Daylight-saving changes follow from it: a range that
 * starts inside a spring-forward gap opens when the clock jumps past its start; in the hour a
 * fall-back repeats, the repeated wall times are open (or closed) twice, as the clock says.
 */
import {
  WEEKDAYS,
  type Schedule,
  type TimeRange,
  type Weekday,
} from '../contracts/records/schedule';
import type { Calendar, Holiday } from '../contracts/records/calendar';

export const MAX_RANGES_PER_DAY = 6;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** How far ahead the next change is looked for: a year and a bit, so yearly holidays are seen. */
const HORIZON_DAYS = 400;

const WEEKDAY_NAMES: Record<Weekday, string> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};

export function weekdayName(day: Weekday): string {
  return WEEKDAY_NAMES[day];
}

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after midnight of `HH:MM` (`24:00` only where `end` is true), or null when malformed. */
export function parseTime(text: string, end = false): number | null {
  if (end && text === '24:00') return 24 * 60;
  const m = TIME.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

// --- time zones --------------------------------------------------------------------------------

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
function offsetAt(instant: number, timeZone: string): number {
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
function clockNow(instant: number, timeZone: string): WallClock {
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
function transitionIn(lo: number, hi: number, timeZone: string): number {
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
function dateMs(date: string): number {
  return Date.UTC(
    Number(date.slice(0, 4)),
    Number(date.slice(5, 7)) - 1,
    Number(date.slice(8, 10)),
  );
}

function dateOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function weekdayOf(date: string): Weekday {
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

// --- holidays ----------------------------------------------------------------------------------

/** The holiday whose inclusive date range holds `date` (`YYYY-MM-DD`), or null. */
export function holidayOn(calendar: Calendar | null, date: string): Holiday | null {
  if (!calendar) return null;
  for (const h of calendar.holidays) if (h.start <= date && date <= h.end) return h;
  return null;
}

/** The holiday in effect at `instant` in `timeZone`, else the next one to start; null if none. */
export function nextHoliday(
  calendar: Calendar | null,
  instant: number,
  timeZone: string,
): Holiday | null {
  if (!calendar) return null;
  const today = wallClock(instant, zoneOrUtc(timeZone)).date;
  let best: Holiday | null = null;
  for (const h of calendar.holidays) {
    if (h.end < today) continue;
    if (best === null || h.start < best.start || (h.start === best.start && h.end < best.end))
      best = h;
  }
  return best;
}

// --- open now ----------------------------------------------------------------------------------

export interface OpenState {
  open: boolean;
  /** Why: inside a range, outside every range, or a holiday (closed all day). */
  reason: 'open' | 'closed' | 'holiday';
  holiday: Holiday | null;
}

export interface OpenNow extends OpenState {
  /** The next instant at which `open` flips, or null if it does not within about a year. */
  until: number | null;
}

function zoneOrUtc(timeZone: string): string {
  return isTimeZone(timeZone) ? timeZone : 'UTC';
}

function rangesOf(schedule: Schedule, day: Weekday): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (const r of schedule.week[day] ?? []) {
    const start = parseTime(r.start);
    const end = parseTime(r.end, true);
    if (start !== null && end !== null && start < end) out.push({ start, end });
  }
  return out;
}

function stateOn(schedule: Schedule, calendar: Calendar | null, wc: WallClock): OpenState {
  const holiday = holidayOn(calendar, wc.date);
  if (holiday) return { open: false, reason: 'holiday', holiday };
  const open = rangesOf(schedule, wc.weekday).some(
    (r) => r.start <= wc.minutes && wc.minutes < r.end,
  );
  return { open, reason: open ? 'open' : 'closed', holiday: null };
}

/**
 * Open, closed or a holiday at `instant`, without looking ahead (call routing's question: the
 * instants come in time order, so the zone's offset is read once an hour, `clockNow`).
 */
export function stateAt(schedule: Schedule, calendar: Calendar | null, instant: number): OpenState {
  return stateOn(schedule, calendar, clockNow(instant, zoneOrUtc(schedule.timeZone)));
}

/** Open or closed at `instant`, without looking ahead. */
export function isOpenAt(schedule: Schedule, calendar: Calendar | null, instant: number): boolean {
  return stateOn(schedule, calendar, wallClock(instant, zoneOrUtc(schedule.timeZone))).open;
}

/**
 * Open or closed at `instant`, why, and until when. A schedule whose zone `Intl` does not know is
 * read in UTC (validation refuses such a zone before it is saved).
 */
export function openNow(schedule: Schedule, calendar: Calendar | null, instant: number): OpenNow {
  const zone = zoneOrUtc(schedule.timeZone);
  const now = stateOn(schedule, calendar, wallClock(instant, zone));
  const hasHours = WEEKDAYS.some((d) => rangesOf(schedule, d).length > 0);
  // Never open: nothing can change. (Holidays only close.)
  if (!hasHours) return { ...now, until: null };
  // Between consecutive candidates the wall clock moves on without crossing a day's boundary or a
  // change of offset, so the state is constant there: only candidates need evaluating.
  for (let w = instant; w < instant + HORIZON_DAYS * DAY; w += DAY) {
    const end = w + DAY;
    const segments: { from: number; to: number; offset: number }[] = [];
    const o1 = offsetAt(w, zone);
    const o2 = offsetAt(end, zone);
    if (o1 === o2) segments.push({ from: w, to: end, offset: o1 });
    else {
      const t = transitionIn(w, end, zone);
      segments.push(
        { from: w, to: t, offset: o1 },
        { from: t, to: end, offset: offsetAt(t, zone) },
      );
    }
    const candidates: number[] = [];
    for (const seg of segments) {
      if (seg.from > instant) candidates.push(seg.from);
      const wallFrom = seg.from + seg.offset;
      const wallTo = seg.to + seg.offset;
      for (let d = Math.floor(wallFrom / DAY) * DAY; d < wallTo; d += DAY) {
        const date = dateOf(d);
        const marks = new Set<number>([0]);
        for (const r of rangesOf(schedule, weekdayOf(date))) {
          marks.add(r.start);
          if (r.end < 24 * 60) marks.add(r.end);
        }
        for (const m of marks) {
          const wall = d + m * MINUTE;
          if (wall < wallFrom || wall >= wallTo) continue;
          const at = wall - seg.offset;
          if (at > instant) candidates.push(at);
        }
      }
    }
    candidates.sort((a, b) => a - b);
    for (const at of candidates) {
      if (stateOn(schedule, calendar, wallClock(at, zone)).open !== now.open) {
        return { ...now, until: at };
      }
    }
  }
  return { ...now, until: null };
}

// --- validation --------------------------------------------------------------------------------

/** Field path (`timeZone`, `week.mon.0.start`, `week.mon`) → a message a person can act on. */
export type ScheduleErrors = Record<string, string>;

function describeRange(r: TimeRange): string {
  return `${r.start}–${r.end}`;
}

/** Ranges in start order (malformed ones last, as typed). */
export function sortRanges(ranges: readonly TimeRange[]): TimeRange[] {
  const key = (r: TimeRange) => parseTime(r.start) ?? Number.MAX_SAFE_INTEGER;
  return [...ranges].sort((a, b) => key(a) - key(b));
}

/** Every rule the screen shows next to its field; empty when the schedule may be saved. */
export function validateSchedule(schedule: Schedule): ScheduleErrors {
  const errors: ScheduleErrors = {};
  const zone = schedule.timeZone.trim();
  if (zone === '') errors.timeZone = 'Choose the time zone these hours are in.';
  else if (!isTimeZone(zone))
    errors.timeZone = `${zone.slice(0, 64)} is not a time zone; choose one like Europe/London.`;
  for (const day of WEEKDAYS) {
    const ranges = schedule.week[day] ?? [];
    if (ranges.length > MAX_RANGES_PER_DAY) {
      errors[`week.${day}`] = `Use at most ${MAX_RANGES_PER_DAY} ranges a day.`;
    }
    const parsed: { i: number; start: number; end: number; r: TimeRange }[] = [];
    ranges.forEach((r, i) => {
      const start = parseTime(r.start);
      const end = parseTime(r.end, true);
      if (start === null) {
        errors[`week.${day}.${i}.start`] =
          `“${r.start.slice(0, 16)}” is not a time; use 24-hour HH:MM, like 09:00.`;
      }
      if (end === null) {
        errors[`week.${day}.${i}.end`] =
          `“${r.end.slice(0, 16)}” is not a time; use 24-hour HH:MM, like 17:00 (24:00 for midnight).`;
      }
      if (start === null || end === null) return;
      if (end <= start) {
        errors[`week.${day}.${i}.end`] =
          `${weekdayName(day)} ${describeRange(r)} ends before it starts.`;
        return;
      }
      parsed.push({ i, start, end, r });
    });
    parsed.sort((a, b) => a.start - b.start);
    for (let k = 1; k < parsed.length; k++) {
      const prev = parsed[k - 1]!;
      const cur = parsed[k]!;
      if (cur.start < prev.end) {
        errors[`week.${day}.${cur.i}.start`] =
          `${weekdayName(day)} ${describeRange(prev.r)} and ${describeRange(cur.r)} overlap.`;
      }
    }
  }
  return errors;
}

// --- words -------------------------------------------------------------------------------------

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** Three-letter weekday names, as screens show them. */
export const SHORT_WEEKDAY: Record<Weekday, string> = {
  mon: 'Mon',
  tue: 'Tue',
  wed: 'Wed',
  thu: 'Thu',
  fri: 'Fri',
  sat: 'Sat',
  sun: 'Sun',
};

/** A local date (`YYYY-MM-DD`) as "25 Dec 2026". */
export function describeDate(date: string): string {
  return `${Number(date.slice(8, 10))} ${MONTHS[Number(date.slice(5, 7)) - 1] ?? ''} ${date.slice(0, 4)}`;
}

/** `at` as people read it from `from`: "17:00" today, "Tue 09:00" this week, else "27 Dec 09:00". */
export function describeInstant(at: number, from: number, timeZone: string): string {
  const zone = zoneOrUtc(timeZone);
  const then = wallClock(at, zone);
  const now = wallClock(from, zone);
  const hhmm = `${String(Math.floor(then.minutes / 60)).padStart(2, '0')}:${String(then.minutes % 60).padStart(2, '0')}`;
  if (then.date === now.date) return hhmm;
  const days = (dateMs(then.date) - dateMs(now.date)) / DAY;
  if (days > 0 && days < 7) return `${SHORT_WEEKDAY[then.weekday]} ${hhmm}`;
  const d = `${Number(then.date.slice(8, 10))} ${MONTHS[Number(then.date.slice(5, 7)) - 1] ?? ''}`;
  return then.date.slice(0, 4) === now.date.slice(0, 4)
    ? `${d} ${hhmm}`
    : `${d} ${then.date.slice(0, 4)} ${hhmm}`;
}

/** "Open now, until 17:00", "Closed until Mon 09:00", "Closed for Christmas until 27 Dec 09:00". */
export function describeOpenNow(answer: OpenNow, instant: number, timeZone: string): string {
  const head = answer.open
    ? 'Open now'
    : answer.holiday
      ? `Closed for ${answer.holiday.label}`
      : 'Closed now';
  if (answer.until === null) {
    return answer.open ? 'Open now, around the clock' : `${head}, with no opening hours ahead`;
  }
  return `${head}, until ${describeInstant(answer.until, instant, timeZone)}`;
}
