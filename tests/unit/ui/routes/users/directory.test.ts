import { describe, expect, it } from 'vitest';
import type { MapItem } from '../../../../../src/machines/syncPorts';
import { presenceOf } from '../../../../../src/domain/presence';
import {
  presenceCounts,
  teamDirectory,
  type TeamMember,
} from '../../../../../src/ui/routes/users/directory';
import { checkExtension } from '../../../../../src/ui/routes/users/roles';

const item = (key: string, data: Record<string, unknown>): MapItem => ({
  key,
  data,
  revision: '0',
  lastEventId: 1,
  dateUpdated: 0,
  dateExpires: null,
});

describe('presenceOf', () => {
  it('reads a missing item (never written, or lapsed) as Offline', () => {
    expect(presenceOf(undefined)).toBe('offline');
  });
  it('lets the on-call flag outrank the chosen status', () => {
    expect(presenceOf({ status: 'away', onCall: true })).toBe('onCall');
    expect(presenceOf({ status: 'available', onCall: false })).toBe('available');
    expect(presenceOf({ status: 'away', onCall: false })).toBe('away');
  });
  it('treats an unknown status as Offline rather than guessing', () => {
    expect(presenceOf({ status: 'dancing' })).toBe('offline');
  });
});

describe('teamDirectory', () => {
  const users = [
    item('zed@x.io', { name: 'zed', email: 'zed@x.io', role: 'agent' }),
    item('ada@x.io', { name: 'Ada', email: 'ada@x.io', role: 'admin' }),
    item('bob@x.io', { name: 'Bob', email: 'bob@x.io', role: 'agent' }),
    item('junk', { role: 'admin' }),
  ];

  it('joins users with presence, sorted by name case-insensitively, skipping non-users', () => {
    const presence = new Map([
      ['ada@x.io', item('ada@x.io', { status: 'available', onCall: true })],
      ['zed@x.io', item('zed@x.io', { status: 'away', onCall: false })],
    ]);
    const members = teamDirectory(users, presence);
    expect(members.map((m) => [m.name, m.role, m.presence])).toEqual([
      ['Ada', 'admin', 'onCall'],
      ['Bob', 'agent', 'offline'],
      ['zed', 'agent', 'away'],
    ]);
    expect(presenceCounts(members)).toEqual({
      available: 0,
      onCall: 1,
      away: 1,
      doNotDisturb: 0,
      offline: 1,
    });
  });

  it('keeps the order when statuses change (rows do not jump)', () => {
    const before = teamDirectory(users, new Map()).map((m) => m.identity);
    const after = teamDirectory(
      users,
      new Map([['zed@x.io', item('zed@x.io', { status: 'available' })]]),
    ).map((m) => m.identity);
    expect(after).toEqual(before);
  });
});

describe('extensions on /users', () => {
  const members = teamDirectory(
    [
      item('ada@x.io', { name: 'Ada', email: 'ada@x.io', role: 'admin', extension: '100' }),
      item('bob@x.io', { name: 'Bob', email: 'bob@x.io', role: 'agent' }),
    ],
    new Map(),
  );
  const [ada, bob] = members as [TeamMember, TeamMember];

  it('reads each member’s extension, or none from a directory before extensions', () => {
    expect(members.map((m) => [m.name, m.extension])).toEqual([
      ['Ada', '100'],
      ['Bob', null],
    ]);
  });

  it('checks a typed extension before asking the server, naming whose it is', () => {
    expect(checkExtension(' 1-05 ', bob, members)).toBeNull();
    expect(checkExtension('100', ada, members)).toBeNull();
    expect(checkExtension('100', bob, members)).toBe('100 is already the extension of Ada.');
    expect(checkExtension('', bob, members)).toBe('Enter an extension of 2 to 6 digits.');
    for (const bad of ['1', '1234567', 'abc', '+4420'])
      expect(checkExtension(bad, bob, members)).toBe('An extension is 2 to 6 digits, like 104.');
  });
});
