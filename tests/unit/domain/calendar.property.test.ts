/**
 * Properties of the holidays domain over random input: a month grid is whole Monday-first weeks
 * holding each day of the month once; the overlap rule agrees with a day-by-day oracle and is
 * symmetric; sorting is ordered and idempotent; and any holidays written as an .ics file the way
 * exporters write them (escaped titles, all-day or Outlook's midnight-to-midnight, lines folded
 * every 75 octets even inside a UTF-8 character, CRLF or LF) read back as the same holidays.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  daysBetween,
  isDate,
  monthGrid,
  sortHolidays,
  validateHoliday,
} from '../../../src/domain/calendar';
import { parseIcs } from '../../../src/domain/ics';
import type { Holiday } from '../../../src/contracts/records/calendar';

const RUNS = { numRuns: 300 };

/** A real date between 1990 and 2099. */
const date = fc
  .date({
    min: new Date('1990-01-01T00:00:00Z'),
    max: new Date('2099-12-31T00:00:00Z'),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString().slice(0, 10));

const span = fc
  .tuple(date, fc.integer({ min: 0, max: 40 }))
  .map(([start, extra]) => ({ start, end: addDays(start, extra) }));

const days = (h: { start: string; end: string }) =>
  Array.from({ length: daysBetween(h.start, h.end) }, (_, i) => addDays(h.start, i));

describe('month grid', () => {
  it('is whole weeks from Monday holding each day of the month once, in order', () => {
    fc.assert(
      fc.property(date, (d) => {
        const weeks = monthGrid(d);
        const flat = weeks.flat();
        expect(weeks.length).toBeGreaterThanOrEqual(4);
        expect(weeks.length).toBeLessThanOrEqual(6);
        for (const week of weeks) expect(week).toHaveLength(7);
        expect(new Date(`${flat[0]}T00:00:00Z`).getUTCDay()).toBe(1);
        flat.forEach((day, i) => {
          expect(isDate(day)).toBe(true);
          if (i > 0) expect(day).toBe(addDays(flat[i - 1]!, 1));
        });
        const month = d.slice(0, 7);
        const inMonth = flat.filter((day) => day.startsWith(month));
        expect(inMonth[0]).toBe(`${month}-01`);
        expect(addDays(inMonth.at(-1)!, 1).slice(0, 7)).not.toBe(month);
        // No week lies wholly outside the month.
        for (const week of weeks) expect(week.some((day) => day.startsWith(month))).toBe(true);
      }),
      RUNS,
    );
  });
});

describe('holiday rules', () => {
  it('refuse an overlap exactly when the two share a day, whichever is checked', () => {
    fc.assert(
      fc.property(span, span, (a, b) => {
        const ha: Holiday = { id: 'a', label: 'A', ...a };
        const hb: Holiday = { id: 'b', label: 'B', ...b };
        const shared = days(a).some((day) => days(b).includes(day));
        expect(validateHoliday(ha, [hb]).start !== undefined).toBe(shared);
        expect(validateHoliday(hb, [ha]).start !== undefined).toBe(shared);
        expect(validateHoliday(ha, []).start).toBeUndefined();
      }),
      RUNS,
    );
  });

  it('sort by first day, then last day, and sorting again changes nothing', () => {
    fc.assert(
      fc.property(fc.array(span, { maxLength: 20 }), (spans) => {
        const list = spans.map((s, i) => ({ id: `h${i}`, label: `H${i % 3}`, ...s }));
        const sorted = sortHolidays(list);
        expect(sorted).toHaveLength(list.length);
        for (let i = 1; i < sorted.length; i++) {
          const [p, q] = [sorted[i - 1]!, sorted[i]!];
          expect(p.start < q.start || (p.start === q.start && p.end <= q.end)).toBe(true);
        }
        expect(sortHolidays(sorted)).toEqual(sorted);
      }),
      RUNS,
    );
  });
});

// Titles: letters, accents, CJK, emoji and the characters iCalendar escapes.
const titleChar = fc.constantFrom(...'abcXYZ019 ,;:\\"é€ß漢字'.split(''), '😀', 'ü', '\u00a0');
const title = fc
  .array(titleChar, { minLength: 1, maxLength: 60, size: 'max' })
  .map((cs) => cs.join('').trim())
  .filter((t) => t !== '' && t.length <= 80);

const escape = (text: string) => text.replace(/[\\;,]/g, (c) => `\\${c}`);
const compact = (d: string) => d.replaceAll('-', '');

/** Splits a line into 75-octet pieces, the way exporters fold, cutting characters if it falls so. */
function fold(line: string): Uint8Array[] {
  const bytes = new TextEncoder().encode(line);
  const pieces: Uint8Array[] = [bytes.subarray(0, 75)];
  for (let i = 75; i < bytes.length; i += 74) pieces.push(bytes.subarray(i, i + 74));
  return pieces;
}

function icsBytes(
  events: Array<{ label: string; start: string; end: string; outlook: boolean }>,
  eol: string,
): Uint8Array {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Property//EN'];
  for (const e of events) {
    const after = compact(addDays(e.end, 1));
    lines.push(
      'BEGIN:VEVENT',
      `UID:${e.start}-${e.label.length}@example.com`,
      ...(e.outlook
        ? [
            `DTSTART;TZID="(UTC+01:00) Amsterdam, Berlin":${compact(e.start)}T000000`,
            `DTEND;TZID="(UTC+01:00) Amsterdam, Berlin":${after}T000000`,
          ]
        : [`DTSTART;VALUE=DATE:${compact(e.start)}`, `DTEND;VALUE=DATE:${after}`]),
      `SUMMARY;LANGUAGE=en-gb:${escape(e.label)}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  const newline = new TextEncoder().encode(eol);
  const parts: number[] = [];
  for (const line of lines) {
    fold(line).forEach((piece, i) => {
      if (i > 0) parts.push(...newline, 0x20);
      parts.push(...piece);
    });
    parts.push(...newline);
  }
  return new Uint8Array(parts);
}

describe('.ics round trip', () => {
  it('reads back what exporters write', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            label: title,
            span,
            outlook: fc.boolean(),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        fc.constantFrom('\r\n', '\n'),
        (events, eol) => {
          const written = events.map((e) => ({ label: e.label, ...e.span, outlook: e.outlook }));
          const result = parseIcs(icsBytes(written, eol));
          expect(result.skipped).toEqual([]);
          expect(result.repeating).toEqual([]);
          expect(result.holidays).toEqual(
            written.map(({ label, start, end }) => ({ label, start, end })),
          );
        },
      ),
      RUNS,
    );
  });
});
