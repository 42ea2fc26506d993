import { describe, expect, it } from 'vitest';
import {
  reaches,
  ruleFromData,
  ruleToData,
  validateRule,
} from '../../../../../src/domain/forwarding';
import type { Rule } from '../../../../../src/contracts/records/forwarding';

const groups = new Set(['a', 'b', 'c']);
const people = new Set(['tom@x.io']);
const rule = (target: Rule['target'], when: Rule['when'] = 'noAnswer', after = 20): Rule => ({
  when,
  after,
  target,
  order: 1,
});
/** a → b → c (each forwards to the next group). */
const chain: Record<string, string[]> = { a: ['b'], b: ['c'], c: [] };
const targetsOf = (g: string) => chain[g] ?? [];

describe('forwarding rules', () => {
  it('accepts a person, a group further down a chain, and an international number', () => {
    expect(
      validateRule('a', rule({ kind: 'user', identity: 'tom@x.io' }), groups, people, targetsOf),
    ).toEqual({});
    expect(
      validateRule('a', rule({ kind: 'group', groupId: 'c' }), groups, people, targetsOf),
    ).toEqual({});
    expect(
      validateRule(
        'a',
        rule({ kind: 'number', number: '+44 20 7946 0000' }, 'closed'),
        groups,
        people,
        targetsOf,
      ),
    ).toEqual({});
  });

  it('refuses forwarding a group to itself, directly or through a chain', () => {
    expect(
      validateRule('a', rule({ kind: 'group', groupId: 'a' }), groups, people, targetsOf).target,
    ).toBe('A group cannot forward to itself.');
    // c → a would close a → b → c → a.
    expect(
      validateRule('c', rule({ kind: 'group', groupId: 'a' }), groups, people, targetsOf).target,
    ).toMatch(/forwards back to this one/);
    expect(reaches('a', 'c', targetsOf)).toBe(true);
    expect(reaches('c', 'a', targetsOf)).toBe(false);
  });

  it('refuses unknown targets, bad numbers and delays', () => {
    expect(
      validateRule('a', rule({ kind: 'user', identity: 'gone@x.io' }), groups, people, targetsOf)
        .target,
    ).toBe('Choose someone on the team.');
    expect(
      validateRule('a', rule({ kind: 'group', groupId: 'zz' }), groups, people, targetsOf).target,
    ).toBe('Choose a ring group.');
    expect(
      validateRule('a', rule({ kind: 'number', number: '123' }), groups, people, targetsOf).target,
    ).toMatch(/international form/);
    expect(
      validateRule(
        'a',
        rule({ kind: 'user', identity: 'tom@x.io' }, 'noAnswer', 2),
        groups,
        people,
        targetsOf,
      ).after,
    ).toBe('Use a whole number of seconds from 5 to 300.');
  });

  it('round-trips through stored data and ignores malformed items', () => {
    const r = rule({ kind: 'number', number: '+44 20 7946 0000' }, 'busy');
    expect(ruleFromData(ruleToData(r))).toEqual({
      ...r,
      target: { kind: 'number', number: '+442079460000' },
    });
    expect(ruleFromData({ when: 'sometimes', target: { kind: 'user', identity: 'x' } })).toBeNull();
    expect(ruleFromData({ when: 'busy', target: { kind: 'fax' } })).toBeNull();
  });
});
