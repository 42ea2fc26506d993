/** Extensions: allocation, the admin's input, and what dialling one reaches. */
import { describe, expect, it } from 'vitest';
import type { User } from '../../../../server/identity/users';
import { lowestFreeExtension, parseExtension } from '../../../../server/identity/extensions';
import { resolveDestination } from '../../../../server/calls/destination';

const person = (identity: string, name: string, extension: string | null): User => ({
  identity,
  name,
  email: identity,
  role: 'agent',
  picture: null,
  extension,
});

describe('lowestFreeExtension', () => {
  it('starts at 100 and takes the first gap', () => {
    expect(lowestFreeExtension(new Set())).toBe('100');
    expect(lowestFreeExtension(new Set(['100', '101', '103']))).toBe('102');
    // Numbers below 100 and phone numbers are not in the way.
    expect(lowestFreeExtension(new Set(['10', '99', '+4420794600']))).toBe('100');
  });

  it('treats numbers as strings: a group on 0100 does not take 100', () => {
    expect(lowestFreeExtension(new Set(['0100']))).toBe('100');
  });
});

describe('parseExtension', () => {
  it('accepts 2 to 6 digits, dropping spaces, dashes, dots and brackets', () => {
    expect(parseExtension('42')).toBe('42');
    expect(parseExtension(' 1 2-3.4(5) ')).toBe('12345');
    expect(parseExtension('999999')).toBe('999999');
  });

  it.each([[''], ['1'], ['1234567'], ['12a'], ['+4420'], ['１２３']])(
    'refuses %j with a readable message',
    (raw) => {
      expect(() => parseExtension(raw)).toThrow(/2 to 6 digits/);
    },
  );

  it('refuses with an identity error the platform answers 400 bad_request', () => {
    expect(() => parseExtension('1')).toThrow(
      expect.objectContaining({ name: 'IdentityError', kind: 'invalid', code: 'bad_request' }),
    );
  });
});

describe('resolveDestination with extensions and groups', () => {
  const team = [person('ada@x.io', 'Ada', '100'), person('bob@x.io', 'Bob', '101')];
  const groups = [{ id: 'grp-a', name: 'Sales', number: '200' }];

  it('reaches a person by their extension, as typed with or without spaces', () => {
    expect(resolveDestination('101', team, groups)).toEqual({
      kind: 'person',
      identity: 'bob@x.io',
      name: 'Bob',
    });
    expect(resolveDestination(' 1 00 ', team, groups)).toMatchObject({ identity: 'ada@x.io' });
    expect(resolveDestination('client:100', team, groups)).toMatchObject({ identity: 'ada@x.io' });
  });

  it('reaches a ring group by its number, to be routed', () => {
    expect(resolveDestination('2 00', team, groups)).toEqual({
      kind: 'group',
      groupId: 'grp-a',
      name: 'Sales',
      test: false,
    });
  });

  it('lets only admins test a group, and only one that exists', () => {
    const admins = [{ ...person('ada@x.io', 'Ada', '100'), role: 'admin' as const }, team[1]!];
    expect(resolveDestination('test:grp-a', admins, groups, 'ada@x.io')).toEqual({
      kind: 'group',
      groupId: 'grp-a',
      name: 'Sales',
      test: true,
    });
    expect(resolveDestination('test:grp-a', admins, groups, 'bob@x.io')).toEqual({
      kind: 'unknown',
      reason: 'Only admins can test a ring group.',
    });
    expect(resolveDestination('test:grp-zz', admins, groups, 'ada@x.io')).toEqual({
      kind: 'unknown',
      reason: 'That ring group no longer exists.',
    });
  });

  it('an extension nobody has is a number nobody answers', () => {
    const dest = resolveDestination('102', team, groups);
    expect(dest.kind).toBe('unknown');
    expect(dest.kind === 'unknown' && dest.reason).toMatch(/Nobody has extension 102/);
  });
});
