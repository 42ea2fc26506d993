import { describe, expect, it } from 'vitest';
import { IcsError, parseIcs, planImport } from '../../../src/domain/ics';
import { MAX_HOLIDAYS } from '../../../src/contracts/records/calendar';

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

  it.each([
    [
      'an all-day day',
      ['DTSTART;VALUE=DATE:20261225', 'DTEND;VALUE=DATE:20261226'],
      '2026-12-25',
      '2026-12-25',
    ],
    [
      'an all-day day without VALUE=DATE',
      ['DTSTART:20261225', 'DTEND:20261226'],
      '2026-12-25',
      '2026-12-25',
    ],
    [
      'Outlook’s all-day, midnight to midnight',
      [
        'DTSTART;TZID=W. Europe Standard Time:20261225T000000',
        'DTEND;TZID=W. Europe Standard Time:20261226T000000',
        'X-MICROSOFT-CDO-ALLDAYEVENT:TRUE',
      ],
      '2026-12-25',
      '2026-12-25',
    ],
    [
      'two days, midnight to midnight',
      ['DTSTART:20261225T000000', 'DTEND:20261227T000000'],
      '2026-12-25',
      '2026-12-26',
    ],
    [
      'an evening into the next day',
      ['DTSTART:20261224T180000', 'DTEND:20261225T120000'],
      '2026-12-24',
      '2026-12-25',
    ],
    ['a time in UTC, no end', ['DTSTART:20261225T230000Z'], '2026-12-25', '2026-12-25'],
    [
      'an end before the start',
      ['DTSTART;VALUE=DATE:20261225', 'DTEND;VALUE=DATE:20261220'],
      '2026-12-25',
      '2026-12-25',
    ],
    [
      'DURATION of a day',
      ['DTSTART;VALUE=DATE:20261225', 'DURATION:P1D'],
      '2026-12-25',
      '2026-12-25',
    ],
    [
      'DURATION of two weeks',
      ['DTSTART;VALUE=DATE:20261225', 'DURATION:P2W'],
      '2026-12-25',
      '2027-01-07',
    ],
    [
      'DURATION of a working day',
      ['DTSTART:20261225T090000', 'DURATION:PT8H'],
      '2026-12-25',
      '2026-12-25',
    ],
    [
      'DURATION past midnight',
      ['DTSTART:20261224T220000', 'DURATION:PT4H'],
      '2026-12-24',
      '2026-12-25',
    ],
    [
      'DURATION of a day from midnight',
      ['DTSTART:20261225T000000', 'DURATION:P1D'],
      '2026-12-25',
      '2026-12-25',
    ],
  ])('reads %s', (_, props, start, end) => {
    const result = parseIcs(ics('BEGIN:VEVENT', ...props, 'SUMMARY:Closed', 'END:VEVENT'));
    expect(result.skipped).toEqual([]);
    expect(result.holidays).toEqual([{ label: 'Closed', start, end }]);
  });

  it('joins a line folded inside a UTF-8 character when given the file’s bytes', () => {
    const encoder = new TextEncoder();
    const head = encoder.encode(
      'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nDTSTART;VALUE=DATE:20270714\r\n',
    );
    const title = encoder.encode('Fête nationale');
    // Cut between the two bytes of “ê” (0xC3 0xAA), as an exporter folding by octets may.
    const cut = title.indexOf(0xaa);
    const tail = encoder.encode('\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n');
    const bytes = new Uint8Array([
      ...head,
      ...encoder.encode('SUMMARY:'),
      ...title.subarray(0, cut),
      0x0d,
      0x0a,
      0x20,
      ...title.subarray(cut),
      ...tail,
    ]);
    expect(parseIcs(bytes).holidays).toEqual([
      { label: 'Fête nationale', start: '2027-07-14', end: '2027-07-14' },
    ]);
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
        'BEGIN:VEVENT',
        'DTSTART;VALUE=DATE:20261231',
        'DURATION:-P1D',
        'SUMMARY:Backwards',
        'END:VEVENT',
      ),
    );
    expect(result.holidays).toEqual([]);
    expect(result.skipped).toEqual([
      { label: 'No date', reason: 'it has no start date' },
      { label: 'Bad date', reason: 'its start “20261331” is not a date' },
      { label: '(no title)', reason: 'it has no title' },
      { label: 'Called off', reason: 'it is cancelled' },
      { label: 'Backwards', reason: 'its duration “-P1D” is not a length of time' },
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

describe('planImport', () => {
  const christmas = { id: 'x', label: 'Christmas', start: '2026-12-25', end: '2026-12-25' };

  it('adds what is free, leaving out what overlaps a holiday there or earlier in the file', () => {
    const plan = planImport([christmas], {
      holidays: [
        { label: 'Christmas Eve', start: '2026-12-24', end: '2026-12-24' },
        { label: 'Christmas week', start: '2026-12-21', end: '2026-12-27' },
        { label: 'Eve again', start: '2026-12-24', end: '2026-12-24' },
        { label: 'New Year', start: '2027-01-01', end: '2027-01-01' },
      ],
      skipped: [{ label: 'No date', reason: 'it has no start date' }],
      repeating: ['Christmas week', 'New Year'],
    });
    expect(plan.add.map((h) => h.label)).toEqual(['Christmas Eve', 'New Year']);
    expect(plan.skipped).toEqual([
      { label: 'No date', reason: 'it has no start date' },
      {
        label: 'Christmas week',
        reason: '2026-12-25 is already a holiday (Christmas).',
      },
      { label: 'Eve again', reason: '2026-12-24 is already a holiday (Christmas Eve).' },
    ]);
    // Only what is added is said to repeat.
    expect(plan.repeating).toEqual(['New Year']);
  });

  it('leaves out what goes beyond the most a group keeps', () => {
    const existing = Array.from({ length: MAX_HOLIDAYS - 1 }, (_, i) => {
      const day = new Date(Date.UTC(2000, 0, 1 + i)).toISOString().slice(0, 10);
      return { id: `h${i}`, label: `H${i}`, start: day, end: day };
    });
    const plan = planImport(existing, {
      holidays: [
        { label: 'Last one', start: '2030-01-01', end: '2030-01-01' },
        { label: 'One too many', start: '2030-01-02', end: '2030-01-02' },
      ],
      skipped: [],
      repeating: [],
    });
    expect(plan.add.map((h) => h.label)).toEqual(['Last one']);
    expect(plan.skipped).toEqual([
      { label: 'One too many', reason: `a group keeps at most ${MAX_HOLIDAYS} holidays` },
    ]);
  });
});
