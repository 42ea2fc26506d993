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
import {
  DAY,
  MINUTE,
  clockNow,
  dateOf,
  isTimeZone,
  offsetAt,
  parseTime,
  transitionIn,
  wallClock,
  weekdayOf,
  zoneOrUtc,
  type WallClock,
} from './wall-clock';
import { weekdayName } from './weekdays';

export const MAX_RANGES_PER_DAY = 6;
/** How far ahead the next change is looked for: a year and a bit, so yearly holidays are seen. */
const HORIZON_DAYS = 400;

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
