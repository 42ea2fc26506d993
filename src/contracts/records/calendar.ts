/**
 * A ring group's holidays, the `calendar:{groupId}` document: named, inclusive ranges of dates in
 * the group's zone. Made with the group, written by admins. The rules holidays must meet together
 * (no overlap, at most 200) are `validateCalendar` in src/domain/calendar.ts.
 */
import * as v from 'valibot';
import { defineRecord } from '../record';

export const MAX_HOLIDAYS = 200;
export const HOLIDAY_LABEL_MAX = 80;
/** `YYYY-MM-DD`. */
export const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const HolidaySchema = v.object({
  /** Stable within the calendar, so edits and deletes address one entry. */
  id: v.string(),
  label: v.pipe(
    v.string(),
    v.check((s) => s.trim() !== '', 'Give the holiday a name, like “Christmas”.'),
    v.maxLength(HOLIDAY_LABEL_MAX, `Use at most ${HOLIDAY_LABEL_MAX} characters for the name.`),
  ),
  /** First day, in the group's zone. */
  start: v.pipe(v.string(), v.regex(DATE, 'Choose the first day, as YYYY-MM-DD.')),
  /** Last day, inclusive; equal to `start` for a single day. */
  end: v.pipe(v.string(), v.regex(DATE, 'Choose the last day, as YYYY-MM-DD.')),
});
export type Holiday = v.InferOutput<typeof HolidaySchema>;

export const CalendarSchema = v.object({
  holidays: v.optional(
    v.pipe(
      v.array(HolidaySchema),
      v.maxLength(MAX_HOLIDAYS, `Keep at most ${MAX_HOLIDAYS} holidays; delete past ones first.`),
    ),
    [],
  ),
});
export interface Calendar {
  holidays: Holiday[];
}

export const calendarRecord = defineRecord('calendar', CalendarSchema, { holidays: [] });
