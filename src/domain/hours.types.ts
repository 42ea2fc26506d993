/**
 * The shapes of a ring group's business hours (`schedule:{groupId}` document) and holidays
 * (`calendar:{groupId}` document), shared by the admin screens, the open-now function and call
 * routing (server). Pure data: no I/O here.
 */

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A range of wall-clock time in the schedule's time zone, `HH:MM` 24-hour; `end` may be `24:00`. */
export interface TimeRange {
  start: string;
  end: string;
}

export interface Schedule {
  /** An IANA time zone, e.g. `Europe/London`. */
  timeZone: string;
  /** Open ranges per weekday, sorted and not overlapping; a missing or empty day is closed. */
  week: Partial<Record<Weekday, TimeRange[]>>;
}

export interface Holiday {
  /** Stable within the calendar, so edits and deletes address one entry. */
  id: string;
  label: string;
  /** First day, `YYYY-MM-DD`, in the schedule's time zone. */
  start: string;
  /** Last day, inclusive, `YYYY-MM-DD`; equal to `start` for a single day. */
  end: string;
}

export interface Calendar {
  holidays: Holiday[];
}
