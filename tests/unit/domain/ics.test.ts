import { describe, expect, it } from 'vitest';
import { IcsError, parseIcs } from '../../../src/domain/ics';

const ics = (...lines: string[]) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Google Inc//Google Calendar 70.9054//EN',
    ...lines,
    'END:VCALENDAR',
  ].join('\r\n');

describe('parseIcs', () => {
  it('reads all-day events (DTEND exclusive), multi-day ranges and folded, escaped titles', () => {
    const result = parseIcs(
      ics(
        'BEGIN:VEVENT',
        'DTSTART;VALUE=DATE:20261225',
        'DTEND;VALUE=DATE:20261226',
        'SUMMARY:Christmas Day',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'DTSTART;VALUE=DATE:20261228',
        'DTEND;VALUE=DATE:20270102',
        'SUMMARY:Office closed\\, between',
        '  the years',
        'BEGIN:VALARM',
        'SUMMARY:Alarm text',
        'END:VALARM',
        'END:VEVENT',
      ),
    );
    expect(result.holidays).toEqual([
      { label: 'Christmas Day', start: '2026-12-25', end: '2026-12-25' },
      { label: 'Office closed, between the years', start: '2026-12-28', end: '2027-01-01' },
    ]);
    expect(result.skipped).toEqual([]);
  });

  it('takes timed events on the dates written, one day without DTEND, and a repeating one once', () => {
    const result = parseIcs(
      [
        'BEGIN:VCALENDAR',
        'BEGIN:VEVENT',
        'DTSTART;TZID=Europe/London:20270101T090000',
        'DTEND;TZID=Europe/London:20270101T170000',
        'SUMMARY:New Year',
        'RRULE:FREQ=YEARLY',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'DTSTART:20270405',
        'SUMMARY:Easter Monday',
        'END:VEVENT',
        'END:VCALENDAR',
      ].join('\n'),
    );
    expect(result.holidays).toEqual([
      { label: 'New Year', start: '2027-01-01', end: '2027-01-01' },
      { label: 'Easter Monday', start: '2027-04-05', end: '2027-04-05' },
    ]);
    expect(result.repeating).toEqual(['New Year']);
  });

  it('skips events it cannot use, saying why', () => {
    const result = parseIcs(
      ics(
        'BEGIN:VEVENT',
        'SUMMARY:No date',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'DTSTART;VALUE=DATE:20261331',
        'SUMMARY:Bad date',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'DTSTART;VALUE=DATE:20261231',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'DTSTART;VALUE=DATE:20261231',
        'SUMMARY:Called off',
        'STATUS:CANCELLED',
        'END:VEVENT',
      ),
    );
    expect(result.holidays).toEqual([]);
    expect(result.skipped).toEqual([
      { label: 'No date', reason: 'it has no start date' },
      { label: 'Bad date', reason: 'its start “20261331” is not a date' },
      { label: '(no title)', reason: 'it has no title' },
      { label: 'Called off', reason: 'it is cancelled' },
    ]);
  });

  it('refuses what is not an iCalendar file, or one cut off mid-event', () => {
    expect(() => parseIcs('Name,Date\nChristmas,2026-12-25\n')).toThrow(IcsError);
    expect(() => parseIcs('Name,Date')).toThrow(
      'This file is not an iCalendar (.ics) file: it does not start with BEGIN:VCALENDAR.',
    );
    expect(() => parseIcs('BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART:20261225\n')).toThrow(
      'This file is cut off',
    );
  });
});
