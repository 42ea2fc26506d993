import { describe, expect, it } from 'vitest';
import { callFromData, directionFor } from '../../../../../src/ui/routes/history/call';
import { describeTrail, rowParty, unheard } from '../../../../../src/ui/routes/history/row';
import { namesFrom } from '../../../../../src/ui/names/names';
import type { MapItem } from '../../../../../src/machines/syncPorts';

const item = (key: string, data: Record<string, unknown>): MapItem => ({
  key,
  data,
  revision: '1',
  lastEventId: 1,
  dateUpdated: 0,
  dateExpires: null,
});

const names = namesFrom(
  [
    item('ben@example.com', { name: 'Ben Agent', email: 'ben@example.com', extension: '101' }),
    item('cat@example.com', { name: 'Cat Lead', email: 'cat@example.com', extension: '102' }),
  ],
  [item('grp-1', { name: 'Voicemail desk', number: '700', members: [], strategy: 'simultaneous' })],
  [],
);

/** As the embedded voice service writes a call from Ben's browser to group 700 that left a message. */
const message = callFromData(9, {
  direction: 'outbound',
  from: 'ben@example.com',
  to: '700',
  user: 'ben@example.com',
  group: 'grp-1',
  groupName: 'Voicemail desk',
  startedAt: 1000,
  endedAt: 20_000,
  duration: 0,
  outcome: 'voicemail',
  voicemail: { id: 'vm-0123456789abcdef', seconds: 14 },
});

describe('a history row', () => {
  it('tells the whole trail in words, holds included, by name', () => {
    const call = callFromData(1, {
      trail: [
        { action: 'held', by: 'ben@example.com' },
        { action: 'resumed', by: 'ben@example.com' },
        { action: 'parked', by: 'ben@example.com' },
        { action: 'pickedUp', by: 'cat@example.com' },
        { action: 'transferred', by: 'cat@example.com', to: 'ben@example.com' },
      ],
    });
    expect(describeTrail(call.trail, names)).toBe(
      'Put on hold by Ben Agent · Taken off hold by Ben Agent · Parked by Ben Agent · ' +
        'Picked up by Cat Lead · Transferred to Ben Agent by Cat Lead',
    );
  });

  it('shows a voicemail to the group by its caller, inbound, and Call back dials the caller', () => {
    expect(directionFor(message, 'cat@example.com')).toBe('inbound');
    expect(rowParty(message, 'cat@example.com', names)).toEqual({
      party: { name: 'Ben Agent', detail: '101' },
      group: { name: 'Voicemail desk', detail: '700' },
      callBack: { to: 'client:ben@example.com', label: 'Ben Agent' },
    });
    // The caller sees the group they called, and calls it again.
    expect(directionFor(message, 'ben@example.com')).toBe('outbound');
    expect(rowParty(message, 'ben@example.com', names).callBack).toEqual({
      to: '700',
      label: 'Voicemail desk',
    });
  });

  it('names both sides of a call between colleagues', () => {
    const call = callFromData(2, {
      direction: 'outbound',
      from: 'ben@example.com',
      user: 'ben@example.com',
      to: 'client:cat@example.com',
      callee: 'cat@example.com',
    });
    expect(rowParty(call, 'ben@example.com', names).party.name).toBe('Cat Lead');
    expect(rowParty(call, 'cat@example.com', names).party.name).toBe('Ben Agent');
  });

  it('labels a test call and never shows its address', () => {
    const test = callFromData(3, {
      direction: 'outbound',
      from: 'cat@example.com',
      user: 'cat@example.com',
      to: 'test:grp-1',
      group: 'grp-1',
      test: true,
    });
    const mine = rowParty(test, 'cat@example.com', names);
    expect(mine.party.name).toBe('Test call to Voicemail desk');
    expect(mine.callBack).toBeNull();
    expect(rowParty(test, 'ben@example.com', names).party.name).toBe('Cat Lead');
  });

  it('is unread until heard, or until everything before a time is marked heard', () => {
    expect(unheard(message, { voicemailHeard: [], voicemailHeardBefore: 0 })).toBe(true);
    expect(
      unheard(message, { voicemailHeard: ['vm-0123456789abcdef'], voicemailHeardBefore: 0 }),
    ).toBe(false);
    expect(unheard(message, { voicemailHeard: [], voicemailHeardBefore: 30_000 })).toBe(false);
  });
});
