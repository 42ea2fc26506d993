/**
 * A group's `calendar:{id}` document (its holidays) as the app reads it, the rules a holiday must
 * meet, and the days of a month as the calendar screen lays them out. Pure: no clock, no I/O.
 */
import {
  calendarRecord,
  HOLIDAY_LABEL_MAX,
  MAX_HOLIDAYS,
  type Calendar,
  type Holiday,
} from '../contracts/records/calendar';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written `YYYY-MM-DD` (no 31 April, 29 February only in leap years). */
export function isDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === text;
}

/** Whatever is stored, read as holidays (entries of the wrong shape are left out), sorted. */
export function calendarFromData(data: unknown): Calendar {
  return { holidays: sortHolidays(calendarRecord.read(data ?? {}).holidays) };
}

export function calendarToData(calendar: Calendar): { holidays: Holiday[] } {
  return {
    holidays: calendar.holidays.map((h) => ({
      id: h.id,
      label: h.label,
      start: h.start,
      end: h.end,
    })),
  };
}

export function sortHolidays(holidays: readonly Holiday[]): Holiday[] {
  return [...holidays].sort(
    (a, b) =>
      a.start.localeCompare(b.start) ||
      a.end.localeCompare(b.end) ||
      a.label.localeCompare(b.label),
  );
}

/** Field (`label`, `start`, `end`) → message, for one holiday being added or edited. */
export type HolidayErrors = Partial<Record<'label' | 'start' | 'end', string>>;

/**
 * The rules for one holiday among the others (`others` excludes the one being edited): a label of
 * 1–80 characters, real dates, an end not before the start, and no overlap with another holiday
 * (a day belongs to one holiday, so what callers hear is never ambiguous).
 */
export function validateHoliday(h: Omit<Holiday, 'id'>, others: readonly Holiday[]): HolidayErrors {
  const errors: HolidayErrors = {};
  const label = h.label.trim();
  if (label === '') errors.label = 'Give the holiday a name, like “Christmas”.';
  else if (label.length > HOLIDAY_LABEL_MAX)
    errors.label = `Use at most ${HOLIDAY_LABEL_MAX} characters for the name.`;
  if (!isDate(h.start)) errors.start = 'Choose the first day, as YYYY-MM-DD.';
  if (!isDate(h.end)) errors.end = 'Choose the last day, as YYYY-MM-DD.';
  if (errors.start || errors.end) return errors;
  if (h.end < h.start) {
    errors.end = `The last day (${h.end}) is before the first (${h.start}).`;
    return errors;
  }
  const clash = others.find((o) => o.start <= h.end && h.start <= o.end);
  if (clash) {
    errors.start =
      clash.start === clash.end
        ? `${clash.start} is already a holiday (${clash.label}).`
        : `These days overlap ${clash.label} (${clash.start} to ${clash.end}).`;
  }
  return errors;
}

/** Every stored holiday checked, for the editor machine: `holidays.{i}.{field}` → message. */
export function validateCalendar(calendar: Calendar): Record<string, string> {
  const errors: Record<string, string> = {};
  if (calendar.holidays.length > MAX_HOLIDAYS)
    errors.holidays = `Keep at most ${MAX_HOLIDAYS} holidays; delete past ones first.`;
  calendar.holidays.forEach((h, i) => {
    const others = calendar.holidays.filter((_, k) => k !== i);
    for (const [field, message] of Object.entries(validateHoliday(h, others))) {
      errors[`holidays.${i}.${field}`] = message;
    }
  });
  return errors;
}

/** Days from `start` to `end` inclusive (both `YYYY-MM-DD`). */
export function daysBetween(start: string, end: string): number {
  return (
    Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000) + 1
  );
}

/** `date` moved by `days` (may be negative). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** The first day of the month `months` away from the month holding `date`. */
export function addMonths(date: string, months: number): string {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7)) - 1 + months;
  return new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 10);
}

/**
 * The weeks of the month holding `date`, Monday first: each week seven dates, with the days of
 * the months before and after filling the first and last weeks.
 */
export function monthGrid(date: string): string[][] {
  const first = `${date.slice(0, 7)}-01`;
  const weekday = (new Date(`${first}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday = 0
  let day = addDays(first, -weekday);
  const next = addMonths(first, 1);
  const weeks: string[][] = [];
  while (day < next) {
    const week: string[] = [];
    for (let i = 0; i < 7; i++) {
      week.push(day);
      day = addDays(day, 1);
    }
    weeks.push(week);
  }
  return weeks;
}
