import { describe, expect, it } from 'vitest';
import { nextHoliday, openNow, stateAt, validateSchedule } from '../../../src/domain/hours';
import { scheduleFromData, scheduleToData, summariseWeek } from '../../../src/domain/schedule';
import type { Schedule } from '../../../src/contracts/records/schedule';
import type { Calendar } from '../../../src/contracts/records/calendar';
import { describeOpenNow } from '../../../src/domain/hours-text';
import { isTimeZone, wallClock, wallToInstant } from '../../../src/domain/wall-clock';

const weekdays = (start: string, end: string) => ({
  mon: [{ start, end }],
  tue: [{ start, end }],
  wed: [{ start, end }],
  thu: [{ start, end }],
  fri: [{ start, end }],
});
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const none: Calendar = { holidays: [] };

describe('openNow', () => {
  const london: Schedule = { timeZone: 'Europe/London', week: weekdays('09:00', '17:00') };

  it.each([
    // [instant (UTC), open, until (UTC)]
    ['2026-11-25T08:59:59.999Z', false, '2026-11-25T09:00:00.000Z'],
    ['2026-11-25T09:00:00.000Z', true, '2026-11-25T17:00:00.000Z'],
    ['2026-11-25T16:59:00.000Z', true, '2026-11-25T17:00:00.000Z'],
    ['2026-11-25T17:00:00.000Z', false, '2026-11-26T09:00:00.000Z'],
    // Friday evening: closed over the weekend until Monday.
    ['2026-11-27T18:00:00.000Z', false, '2026-11-30T09:00:00.000Z'],
    // Summer time: 09:00 in London is 08:00 UTC.
    ['2026-07-01T08:30:00.000Z', true, '2026-07-01T16:00:00.000Z'],
  ])('London weekdays 09–17 at %s: open %s until %s', (when, open, until) => {
    const answer = openNow(london, none, at(when));
    expect(answer.open).toBe(open);
    expect(iso(answer.until)).toBe(until);
  });

  it('counts the change of clocks: Friday before the spring change opens Monday at 08:00 UTC', () => {
    // Clocks go forward on Sunday 29 March 2026 in London.
    const answer = openNow(london, none, at('2026-03-27T17:30:00Z'));
    expect(iso(answer.until)).toBe('2026-03-30T08:00:00.000Z');
  });

  it('joins ranges that touch across midnight into one open span', () => {
    const night: Schedule = {
      timeZone: 'UTC',
      week: { mon: [{ start: '22:00', end: '24:00' }], tue: [{ start: '00:00', end: '06:00' }] },
    };
    const answer = openNow(night, none, at('2026-11-23T23:00:00Z'));
    expect(answer.open).toBe(true);
    expect(iso(answer.until)).toBe('2026-11-24T06:00:00.000Z');
  });

  it('is closed all day on a holiday, says which, and opens after it', () => {
    const xmas: Calendar = {
      holidays: [{ id: 'h1', label: 'Christmas', start: '2026-12-24', end: '2026-12-28' }],
    };
    const answer = openNow(london, xmas, at('2026-12-24T10:00:00Z'));
    expect(answer).toMatchObject({ open: false, reason: 'holiday' });
    expect(answer.holiday?.label).toBe('Christmas');
    expect(iso(answer.until)).toBe('2026-12-29T09:00:00.000Z');
    expect(describeOpenNow(answer, at('2026-12-24T10:00:00Z'), 'Europe/London')).toBe(
      'Closed for Christmas, until Tue 09:00',
    );
  });

  it('a range that starts in the spring-forward gap opens when the clock jumps past it', () => {
    const s: Schedule = {
      timeZone: 'America/New_York',
      week: { sun: [{ start: '02:30', end: '04:00' }] },
    };
    // 8 March 2026: 02:00 EST becomes 03:00 EDT at 07:00 UTC.
    const answer = openNow(s, none, at('2026-03-08T06:00:00Z'));
    expect(answer.open).toBe(false);
    expect(iso(answer.until)).toBe('2026-03-08T07:00:00.000Z');
    const later = openNow(s, none, at('2026-03-08T07:00:00Z'));
    expect(later.open).toBe(true);
    expect(iso(later.until)).toBe('2026-03-08T08:00:00.000Z');
  });

  it('in the hour a fall-back repeats, the repeated wall times count twice', () => {
    const s: Schedule = {
      timeZone: 'Europe/London',
      week: { sun: [{ start: '01:00', end: '01:30' }] },
    };
    // 25 October 2026: 02:00 BST becomes 01:00 GMT at 01:00 UTC. 01:00 BST = 00:00 UTC.
    const first = openNow(s, none, at('2026-10-25T00:10:00Z'));
    expect(first.open).toBe(true);
    expect(iso(first.until)).toBe('2026-10-25T00:30:00.000Z');
    const between = openNow(s, none, at('2026-10-25T00:45:00Z'));
    expect(between.open).toBe(false);
    expect(iso(between.until)).toBe('2026-10-25T01:00:00.000Z');
  });

  it('a schedule with no hours is closed with nothing ahead; all hours is open around the clock', () => {
    const closed = openNow({ timeZone: 'UTC', week: {} }, none, at('2026-11-25T12:00:00Z'));
    expect(closed).toMatchObject({ open: false, until: null });
    const all = Object.fromEntries(
      ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [
        d,
        [{ start: '00:00', end: '24:00' }],
      ]),
    );
    const open = openNow({ timeZone: 'UTC', week: all }, none, at('2026-11-25T12:00:00Z'));
    expect(open).toMatchObject({ open: true, until: null });
    expect(describeOpenNow(open, 0, 'UTC')).toBe('Open now, around the clock');
  });

  it('reads a zone Intl does not know as UTC rather than failing', () => {
    const s: Schedule = { timeZone: 'Mars/Olympus', week: weekdays('09:00', '17:00') };
    expect(openNow(s, none, at('2026-11-25T09:30:00Z')).open).toBe(true);
  });
});

describe('wall clock helpers', () => {
  it('reads the local date, weekday and minutes', () => {
    expect(wallClock(at('2026-11-25T23:30:00Z'), 'Asia/Kolkata')).toMatchObject({
      date: '2026-11-26',
      weekday: 'thu',
      minutes: 5 * 60,
    });
  });

  it('turns a wall time into the first instant showing it (or the jump past a gap)', () => {
    expect(iso(wallToInstant('2026-07-01', 9 * 60, 'Europe/London'))).toBe(
      '2026-07-01T08:00:00.000Z',
    );
    expect(iso(wallToInstant('2026-10-25', 60 + 15, 'Europe/London'))).toBe(
      '2026-10-25T00:15:00.000Z',
    );
    expect(iso(wallToInstant('2026-03-29', 60 + 30, 'Europe/London'))).toBe(
      '2026-03-29T01:00:00.000Z',
    );
  });

  it('knows time zones', () => {
    expect(isTimeZone('Europe/London')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });
});

describe('nextHoliday', () => {
  const cal: Calendar = {
    holidays: [
      { id: 'b', label: 'New Year', start: '2027-01-01', end: '2027-01-01' },
      { id: 'a', label: 'Christmas', start: '2026-12-25', end: '2026-12-26' },
      { id: 'c', label: 'Old', start: '2026-01-01', end: '2026-01-01' },
    ],
  };
  it('gives the holiday in effect, else the next by local date', () => {
    expect(nextHoliday(cal, at('2026-11-25T12:00:00Z'), 'UTC')?.label).toBe('Christmas');
    expect(nextHoliday(cal, at('2026-12-26T12:00:00Z'), 'UTC')?.label).toBe('Christmas');
    // 27 Dec 01:00 in Tokyo is still 26 Dec in UTC, and no longer Christmas there.
    expect(nextHoliday(cal, at('2026-12-26T16:00:00Z'), 'Asia/Tokyo')?.label).toBe('New Year');
    expect(nextHoliday(cal, at('2027-02-01T00:00:00Z'), 'UTC')).toBeNull();
    expect(nextHoliday(null, 0, 'UTC')).toBeNull();
  });
});

describe('validateSchedule', () => {
  it.each([
    [{ timeZone: '', week: {} }, 'timeZone', 'Choose the time zone these hours are in.'],
    [
      { timeZone: 'Mars/Olympus', week: {} },
      'timeZone',
      'Mars/Olympus is not a time zone; choose one like Europe/London.',
    ],
    [
      { timeZone: 'UTC', week: { mon: [{ start: '9am', end: '17:00' }] } },
      'week.mon.0.start',
      '“9am” is not a time; use 24-hour HH:MM, like 09:00.',
    ],
    [
      { timeZone: 'UTC', week: { tue: [{ start: '17:00', end: '09:00' }] } },
      'week.tue.0.end',
      'Tuesday 17:00–09:00 ends before it starts.',
    ],
    [
      {
        timeZone: 'UTC',
        week: {
          wed: [
            { start: '11:00', end: '13:00' },
            { start: '09:00', end: '12:00' },
          ],
        },
      },
      'week.wed.0.start',
      'Wednesday 09:00–12:00 and 11:00–13:00 overlap.',
    ],
    [
      {
        timeZone: 'UTC',
        week: {
          thu: Array.from({ length: 7 }, (_, i) => ({ start: `0${i}:00`, end: `0${i}:30` })),
        },
      },
      'week.thu',
      'Use at most 6 ranges a day.',
    ],
  ] as [Schedule, string, string][])('refuses %j at %s', (schedule, field, message) => {
    expect(validateSchedule(schedule)[field]).toBe(message);
  });

  it('accepts several ranges a day, touching ranges and 24:00', () => {
    expect(
      validateSchedule({
        timeZone: 'Europe/London',
        week: {
          mon: [
            { start: '09:00', end: '12:00' },
            { start: '12:00', end: '17:00' },
            { start: '20:00', end: '24:00' },
          ],
        },
      }),
    ).toEqual({});
  });
});

describe('schedule documents', () => {
  it('reads whatever is stored, keeping typed text and dropping what has the wrong type', () => {
    expect(
      scheduleFromData({
        timeZone: 'Europe/London',
        week: { mon: [{ start: '09:00', end: '17:00' }, { start: 9 }, 'x'], tue: 'closed' },
      }),
    ).toEqual({
      timeZone: 'Europe/London',
      week: {
        mon: [{ start: '09:00', end: '17:00' }],
        tue: [],
        wed: [],
        thu: [],
        fri: [],
        sat: [],
        sun: [],
      },
    });
    expect(scheduleFromData(null).timeZone).toBe('');
  });

  it('summarises a week, joining runs of days with the same hours', () => {
    const s = scheduleFromData({
      timeZone: 'UTC',
      week: {
        ...weekdays('09:00', '17:00'),
        sat: [
          { start: '14:00', end: '16:00' },
          { start: '10:00', end: '12:00' },
        ],
      },
    });
    expect(summariseWeek(s)).toBe('Mon–Fri 09:00–17:00; Sat 10:00–12:00, 14:00–16:00');
    expect(summariseWeek(scheduleFromData({ timeZone: 'UTC', week: {} }))).toBe('No opening hours');
    expect(scheduleToData(s).week.sun).toEqual([]);
  });
});

describe('stateAt (calls in time order)', () => {
  it('follows a change in the middle of a UTC hour: Lord Howe, 02:00 → 02:30 at 15:30 UTC', () => {
    // 4 October 2026: +10:30 becomes +11:00 at 15:30 UTC, when the clock jumps to 02:30.
    const s: Schedule = {
      timeZone: 'Australia/Lord_Howe',
      week: { sun: [{ start: '02:30', end: '03:00' }] },
    };
    const steps: [string, boolean][] = [
      ['2026-10-03T15:00:00Z', false], // 01:30 +10:30
      ['2026-10-03T15:29:59Z', false], // 01:59:59 +10:30
      ['2026-10-03T15:30:00Z', true], // 02:30 +11:00
      ['2026-10-03T15:59:59Z', true],
      ['2026-10-03T16:00:00Z', false], // 03:00 +11:00
      ['2026-10-03T16:20:00Z', false],
    ];
    for (const [instant, open] of steps) expect(stateAt(s, none, at(instant)).open).toBe(open);
    // And again out of order, from the cached hour to others and back.
    for (const [instant, open] of [...steps].reverse())
      expect(stateAt(s, none, at(instant)).open).toBe(open);
  });

  it('reads instants before 1970 and far ahead as the wall clock does', () => {
    const s: Schedule = { timeZone: 'Europe/London', week: weekdays('09:00', '17:00') };
    // Wednesday 1 January 1969, 10:00 GMT+1 (British Standard Time, all year then).
    expect(stateAt(s, none, at('1969-01-01T09:30:00Z')).open).toBe(true);
    expect(stateAt(s, none, at('1969-01-01T07:30:00Z')).open).toBe(false);
    // Wednesday 1 January 9500.
    expect(stateAt(s, none, Date.UTC(9500, 0, 1, 10)).open).toBe(true);
  });
});
