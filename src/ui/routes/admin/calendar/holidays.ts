import { daysBetween } from '../../../../domain/calendar';
import { describeDate } from '../../../../domain/hours-text';
import { randomHex } from '../../../../contracts/random';

/** A new holiday id: random, URL-safe, and not dependent on `crypto.randomUUID` (plain-http LANs). */
export function newHolidayId(): string {
  return `hol-${randomHex(8)}`;
}

/** "Mon 25 Dec 2028", or "… to … (3 days)". */
export function describeDays(h: { start: string; end: string }): string {
  return h.start === h.end
    ? describeDate(h.start)
    : `${describeDate(h.start)} to ${describeDate(h.end)} (${daysBetween(h.start, h.end)} days)`;
}
