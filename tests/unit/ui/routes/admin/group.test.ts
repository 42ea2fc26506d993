import { describe, expect, it } from 'vitest';
import {
  extensionOwners,
  groupToData,
  newGroupId,
  validateGroup,
  validateGroupGuidance,
} from '../../../../../src/domain/group';
import { isValidRouteId } from '../../../../../src/ui/app/paths';
import type { Group } from '../../../../../src/contracts/records/group';
import { groupRecord } from '../../../../../src/contracts/records/group';
import { emptyGroup } from '../../../../../src/contracts/records/group';

const people = new Set(['tom@x.io', 'zoe@x.io']);
const ok: Group = { ...emptyGroup(), name: 'Front desk', number: '200', members: ['tom@x.io'] };
const none = new Map<string, Group>();

describe('ring group validation', () => {
  it('accepts a complete group', () => expect(validateGroup(ok, none, people)).toEqual({}));

  it('asks for a name and a number', () => {
    expect(validateGroup(emptyGroup(), none, people)).toEqual({
      name: 'Enter a name for the group.',
      number: 'Enter an extension or a phone number.',
    });
    expect(validateGroup({ ...ok, name: 'x'.repeat(81) }, none, people).name).toBe(
      'Use at most 80 characters.',
    );
  });

  it.each(['1', '1234567', '+1234', 'abc', '+44 20 7946 0000 12345'])(
    'refuses the number %s',
    (n) =>
      expect(validateGroup({ ...ok, number: n }, none, people).number).toMatch(/^Use an extension/),
  );

  it("refuses a number that is a person's extension, naming them", () => {
    const owners = extensionOwners([
      { name: 'Tom', extension: '101' },
      { name: 'Zoe', extension: null },
    ]);
    expect(validateGroup({ ...ok, number: ' 1-01' }, none, people, owners).number).toBe(
      '101 is already the extension of Tom.',
    );
    expect(validateGroup({ ...ok, number: '102' }, none, people, owners)).toEqual({});
  });

  it('accepts extensions and international numbers, as people type them', () => {
    for (const n of ['20', '123456', '+44 (20) 7946-0000', '+15551234567'])
      expect(validateGroup({ ...ok, number: n }, none, people)).toEqual({});
    expect(groupToData({ ...ok, number: '+44 (20) 7946-0000' }).number).toBe('+442079460000');
  });

  it('refuses a number another group has, naming that group', () => {
    const others = new Map([['g2', { ...ok, name: 'Sales', number: '2 00' }]]);
    expect(validateGroup(ok, others, people).number).toBe('200 is already the number of Sales.');
  });

  it('refuses members who left the team, or twice the same person', () => {
    expect(validateGroup({ ...ok, members: ['gone@x.io'] }, none, people).members).toBe(
      'No longer on the team: gone@x.io. Remove them from the group.',
    );
    expect(validateGroup({ ...ok, members: ['tom@x.io', 'tom@x.io'] }, none, people).members).toBe(
      'Each person can be in the group once.',
    );
  });

  it.each([4, 121, 10.5, Number.NaN])('refuses a ring timeout of %s seconds', (t) =>
    expect(validateGroup({ ...ok, ringTimeout: t }, none, people).ringTimeout).toBe(
      'Use a whole number of seconds from 5 to 120.',
    ),
  );

  it('reads stored groups defensively', () => {
    expect(
      groupRecord.read({ name: 7, members: ['a', 3], strategy: 'x', ringTimeout: 'y' }),
    ).toEqual({
      name: '',
      number: '',
      members: ['a'],
      strategy: 'simultaneous',
      ringTimeout: 20,
      guidance: {},
    });
  });

  it('keeps the chosen announcements through an edit, and stores none when none is chosen', () => {
    const stored = {
      ...groupToData(ok),
      guidance: { closed: 'gdn-1', hold: 'gdn-2', open: '', holiday: 7, other: 'x' },
    };
    const group = groupRecord.read(stored);
    expect(group.guidance).toEqual({ closed: 'gdn-1', hold: 'gdn-2' });
    const saved = groupToData({ ...group, name: 'Renamed' });
    expect(saved.guidance).toEqual({ closed: 'gdn-1', hold: 'gdn-2' });
    expect(groupRecord.read(saved)).toEqual({ ...group, name: 'Renamed' });
    // A group from before announcements reads and writes back unchanged (no spurious conflict).
    const old = {
      name: 'Sales',
      number: '300',
      members: [],
      strategy: 'sequential',
      ringTimeout: 30,
    };
    expect(groupToData(groupRecord.read(old))).toEqual(old);
  });

  it('refuses an announcement that was deleted meanwhile', () => {
    expect(
      validateGroupGuidance({ closed: 'gdn-1', hold: 'gdn-gone' }, new Set(['gdn-1'])),
    ).toEqual({
      hold: 'This announcement no longer exists. Choose another, or none.',
    });
    expect(validateGroupGuidance({}, new Set())).toEqual({});
  });

  it('makes ids that are valid in a route', () => {
    for (let i = 0; i < 50; i++) expect(isValidRouteId(newGroupId())).toBe(true);
  });
});
