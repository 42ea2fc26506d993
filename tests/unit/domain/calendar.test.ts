import { describe, expect, it } from 'vitest';
import {
  calendarFromData,
  isDate,
  monthGrid,
  validateCalendar,
  validateHoliday,
} from '../../../src/domain/calendar';

describe('calendar', () => {
  it('knows real dates', () => {
    expect(isDate('2028-02-29')).toBe(true);
    expect(isDate('2027-02-29')).toBe(false);
    expect(isDate('2026-4-01')).toBe(false);
  });

  it('reads stored holidays sorted, leaving out entries of the wrong shape', () => {
    expect(
      calendarFromData({
        holidays: [
          { id: 'b', label: 'B', start: '2026-12-26', end: '2026-12-26' },
          { id: 'a', label: 'A', start: '2026-12-25', end: '2026-12-25' },
          { id: 'c', label: 3 },
          'x',
        ],
      }).holidays.map((h) => h.id),
    ).toEqual(['a', 'b']);
    expect(calendarFromData(null).holidays).toEqual([]);
  });

  it.each([
    [
      { label: ' ', start: '2026-12-25', end: '2026-12-25' },
      'label',
      'Give the holiday a name, like “Christmas”.',
    ],
    [
      { label: 'x'.repeat(81), start: '2026-12-25', end: '2026-12-25' },
      'label',
      'Use at most 80 characters for the name.',
    ],
    [
      { label: 'X', start: '2026-02-30', end: '2026-03-01' },
      'start',
      'Choose the first day, as YYYY-MM-DD.',
    ],
    [
      { label: 'X', start: '2026-12-27', end: '2026-12-25' },
      'end',
      'The last day (2026-12-25) is before the first (2026-12-27).',
    ],
    [
      { label: 'X', start: '2026-12-24', end: '2026-12-25' },
      'start',
      '2026-12-25 is already a holiday (Christmas).',
    ],
  ])('refuses %j at %s', (h, field, message) => {
    const others = [{ id: 'x', label: 'Christmas', start: '2026-12-25', end: '2026-12-25' }];
    expect(validateHoliday(h, others)[field as 'label']).toBe(message);
  });

  it('checks every stored holiday against the others', () => {
    expect(
      validateCalendar({
        holidays: [
          { id: 'a', label: 'A', start: '2026-12-24', end: '2026-12-26' },
          { id: 'b', label: 'B', start: '2026-12-26', end: '2026-12-27' },
        ],
      }),
    ).toEqual({
      'holidays.0.start': 'These days overlap B (2026-12-26 to 2026-12-27).',
      'holidays.1.start': 'These days overlap A (2026-12-24 to 2026-12-26).',
    });
  });

  it('lays out a month in weeks from Monday, filled from the months around it', () => {
    const weeks = monthGrid('2026-11-25');
    expect(weeks[0]).toEqual([
      '2026-10-26',
      '2026-10-27',
      '2026-10-28',
      '2026-10-29',
      '2026-10-30',
      '2026-10-31',
      '2026-11-01',
    ]);
    expect(weeks.at(-1)).toEqual([
      '2026-11-30',
      '2026-12-01',
      '2026-12-02',
      '2026-12-03',
      '2026-12-04',
      '2026-12-05',
      '2026-12-06',
    ]);
    expect(weeks).toHaveLength(6);
    expect(monthGrid('2027-02-10')).toHaveLength(4);
  });
});
