/** Weekdays as people read them: in full in sentences, three letters on screens. */
import type { Weekday } from '../contracts/records/schedule';

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
