/**
 * A ring group's business hours, the `schedule:{groupId}` document: open ranges of wall-clock time
 * per weekday in an IANA time zone. Made with the group, written by admins. The rules ranges must
 * meet together (sorted, not overlapping, a real zone) are `validateSchedule` in src/domain/hours.ts.
 */
import * as v from 'valibot';
import { defineRecord } from '../record';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** `HH:MM`, 24-hour; an end may be `24:00`. */
export const TIME = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;

export const TimeRangeSchema = v.object({
  start: v.pipe(v.string(), v.regex(TIME, 'Use a time like 09:00.')),
  end: v.pipe(v.string(), v.regex(TIME, 'Use a time like 17:00, or 24:00.')),
});
export type TimeRange = v.InferOutput<typeof TimeRangeSchema>;

const day = v.optional(v.array(TimeRangeSchema), []);

export const ScheduleSchema = v.object({
  /** An IANA time zone, e.g. `Europe/London`. */
  timeZone: v.string(),
  /** Open ranges per weekday; a missing or empty day is closed. */
  week: v.optional(
    v.object({ mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day }),
    {},
  ),
});

export interface Schedule {
  timeZone: string;
  week: Partial<Record<Weekday, TimeRange[]>>;
}

export const scheduleRecord = defineRecord('schedule', ScheduleSchema, {
  timeZone: '',
  week: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
});
