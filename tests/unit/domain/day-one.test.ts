/**
 * Defaults that work for a new team: a new group's hours (Monday to Friday, 09:00–17:00, in the
 * admin's zone) and the create form's checks of them; the no-answer time as a group setting of its
 * own, read tolerantly from groups stored before it; away and do-not-disturb as people read them
 * and as call routing counts them.
 */
import { describe, expect, it } from 'vitest';
import { groupRecord } from '../../../src/contracts/records/group';
import { validateGroup } from '../../../src/domain/group';
import { isOpenAt } from '../../../src/domain/hours';
import { presenceOf, ringsForGroups } from '../../../src/domain/presence';
import { noAnswerSeconds } from '../../../src/domain/routing/engine';
import {
  defaultWeeklyHours,
  summariseWeek,
  validateWeeklyHours,
  weeklySchedule,
} from '../../../src/domain/schedule';
import { availabilityFrom } from '../../../server/routing/routing-data';

describe('a new group’s hours', () => {
  it('are Monday to Friday, 09:00–17:00, in the zone given', () => {
    const s = weeklySchedule('America/New_York');
    expect(summariseWeek(s)).toBe('Mon–Fri 09:00–17:00');
    expect(s.timeZone).toBe('America/New_York');
    // Wednesday 26 Nov 2026, 10:00 in New York (15:00 UTC) is open; 18:00 there is not; Saturday is not.
    expect(isOpenAt(s, null, Date.parse('2026-11-25T15:00:00Z'))).toBe(true);
    expect(isOpenAt(s, null, Date.parse('2026-11-25T23:00:00Z'))).toBe(false);
    expect(isOpenAt(s, null, Date.parse('2026-11-28T15:00:00Z'))).toBe(false);
  });

  it('as the create form edits them: checked field by field', () => {
    expect(validateWeeklyHours(defaultWeeklyHours('Europe/London'))).toEqual({});
    expect(
      validateWeeklyHours({ timeZone: 'Mars/Base', days: [], opens: '9', closes: '08:00' }),
    ).toEqual({
      timeZone: 'Mars/Base is not a time zone; choose one like Europe/London.',
      opens: '“9” is not a time; use 24-hour HH:MM, like 09:00.',
    });
    expect(
      validateWeeklyHours({ timeZone: 'UTC', days: ['sat'], opens: '18:00', closes: '09:00' }),
    ).toEqual({ closes: '18:00–09:00 ends before it starts.' });
    expect(summariseWeek(weeklySchedule('UTC', ['sat', 'sun'], '00:00', '24:00'))).toBe(
      'Sat–Sun 00:00–24:00',
    );
  });
});

describe('the no-answer time', () => {
  const stored = {
    name: 'Sales',
    number: '500',
    members: [],
    strategy: 'sequential',
    ringTimeout: 20,
  };
  it('is absent from a group stored before it, which then routes by its no-answer rule or turns', () => {
    const { value, issues } = groupRecord.decode(stored);
    expect(issues).toEqual([]);
    expect(value.noAnswerTimeout).toBeUndefined();
    const rule = {
      when: 'noAnswer' as const,
      after: 45,
      target: { kind: 'voicemail' as const },
      order: 0,
    };
    expect(noAnswerSeconds(value, rule)).toBe(45);
    expect(noAnswerSeconds(value, null)).toBe(0);
    expect(noAnswerSeconds({ ...value, noAnswerTimeout: 30 }, rule)).toBe(30);
  });

  it('stored wrong reads as the default, and the form refuses it outside 5–300 s', () => {
    expect(groupRecord.read({ ...stored, noAnswerTimeout: 'soon' }).noAnswerTimeout).toBe(30);
    const group = { ...groupRecord.read(stored), name: 'Sales', number: '500' };
    for (const bad of [4, 301, 12.5])
      expect(
        validateGroup({ ...group, noAnswerTimeout: bad }, new Map(), new Set()).noAnswerTimeout,
      ).toBe('Use a whole number of seconds from 5 to 300.');
    expect(validateGroup({ ...group, noAnswerTimeout: 60 }, new Map(), new Set())).toEqual({});
  });
});

describe('away and do not disturb', () => {
  it('read as such (on a call first), and only Available rings for groups', () => {
    expect(presenceOf({ status: 'available', doNotDisturb: true })).toBe('doNotDisturb');
    expect(presenceOf({ status: 'away', doNotDisturb: true })).toBe('doNotDisturb');
    expect(presenceOf({ status: 'away', onCall: true, doNotDisturb: true })).toBe('onCall');
    expect(presenceOf({ status: 'away' })).toBe('away');
    expect(presenceOf({ status: 'available' })).toBe('available');
    expect(
      ['available', 'onCall', 'away', 'doNotDisturb', 'offline'].filter((s) =>
        ringsForGroups(s as never),
      ),
    ).toEqual(['available']);
  });

  it('on Twilio: away is not available for group calls; do not disturb outranks it', () => {
    const item = (data: Record<string, unknown>) => ({ data, expiresAt: null }) as never;
    expect(availabilityFrom(item({ status: 'away' }), false, false, 0)).toBe('away');
    expect(availabilityFrom(item({ status: 'away' }), true, false, 0)).toBe('doNotDisturb');
    expect(availabilityFrom(item({ status: 'available' }), false, false, 0)).toBe('available');
    expect(availabilityFrom(item({ status: 'away', onCall: true }), false, false, 0)).toBe(
      'onCall',
    );
  });
});
