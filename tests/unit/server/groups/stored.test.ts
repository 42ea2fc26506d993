/** Ring groups' numbers: one number reaches one thing (no other group's, no one's extension). */
import { describe, expect, it } from 'vitest';
import { groupNumberClash } from '../../../../server/groups/stored';

const person = (name: string, extension: string | null) => ({ name, extension });

describe('groupNumberClash', () => {
  const groups = [
    { id: 'grp-a', name: 'Sales', number: '200' },
    { id: 'grp-b', name: 'Support', number: '+442079460000' },
  ];
  const people = [person('Ada', '100'), person('Bob', null)];

  it('names the person whose extension it is, or the other group whose number it is', () => {
    expect(groupNumberClash('grp-new', '100', groups, people)).toBe(
      '100 is already the extension of Ada',
    );
    expect(groupNumberClash('grp-new', ' 2 00', groups, people)).toBe(
      '200 is already the number of Sales',
    );
    expect(groupNumberClash('grp-new', '+44 20 7946 0000', groups, people)).toBe(
      '+442079460000 is already the number of Support',
    );
  });

  it('accepts a free number, and a group keeping its own', () => {
    expect(groupNumberClash('grp-new', '201', groups, people)).toBeNull();
    expect(groupNumberClash('grp-a', '200', groups, people)).toBeNull();
    expect(groupNumberClash('grp-new', '', groups, people)).toBeNull();
  });
});
