import { describe, expect, it } from 'vitest';
import {
  matches,
  parseQuery,
  QuerySyntaxError,
} from '../../../../../server/twins/sync/query-language';

const items = [
  { key: 'a1', data: { status: 'ready', skills: ['en', 'fr'], load: 1, team: { name: 'north' } } },
  { key: 'a2', data: { status: 'busy', skills: ['de'], load: 3, team: { name: 'south' } } },
  { key: 'a3', data: { status: 'ready', skills: [], load: 5, name: 'Zoë "Z"' } },
];
const run = (q: string): string[] =>
  items.filter((i) => matches(parseQuery(q), i)).map((i) => i.key);

describe('Insights query language', () => {
  it.each([
    ['key == "a2"', ['a2']],
    ['data.status == "ready"', ['a1', 'a3']],
    ["data.status != 'ready'", ['a2']],
    ['data.load > 1 AND data.load <= 5', ['a2', 'a3']],
    ['data.load < 3 or key == "a3"', ['a1', 'a3']],
    ['NOT (data.status == "ready")', ['a2']],
    ['data.team.name == "north"', ['a1']],
    ['data.status in ["busy", "away"]', ['a2']],
    ['data.status not in ["busy"]', ['a1', 'a3']],
    ['data.skills contains "fr"', ['a1']],
    ['data.name contains "\\"Z\\""', ['a3']],
    ['data.missing == null', []],
    ['data.load >= 3 and (data.status == "busy" or data.status == "ready")', ['a2', 'a3']],
    ['data.load > "3"', []],
  ])('%s', (q, expected) => {
    expect(run(q)).toEqual(expected);
  });

  it.each([
    [''],
    ['   '],
    ['key =='],
    ['key = "a"'],
    ['status == "ready"'],
    ['data == 1'],
    ['data.status == ready'],
    ['(key == "a"'],
    ['key == "a")'],
    ['key == "a" and'],
    ['data.x in []'],
    ['"unterminated'],
    ['key == "a" ; drop'],
    ['('.repeat(40) + 'key == "a"' + ')'.repeat(40)],
  ])('refuses %j', (q) => {
    expect(() => parseQuery(q)).toThrow(QuerySyntaxError);
  });

  it('refuses what is not a string', () => {
    for (const q of [null, undefined, 5, {}, ['key == "a"']])
      expect(() => parseQuery(q)).toThrow(QuerySyntaxError);
  });
});
