/**
 * Holidays from an iCalendar (`.ics`, RFC 5545) file, as Google Calendar, Outlook and Apple
 * Calendar export them: lines unfolded, each VEVENT's SUMMARY, DTSTART and DTEND read. All-day
 * events (`VALUE=DATE`) end the day before DTEND (which is exclusive); events with a time are
 * taken as the dates written (a holiday is whole days in the group's own zone). A repeating event
 * (RRULE) is imported once, for its first date, and reported so. Pure: text in, holidays out.
 */
import { addDays, isDate, MAX_LABEL_LENGTH } from './calendar';

export interface IcsHoliday {
  label: string;
  start: string;
  end: string;
}

export interface IcsSkipped {
  /** The event's summary, or "(no title)". */
  label: string;
  reason: string;
}

export interface IcsResult {
  holidays: IcsHoliday[];
  skipped: IcsSkipped[];
  /** Events imported once although they repeat. */
  repeating: string[];
}

export class IcsError extends Error {}

export const MAX_ICS_BYTES = 1024 * 1024;

function unfold(text: string): string[] {
  // A line beginning with a space or tab continues the previous one (RFC 5545 3.1).
  return text
    .replace(/\r\n|\r/g, '\n')
    .replace(/\n[ \t]/g, '')
    .split('\n');
}

function unescape(value: string): string {
  return value.replace(/\\([\\;,nN])/g, (_, c: string) => (c === 'n' || c === 'N' ? ' ' : c));
}

interface Property {
  name: string;
  params: Record<string, string>;
  value: string;
}

function parseLine(line: string): Property | null {
  // NAME;PARAM=x;PARAM="y:z":VALUE: the first colon outside quotes ends the name and parameters.
  let quoted = false;
  let colon = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (c === ':' && !quoted) {
      colon = i;
      break;
    }
  }
  if (colon < 1) return null;
  const [name = '', ...paramParts] = line.slice(0, colon).split(';');
  const params: Record<string, string> = {};
  for (const p of paramParts) {
    const eq = p.indexOf('=');
    if (eq > 0) params[p.slice(0, eq).toUpperCase()] = p.slice(eq + 1).replace(/^"|"$/g, '');
  }
  return { name: name.toUpperCase(), params, value: line.slice(colon + 1) };
}

/** `20261225` or `20261225T090000Z` → `2026-12-25`, or null. */
function dateOf(value: string): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})(T\d{6}Z?)?$/.exec(value.trim());
  if (!m) return null;
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  return isDate(date) ? date : null;
}

/**
 * Reads the file's events. Throws {@link IcsError} with a message for a person when the text is not
 * an iCalendar file at all; events that cannot be used are listed in `skipped` with the reason.
 */
export function parseIcs(text: string): IcsResult {
  if (text.length > MAX_ICS_BYTES)
    throw new IcsError('This file is over 1 MB; export fewer events.');
  const lines = unfold(text.replace(/^\uFEFF/, ''));
  const first = lines.find((l) => l.trim() !== '');
  if (first?.trim().toUpperCase() !== 'BEGIN:VCALENDAR') {
    throw new IcsError(
      'This file is not an iCalendar (.ics) file: it does not start with BEGIN:VCALENDAR.',
    );
  }
  const result: IcsResult = { holidays: [], skipped: [], repeating: [] };
  let event: Property[] | null = null;
  let depth = 0;
  for (const raw of lines) {
    const line = raw.trimEnd();
    if (line === '') continue;
    const prop = parseLine(line);
    if (!prop) continue;
    if (prop.name === 'BEGIN' && prop.value.toUpperCase() === 'VEVENT') {
      event = [];
      depth = 0;
      continue;
    }
    if (event === null) continue;
    // Components inside an event (VALARM) carry their own properties: not the event's.
    if (prop.name === 'BEGIN') depth++;
    else if (prop.name === 'END' && prop.value.toUpperCase() !== 'VEVENT') depth--;
    else if (prop.name === 'END') {
      take(event, result);
      event = null;
    } else if (depth === 0) event.push(prop);
  }
  if (event !== null)
    throw new IcsError('This file is cut off: an event is not finished (END:VEVENT is missing).');
  return result;
}

function take(props: Property[], result: IcsResult): void {
  const get = (name: string) => props.find((p) => p.name === name);
  const summary = unescape(get('SUMMARY')?.value ?? '').trim();
  const label = summary === '' ? '(no title)' : summary;
  const skip = (reason: string): void => {
    result.skipped.push({ label, reason });
  };
  if (get('STATUS')?.value.toUpperCase() === 'CANCELLED') return skip('it is cancelled');
  const dtstart = get('DTSTART');
  if (!dtstart) return skip('it has no start date');
  const start = dateOf(dtstart.value);
  if (!start) return skip(`its start “${dtstart.value.slice(0, 24)}” is not a date`);
  const allDay =
    dtstart.params.VALUE?.toUpperCase() === 'DATE' || /^\d{8}$/.test(dtstart.value.trim());
  const dtend = get('DTEND');
  let end = start;
  if (dtend) {
    const e = dateOf(dtend.value);
    if (!e) return skip(`its end “${dtend.value.slice(0, 24)}” is not a date`);
    // All-day events end the day before DTEND; timed ones on the date written.
    end = allDay ? addDays(e, -1) : e;
    if (end < start) end = start;
  }
  if (summary === '') return skip('it has no title');
  if (summary.length > MAX_LABEL_LENGTH)
    return skip(`its title is over ${MAX_LABEL_LENGTH} characters`);
  if (get('RRULE')) result.repeating.push(summary);
  result.holidays.push({ label: summary, start, end });
}
