/** Ring groups as dialled, and the rule that one number reaches one thing (src/domain/group.ts). */
import { describe, expect, it } from 'vitest';
import type { Group } from '../../../src/contracts/records/group';
import { dialledGroups, numberClash } from '../../../src/domain/group';

const group = (name: string, number: string): Group => ({
  name,
  number,
  members: [],
  strategy: 'simultaneous',
  ringTimeout: 20,
  guidance: {},
});

describe('dialledGroups', () => {
  it('gives each numbered group its id, its name (or id) and its number normalised', () => {
    expect(
      dialledGroups([
        ['grp-a', group('Sales', ' 2 00')],
        ['grp-b', group('', '+44 20 7946 0000')],
        ['grp-c', group('No number', '')],
      ]),
    ).toEqual([
      { id: 'grp-a', name: 'Sales', number: '200' },
      { id: 'grp-b', name: 'grp-b', number: '+442079460000' },
    ]);
  });
});

describe('numberClash', () => {
  const groups = [
    { id: 'grp-a', name: 'Sales', number: '200' },
    { id: 'grp-b', name: 'Support', number: '+442079460000' },
  ];
  const extensions = new Map([['100', 'Ada']]);

  it('names the person whose extension it is, or the other group whose number it is', () => {
    expect(numberClash('grp-new', '100', groups, extensions)).toBe(
      '100 is already the extension of Ada.',
    );
    expect(numberClash(null, ' 2 00', groups, extensions)).toBe(
      '200 is already the number of Sales.',
    );
    expect(numberClash('grp-new', '+44 20 7946 0000', groups, extensions)).toBe(
      '+442079460000 is already the number of Support.',
    );
  });

  it('accepts a free number, a group keeping its own, and no number', () => {
    expect(numberClash('grp-new', '201', groups, extensions)).toBeNull();
    expect(numberClash('grp-a', '200', groups, extensions)).toBeNull();
    expect(numberClash(null, '', groups, extensions)).toBeNull();
  });
});
