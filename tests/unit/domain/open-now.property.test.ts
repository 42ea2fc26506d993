/**
 * The open-now function against a brute-force oracle: minute by minute from the instant, reading
 * the wall clock with a different Intl call (sv-SE locale strings), the first minute whose open
 * state differs must be the answer's `until`. Random weekly hours, holiday ranges and instants
 * near daylight-saving changes in zones with 1-hour, 30-minute and no shifts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openNow, stateAt } from '../../../src/domain/hours';
import { WEEKDAYS, type Schedule, type TimeRange } from '../../../src/contracts/records/schedule';
import type { Calendar } from '../../../src/contracts/records/calendar';

const MINUTE = 60_000;
const HORIZON_MINUTES = 8 * 24 * 60;

/** Instants around each zone's 2026 changes (and one ordinary day). */
const ZONES: Record<string, string[]> = {
  'Europe/London': ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z', '2026-06-10T12:00:00Z'],
  'America/New_York': ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z'],
  'Australia/Lord_Howe': ['2026-04-04T15:00:00Z', '2026-10-03T15:30:00Z'],
  'America/Santiago': ['2026-04-05T03:00:00Z', '2026-09-06T04:00:00Z'],
  'Asia/Kolkata': ['2026-11-25T00:00:00Z'],
  'Pacific/Chatham': ['2026-04-04T14:00:00Z', '2026-09-26T14:00:00Z'],
};

const SV = new Map<string, Intl.DateTimeFormat>();
/** The oracle's own wall clock: "2026-03-29 02:30:00" → date and minutes. */
function oracleWall(t: number, zone: string): { date: string; day: number; minutes: number } {
  let f = SV.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('sv-SE', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    SV.set(zone, f);
  }
  const text = f.format(t); // "2026-03-29 02:30"
  const date = text.slice(0, 10);
  const minutes = Number(text.slice(11, 13)) * 60 + Number(text.slice(14, 16));
  const day = new Date(`${date}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  return { date, day, minutes };
}

const toMin = (s: string) =>
  s === '24:00' ? 1440 : Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));
const DAY_KEYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

function oracleOpen(s: Schedule, c: Calendar, t: number): boolean {
  const w = oracleWall(t, s.timeZone);
  if (c.holidays.some((h) => h.start <= w.date && w.date <= h.end)) return false;
  return (s.week[DAY_KEYS[w.day]!] ?? []).some(
    (r) => toMin(r.start) <= w.minutes && w.minutes < toMin(r.end),
  );
}

const hhmm = (m: number) =>
  m === 1440
    ? '24:00'
    : `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

/**
 * Up to 3 sorted, non-overlapping ranges on a 15-minute grid (some touching, some at 24:00); half
 * the days put their marks in the small hours, where clocks change, so ranges start and end inside
 * spring-forward gaps and repeated fall-back hours.
 */
const dayRanges: fc.Arbitrary<TimeRange[]> = fc
  .oneof(
    fc.uniqueArray(fc.integer({ min: 0, max: 96 }), { maxLength: 6 }),
    fc.uniqueArray(fc.integer({ min: 0, max: 16 }), { maxLength: 6 }),
  )
  .map((marks) => {
    const sorted = [...marks].sort((a, b) => a - b);
    const out: TimeRange[] = [];
    for (let i = 0; i + 1 < sorted.length; i += 2) {
      out.push({ start: hhmm(sorted[i]! * 15), end: hhmm(sorted[i + 1]! * 15) });
    }
    return out;
  });

const schedule = (zone: string): fc.Arbitrary<Schedule> =>
  fc.tuple(...WEEKDAYS.map(() => dayRanges)).map((days) => ({
    timeZone: zone,
    week: Object.fromEntries(WEEKDAYS.map((d, i) => [d, days[i]!])),
  }));

const dateAround = (base: number, offsetDays: number) =>
  new Date(base + offsetDays * 86_400_000).toISOString().slice(0, 10);

const cases = fc
  .constantFrom(
    ...Object.entries(ZONES).flatMap(([zone, times]) => times.map((t) => [zone, t] as const)),
  )
  .chain(([zone, pivot]) => {
    const base = Date.parse(pivot);
    return fc.record({
      schedule: schedule(zone),
      calendar: fc
        .array(fc.tuple(fc.integer({ min: -3, max: 6 }), fc.integer({ min: 0, max: 2 })), {
          maxLength: 2,
        })
        .map((hs) => ({
          holidays: hs.map(([from, len], i) => ({
            id: `h${i}`,
            label: `Holiday ${i}`,
            start: dateAround(base, from),
            end: dateAround(base, from + len),
          })),
        })),
      // From two days before the change to a day after, to the millisecond.
      instant: fc.integer({ min: base - 2 * 86_400_000, max: base + 86_400_000 }),
    });
  });

describe('openNow against a minute-by-minute oracle', () => {
  it('agrees on open and on the next change, across daylight-saving changes and holidays', () => {
    fc.assert(
      fc.property(cases, ({ schedule: s, calendar: c, instant }) => {
        const answer = openNow(s, c, instant);
        const open = oracleOpen(s, c, instant);
        expect(answer.open).toBe(open);
        // Changes fall on whole minutes (every offset involved is whole minutes).
        let expected: number | null = null;
        const first = Math.floor(instant / MINUTE) * MINUTE + MINUTE;
        for (let k = 0; k < HORIZON_MINUTES; k++) {
          const t = first + k * MINUTE;
          if (oracleOpen(s, c, t) !== open) {
            expected = t;
            break;
          }
        }
        if (expected === null) {
          expect(answer.until === null || answer.until >= first + HORIZON_MINUTES * MINUTE).toBe(
            true,
          );
        } else {
          expect(answer.until).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('stateAt against the oracle', () => {
  it('agrees on open, closed or holiday (and which), for calls in time order and out of it', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          cases,
          // Within the hours either side of a change (Lord Howe's is at half past a UTC hour).
          cases.chain((c) =>
            fc
              .constantFrom(...ZONES[c.schedule.timeZone]!)
              .chain((pivot) =>
                fc
                  .integer({ min: -90 * MINUTE, max: 90 * MINUTE })
                  .map((d) => ({ ...c, instant: Date.parse(pivot) + d })),
              ),
          ),
        ),
        // Steps from the instant: mostly small and forward (calls in time order, often in the same
        // hour), sometimes back or by hours, across the changes.
        fc.array(
          fc.oneof(
            fc.integer({ min: 0, max: 10 * MINUTE }),
            fc.integer({ min: -3 * 3_600_000, max: 3 * 3_600_000 }),
          ),
          { minLength: 1, maxLength: 30 },
        ),
        ({ schedule: s, calendar: c, instant }, steps) => {
          let t = instant;
          for (const step of steps) {
            t += step;
            const w = oracleWall(t, s.timeZone);
            const holiday = c.holidays.find((h) => h.start <= w.date && w.date <= h.end) ?? null;
            const state = stateAt(s, c, t);
            expect(state.holiday).toEqual(holiday);
            expect(state.reason).toBe(
              holiday ? 'holiday' : oracleOpen(s, c, t) ? 'open' : 'closed',
            );
            expect(state.open).toBe(state.reason === 'open');
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
