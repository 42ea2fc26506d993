import { describe, expect, it } from 'vitest';
import type { MapItem } from '../../../src/sync/ports';
import {
  foldText,
  indexContact,
  indexContacts,
  parseQuery,
  searchContacts,
} from '../../../src/ui/routes/contacts/search';

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
  const entries = indexContacts(people);
  const names = (raw: string) => searchContacts(entries, raw).map((e) => e.contact.name);

  it('folds case and diacritics and collapses spaces', () => {
    expect(foldText('  Zoë   ÅNGSTRÖM ')).toBe('zoe angstrom');
  });

  it('lists contacts alphabetically by name whatever their case', () => {
    expect(entries.map((e) => e.contact.name)).toEqual([
      'Ada Lovelace',
      'grace hopper',
      'Zoë Ångström',
    ]);
  });

  it('finds by name or company, insensitive to case and accents, all words required', () => {
    expect(names('zoe')).toEqual(['Zoë Ångström']);
    expect(names('ANGSTRÖM')).toEqual(['Zoë Ångström']);
    expect(names('creme brulee')).toEqual(['Zoë Ångström']);
    expect(names('navy grace')).toEqual(['grace hopper']);
    expect(names('navy ada')).toEqual([]);
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
    expect(searchContacts(entries, '   ')).toBe(entries);
  });

  it('indexes each map item once: an unchanged item keeps its entry, a changed one gets a new one', () => {
    const first = indexContact(people[1]!);
    expect(indexContact(people[1]!)).toBe(first);
    const changed = item('b', { ...people[1]!.data, company: 'Babbage & Co' });
    expect(indexContact(changed)).not.toBe(first);
    expect(indexContact(changed).text).toContain('babbage');
  });

  it('reads malformed items as empty fields instead of failing', () => {
    const odd = indexContact(item('x', { name: 42, phones: 'nope', company: null }));
    expect(odd.contact).toEqual({ name: '', company: '', phones: [], email: '', note: '' });
    expect(
      indexContact(item('y', { name: 'Y', phones: [null, { number: 7 }, { number: '201' }] }))
        .contact.phones,
    ).toEqual([{ label: '', number: '201' }]);
  });

  it('searches 10,000 contacts in a few milliseconds', () => {
    const many = indexContacts(
      Array.from({ length: 10_000 }, (_, i) =>
        item(`k${i}`, {
          name: `Person ${i}`,
          company: i % 2 ? 'Globex' : 'Initech',
          phones: [{ label: 'W', number: `+1555${i}` }],
        }),
      ),
    );
    const started = performance.now();
    for (const query of ['p', 'pe', 'per', 'pers', 'person 99', 'globex', '555 12'])
      searchContacts(many, query);
    expect((performance.now() - started) / 7).toBeLessThan(25);
    expect(searchContacts(many, 'person 9999')).toHaveLength(1);
  });
});
