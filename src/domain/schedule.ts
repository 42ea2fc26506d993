/**
 * A group's `schedule:{id}` document as the app reads it: tolerant of whatever is stored (a field
 * of the wrong type reads as missing), and the one-line summary screens show.
 */
import { sortRanges } from './hours';
import { scheduleRecord } from '../contracts/records/schedule';
import { WEEKDAYS, type Schedule, type Weekday } from '../contracts/records/schedule';
import { SHORT_WEEKDAY } from './weekdays';
import { parseTime } from './wall-clock';

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
