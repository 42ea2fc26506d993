/**
 * A group's `schedule:{id}` document as the app reads it: tolerant of whatever is stored (a field
 * of the wrong type reads as missing), and the one-line summary screens show.
 */
import { sortRanges, validateSchedule } from './hours';
import { scheduleRecord } from '../contracts/records/schedule';
import { WEEKDAYS, type Schedule, type Weekday } from '../contracts/records/schedule';
import { SHORT_WEEKDAY } from './weekdays';
import { parseTime } from './wall-clock';

/** A new group's hours: open Monday to Friday, 09:00 to 17:00, in `timeZone` (the admin's browser's). */
export const DEFAULT_OPEN_DAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri'];
export const DEFAULT_OPENS = '09:00';
export const DEFAULT_CLOSES = '17:00';

/** The same hours on each of `days` (the create form's simple week). */
export function weeklySchedule(
  timeZone: string,
  days: readonly Weekday[] = DEFAULT_OPEN_DAYS,
  opens: string = DEFAULT_OPENS,
  closes: string = DEFAULT_CLOSES,
): Schedule {
  const week: Schedule['week'] = {};
  for (const day of WEEKDAYS) week[day] = days.includes(day) ? [{ start: opens, end: closes }] : [];
  return { timeZone: timeZone.trim(), week };
}

/** A new group's hours as its create form edits them: the same hours on the days chosen. */
export interface WeeklyHours {
  timeZone: string;
  days: Weekday[];
  opens: string;
  closes: string;
}

/** The create form's hours at first: Monday to Friday, 09:00 to 17:00, in `timeZone`. */
export function defaultWeeklyHours(timeZone: string): WeeklyHours {
  return { timeZone, days: [...DEFAULT_OPEN_DAYS], opens: DEFAULT_OPENS, closes: DEFAULT_CLOSES };
}

export type WeeklyHoursErrors = Partial<Record<'timeZone' | 'opens' | 'closes', string>>;

/** The schedule's own rules (validateSchedule), said of the form's three fields. */
export function validateWeeklyHours(hours: WeeklyHours): WeeklyHoursErrors {
  // Checked on a day that is always there, so the times are checked with no day chosen too.
  const found = validateSchedule(
    weeklySchedule(hours.timeZone, ['mon'], hours.opens, hours.closes),
  );
  const errors: WeeklyHoursErrors = {};
  if (found.timeZone) errors.timeZone = found.timeZone;
  const opens = found['week.mon.0.start'];
  const closes = found['week.mon.0.end'];
  if (opens) errors.opens = opens;
  if (closes) errors.closes = closes.replace(/^Monday /, '');
  return errors;
}

/** Whatever the document holds, read as hours (see the contract for what is dropped). */
export function scheduleFromData(data: unknown): Schedule {
  return scheduleRecord.read(data ?? {});
}

/** The document's data: every weekday present (an empty list is a closed day). */
export function scheduleToData(schedule: Schedule): {
  timeZone: string;
  week: Record<Weekday, { start: string; end: string }[]>;
} {
  const week = {} as Record<Weekday, { start: string; end: string }[]>;
  for (const day of WEEKDAYS) {
    week[day] = (schedule.week[day] ?? []).map((r) => ({ start: r.start, end: r.end }));
  }
  return { timeZone: schedule.timeZone, week };
}

/**
 * "Mon–Fri 09:00–17:00; Sat 10:00–14:00": runs of weekdays with the same hours joined, closed days
 * left out; "No opening hours" when every day is closed.
 */
export function summariseWeek(schedule: Schedule): string {
  const hours = WEEKDAYS.map((day) =>
    sortRanges(
      (schedule.week[day] ?? []).filter(
        (r) => parseTime(r.start) !== null && parseTime(r.end, true) !== null,
      ),
    )
      .map((r) => `${r.start}–${r.end}`)
      .join(', '),
  );
  const parts: string[] = [];
  let i = 0;
  while (i < WEEKDAYS.length) {
    let j = i;
    while (j + 1 < WEEKDAYS.length && hours[j + 1] === hours[i]) j++;
    if (hours[i] !== '') {
      const days =
        i === j
          ? SHORT_WEEKDAY[WEEKDAYS[i]!]
          : `${SHORT_WEEKDAY[WEEKDAYS[i]!]}–${SHORT_WEEKDAY[WEEKDAYS[j]!]}`;
      parts.push(`${days} ${hours[i]!}`);
    }
    i = j + 1;
  }
  return parts.length === 0 ? 'No opening hours' : parts.join('; ');
}
