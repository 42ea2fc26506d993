/** How opening hours read to a person: weekday names, dates, instants and "open now" in words. */
import type { OpenNow } from './hours';
import { DAY, dateMs, wallClock, zoneOrUtc } from './wall-clock';
import { SHORT_WEEKDAY } from './weekdays';

// --- words -------------------------------------------------------------------------------------

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
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
