import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MapItem } from '../../../../../src/machines/syncPorts';
import { contactFromData } from '../../../../../src/ui/routes/contacts/contact';
import {
  digitsOf,
  foldText,
  foldedCopy,
  indexContacts,
  parseQuery,
  searchContacts,
} from '../../../../../src/ui/routes/contacts/search';

let eventId = 0;
function item(key: string, data: Record<string, unknown>): MapItem {
  eventId += 1;
  return {
    key,
    data,
    revision: String(eventId),
    lastEventId: eventId,
    dateUpdated: 0,
    dateExpires: null,
  };
}

const people = [
  item('a', {
    name: 'Zoë Ångström',
    company: 'Crème Brûlée Ltd',
    phones: [{ label: 'Work', number: '+442079460958' }],
  }),
  item('b', {
    name: 'Ada Lovelace',
    company: 'Analytical Engines',
    phones: [
      { label: 'Ext', number: '204' },
      { label: 'Mobile', number: '+14155550100' },
    ],
  }),
  item('c', {
    name: 'grace hopper',
    company: 'US Navy',
    phones: [{ label: 'Mobile', number: '+12025550199' }],
  }),
];

describe('contact search', () => {
  const index = indexContacts(people);
  const nameOf = (i: MapItem) => contactFromData(i.data).name;
  const names = (raw: string) => searchContacts(index, raw).map(nameOf);

  it('folds case and diacritics and collapses spaces', () => {
    expect(foldText('  Zoë   ÅNGSTRÖM ')).toBe('zoe angstrom');
    expect(foldText('a\u0001b\u0002\tc')).toBe('a b c');
  });

  it('lists contacts alphabetically by name whatever their case', () => {
    expect(index.items.map(nameOf)).toEqual(['Ada Lovelace', 'grace hopper', 'Zoë Ångström']);
  });

  it('orders a shorter name first, then equal names by company and key', () => {
    const same = [
      item('z2', { name: 'Ann', company: 'B' }),
      item('z1', { name: 'Ann', company: 'B' }),
      item('z0', { name: 'Anna', company: 'A' }),
      item('z3', { name: 'ann', company: 'A' }),
      item('z4', { name: 'Änn', company: 'Ä' }),
    ];
    expect(indexContacts(same).items.map((i) => i.key)).toEqual(['z3', 'z4', 'z1', 'z2', 'z0']);
  });

  it('finds by name or company, insensitive to case and accents, all words required', () => {
    expect(names('zoe')).toEqual(['Zoë Ångström']);
    expect(names('ANGSTRÖM')).toEqual(['Zoë Ångström']);
    expect(names('creme brulee')).toEqual(['Zoë Ångström']);
    expect(names('navy grace')).toEqual(['grace hopper']);
    expect(names('navy ada')).toEqual([]);
    // Digits in a text query must be in the name or company, not in a number.
    expect(names('ada 204')).toEqual([]);
    expect(names('lovelace ada')).toEqual(['Ada Lovelace']);
  });

  it('finds by number whatever the formatting, without matching across two numbers', () => {
    expect(names('+44 20 7946')).toEqual(['Zoë Ångström']);
    expect(names('(415) 555-01')).toEqual(['Ada Lovelace']);
    expect(names('204')).toEqual(['Ada Lovelace']);
    // "204" + "1415" would only match if the two numbers were joined.
    expect(names('2041415')).toEqual([]);
  });

  it('treats a query with letters as text, and an empty one as everything (same array)', () => {
    expect(parseQuery('ext 204')).toEqual({ words: ['ext', '204'], digits: '' });
    expect(searchContacts(index, '   ')).toBe(index.items);
  });

  it('keeps a folded copy only of contacts whose text is not plain ASCII', () => {
    expect(foldedCopy(people[1]!)).toBeNull();
    expect(foldedCopy(people[0]!)).toBe('zoe angstrom\u0001creme brulee ltd');
    expect(foldedCopy(item('s', { name: 'Two  spaces' }))).toBe('two spaces\u0001');
    expect(foldedCopy(item('t', { name: ' Lead' }))).toBe('lead\u0001');
  });

  it('re-indexes a changed contact (a new map item object) and keeps the others', () => {
    const changed = item('b', { ...people[1]!.data, company: 'Babbage & Co' });
    const next = indexContacts([people[0]!, changed, people[2]!]);
    expect(searchContacts(next, 'babbage').map(nameOf)).toEqual(['Ada Lovelace']);
    expect(searchContacts(next, 'analytical')).toEqual([]);
    expect(searchContacts(index, 'analytical').map(nameOf)).toEqual(['Ada Lovelace']);
  });

  it('reads malformed items as empty fields instead of failing', () => {
    const odd = item('x', { name: 42, phones: 'nope', company: null });
    expect(contactFromData(odd.data)).toEqual({
      name: '',
      company: '',
      phones: [],
      email: '',
      note: '',
    });
    const y = item('y', { name: 'Y', phones: [null, { number: 7 }, { number: '201' }] });
    expect(contactFromData(y.data).phones).toEqual([{ label: '', number: '201' }]);
    const found = indexContacts([odd, y]);
    expect(searchContacts(found, '201')).toEqual([y]);
    expect(found.items).toEqual([odd, y]);
  });

  it('matches and orders exactly as folding every contact would (property)', () => {
    const text = fc.string({
      unit: fc.constantFrom(
        'A',
        'a',
        'n',
        'N',
        'é',
        'E',
        'e',
        '\u0301',
        ' ',
        '  ',
        '\t',
        '\u0001',
        '1',
        '-',
        'ß',
      ),
      maxLength: 6,
    });
    const number = fc.string({
      unit: fc.constantFrom('0', '1', '2', '+', ' ', '-', '(', ')'),
      maxLength: 8,
    });
    const data = fc.record({
      name: fc.oneof(text, fc.constant(7)),
      company: fc.oneof(text, fc.constant(null)),
      phones: fc.oneof(
        fc.array(fc.oneof(fc.record({ label: fc.constant('W'), number }), fc.constant(null)), {
          maxLength: 3,
        }),
        fc.constant('nope'),
      ),
    });
    const query = fc.oneof(text, number);
    const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
    const folded = (i: MapItem) => {
      const c = contactFromData(i.data);
      return { name: foldText(c.name), company: foldText(c.company), phones: c.phones };
    };
    fc.assert(
      fc.property(
        fc.array(data, { maxLength: 12 }),
        fc.array(query, { maxLength: 4 }),
        (rows, queries) => {
          const items = rows.map((d, i) => item(`k${i}`, d));
          const expected = [...items].sort((a, b) => {
            const x = folded(a);
            const y = folded(b);
            return cmp(x.name, y.name) || cmp(x.company, y.company) || cmp(a.key, b.key);
          });
          const built = indexContacts(items);
          expect(built.items).toEqual(expected);
          for (const raw of queries) {
            const q = parseQuery(raw);
            const want = expected.filter((i) => {
              const f = folded(i);
              if (q.digits !== '')
                return f.phones.some((p) => digitsOf(p.number).includes(q.digits));
              return q.words.every((w) => f.name.includes(w) || f.company.includes(w));
            });
            expect(searchContacts(built, raw)).toEqual(want);
          }
        },
      ),
      { seed: 4, numRuns: 300 },
    );
  });

  // How fast is `npm run bench contacts`' (keystroke to results p95 under 50 ms with 10,000
  // contacts): a timed assertion here failed on a busy machine (588 ms for the test).
  it('finds the one contact a precise query names among 10,000', () => {
    const many = indexContacts(
      Array.from({ length: 10_000 }, (_, i) =>
        item(`k${i}`, {
          name: `Person ${i}`,
          company: i % 2 ? 'Globex' : 'Initech',
          phones: [{ label: 'W', number: `+1555${i}` }],
        }),
      ),
    );
    expect(searchContacts(many, 'person 9999').map((c) => c.key)).toEqual(['k9999']);
    expect(searchContacts(many, 'globex')).toHaveLength(5_000);
  });
});
