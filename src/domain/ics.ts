/**
 * Holidays from an iCalendar (`.ics`, RFC 5545) file, as Google Calendar, Outlook and Apple
 * Calendar export them: lines unfolded, each VEVENT's SUMMARY, DTSTART and DTEND (or DURATION)
 * read. All-day events (`VALUE=DATE`) end the day before DTEND (which is exclusive); events with a
 * time are taken as the dates written (a holiday is whole days in the group's own zone), and one
 * that ends at midnight ends the day before (Outlook writes all-day events as midnight to
 * midnight). A repeating event (RRULE) is imported once, for its first date, and reported so.
 * Pure: text or bytes in, holidays out.
 */
import { addDays, daysBetween, isDate, validateHoliday } from './calendar';
import type { Holiday } from '../contracts/records/calendar';
import { HOLIDAY_LABEL_MAX as MAX_LABEL_LENGTH, MAX_HOLIDAYS } from '../contracts/records/calendar';

const daysFrom = (a: string, b: string) => daysBetween(a, b) - 1;
const DAY = 86_400;

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

/**
 * The file's bytes as text, unfolded before decoding: exporters fold lines every 75 octets and may
 * cut a UTF-8 character in two (RFC 5545 3.1 allows it), which decoding first would garble.
 */
function decode(bytes: Uint8Array): string {
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    const next = bytes[i + 1];
    // CRLF, LF or CR followed by a space or tab: a fold, removed with the one whitespace.
    if (b === 0x0d && next === 0x0a && (bytes[i + 2] === 0x20 || bytes[i + 2] === 0x09)) {
      i += 2;
      continue;
    }
    if ((b === 0x0a || b === 0x0d) && (next === 0x20 || next === 0x09)) {
      i += 1;
      continue;
    }
    out[n++] = b;
  }
  return new TextDecoder('utf-8').decode(out.subarray(0, n));
}

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

interface When {
  /** `YYYY-MM-DD` as written. */
  date: string;
  /** Seconds after the midnight written, or null for a date without a time. */
  seconds: number | null;
}

/** `20261225` or `20261225T090000Z` → the date and time as written (no zone applied), or null. */
function whenOf(value: string): When | null {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z?)?$/.exec(value.trim());
  if (!m) return null;
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  if (!isDate(date)) return null;
  if (m[4] === undefined) return { date, seconds: null };
  const [h, min, sec] = [Number(m[4]), Number(m[5]), Number(m[6])];
  if (h > 23 || min > 59 || sec > 60) return null;
  return { date, seconds: h * 3600 + min * 60 + sec };
}

/** `P1D`, `P2W`, `PT8H`, `P1DT12H` (RFC 5545 3.3.6) → seconds, or null (negative ones too). */
function durationOf(value: string): number | null {
  const m = /^\+?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(
    value.trim(),
  );
  if (!m || value.trim().replace(/^\+/, '') === 'P' || /T$/.test(value.trim())) return null;
  const n = (i: number) => Number(m[i] ?? 0);
  return (n(1) * 7 + n(2)) * DAY + n(3) * 3600 + n(4) * 60 + n(5);
}

/**
 * The last day of an event from its start and its exclusive end (as a day count and seconds after
 * the start's midnight): an end at midnight, or a whole-day end, belongs to the day before.
 */
function lastDay(start: When, endDays: number, endSeconds: number): string {
  const days = endDays + Math.floor(endSeconds / DAY);
  const rest = endSeconds % DAY;
  const last = rest === 0 && (days > 0 || start.seconds === null) ? days - 1 : days;
  return addDays(start.date, Math.max(0, last));
}

/**
 * Reads the file's events. Throws {@link IcsError} with a message for a person when the text is not
 * an iCalendar file at all; events that cannot be used are listed in `skipped` with the reason.
 */
export function parseIcs(file: string | Uint8Array): IcsResult {
  if (file.length > MAX_ICS_BYTES)
    throw new IcsError('This file is over 1 MB; export fewer events.');
  const text = typeof file === 'string' ? file : decode(file);
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
  const begins = whenOf(dtstart.value);
  if (!begins) return skip(`its start “${dtstart.value.slice(0, 24)}” is not a date`);
  const start = begins.date;
  const dtend = get('DTEND');
  const duration = get('DURATION');
  let end = start;
  if (dtend) {
    const ends = whenOf(dtend.value);
    if (!ends) return skip(`its end “${dtend.value.slice(0, 24)}” is not a date`);
    // DTEND is exclusive: a date, or a time of midnight, ends the day before.
    end =
      ends.date <= start ? start : lastDay(begins, daysFrom(start, ends.date), ends.seconds ?? 0);
  } else if (duration) {
    const seconds = durationOf(duration.value);
    if (seconds === null)
      return skip(`its duration “${duration.value.slice(0, 24)}” is not a length of time`);
    end = lastDay(begins, 0, (begins.seconds ?? 0) + seconds);
  }
  if (summary === '') return skip('it has no title');
  if (summary.length > MAX_LABEL_LENGTH)
    return skip(`its title is over ${MAX_LABEL_LENGTH} characters`);
  if (get('RRULE')) result.repeating.push(summary);
  result.holidays.push({ label: summary, start, end });
}

/** What an import would do to the holidays already there: what it adds, and what it leaves out. */
export interface ImportPlan {
  add: IcsHoliday[];
  skipped: IcsSkipped[];
  repeating: string[];
}

/**
 * The file's holidays checked against those already there (and each other, in file order): one
 * that overlaps is left out with the reason, and so is any beyond {@link MAX_HOLIDAYS} in all.
 * What the file itself left out comes first.
 */
export function planImport(existing: readonly Holiday[], file: IcsResult): ImportPlan {
  const plan: ImportPlan = { add: [], skipped: [...file.skipped], repeating: [] };
  const taken: Holiday[] = [...existing];
  for (const h of file.holidays) {
    const errors = validateHoliday(h, taken);
    const reason = errors.start ?? errors.end ?? errors.label;
    if (reason) plan.skipped.push({ label: h.label, reason });
    else if (taken.length >= MAX_HOLIDAYS)
      plan.skipped.push({
        label: h.label,
        reason: `a group keeps at most ${MAX_HOLIDAYS} holidays`,
      });
    else {
      plan.add.push(h);
      taken.push({ id: `import-${taken.length}`, ...h });
    }
  }
  // Only what is added is said to repeat.
  plan.repeating = file.repeating.filter((label) => plan.add.some((h) => h.label === label));
  return plan;
}
