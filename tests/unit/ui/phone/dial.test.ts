import { describe, expect, it } from 'vitest';
import {
  dialEntries,
  resolveDial,
  suggest,
  wordsOf,
  type Dialable,
  type DialableGroup,
} from '../../../../src/ui/phone/dial';
import type { Contact } from '../../../../src/contracts/records/contact';

const people: Dialable[] = [
  {
    identity: 'ada@example.com',
    name: 'Ada Admin',
    email: 'ada@example.com',
    extension: '100',
    presence: 'available',
  },
  {
    identity: 'ben@example.com',
    name: 'Ben Agent',
    email: 'ben@example.com',
    extension: '101',
    presence: 'away',
  },
  { identity: 'cy@example.com', name: 'Cy', email: 'cy@example.com', extension: null },
  {
    identity: 'bea@example.com',
    name: 'Béatrice Durand',
    email: 'bea@example.com',
    extension: '102',
    presence: 'onCall',
  },
];
const groups: DialableGroup[] = [{ id: 'grp-sales', name: 'Sales', number: '300' }];
const contact = (name: string, company: string, phones: Contact['phones']): Contact => ({
  name,
  company,
  phones,
  email: '',
  note: '',
});
const contacts: Contact[] = [
  contact('Acme Ltd', 'Acme', [
    { label: 'office', number: '+442079460958' },
    { label: 'mobile', number: '+447911123456' },
  ]),
  contact('Solo', 'Bento Box', [{ label: '', number: '+14155550100' }]),
];
const entries = dialEntries(people, groups, contacts, 'GB');
const names = (typed: string) => suggest(entries, typed).map((e) => `${e.name} (${e.detail})`);

describe('the dial box suggestions', () => {
  it('match the start of any word of a name, company, label or email, in any case and accent', () => {
    expect(names('Ben')).toEqual(['Ben Agent (ext. 101)', 'Solo (+1 415 555 0100)']);
    expect(names('agent')).toEqual(['Ben Agent (ext. 101)']);
    expect(names('gent')).toEqual([]);
    expect(names('bea')).toEqual(['Béatrice Durand (ext. 102)']);
    expect(names('ada adm')).toEqual(['Ada Admin (ext. 100)']);
    expect(names('acme mob')).toEqual(['Acme Ltd (mobile · 07911 123456)']);
    expect(names('sal')).toEqual(['Sales (Group · 300)']);
  });

  it('match the start of an extension or a number, as stored or as dialled at home', () => {
    expect(names('10')).toEqual([
      'Ada Admin (ext. 100)',
      'Béatrice Durand (ext. 102)',
      'Ben Agent (ext. 101)',
    ]);
    expect(names('020 79')).toEqual(['Acme Ltd (office · 020 7946 0958)']);
    expect(names('+44 20')).toEqual(['Acme Ltd (office · 020 7946 0958)']);
    expect(names('1415')).toEqual(['Solo (+1 415 555 0100)']);
    expect(names('30')).toEqual(['Sales (Group · 300)']);
    expect(names('  ')).toEqual([]);
  });

  it('note Away and On a call beside a colleague, nothing when available', () => {
    const note = (name: string) => entries.find((e) => e.name === name)?.note;
    expect(note('Ben Agent')).toBe('Away');
    expect(note('Béatrice Durand')).toBe('On a call');
    expect(note('Ada Admin')).toBeNull();
    expect(note('Cy')).toBeNull();
  });

  it('split words at punctuation and drop accents', () => {
    expect(wordsOf("  Zoë O'Brien-Smith ")).toEqual(['zoe', 'o', 'brien', 'smith']);
  });
});

describe('what the dial box calls', () => {
  const call = (to: string, displayName: string | null) => ({ kind: 'call', to, displayName });

  it('calls the one entry a name matches ("Ben" is Ben Agent)', () => {
    expect(resolveDial('Ben', entries.slice(0, 4), 'GB')).toEqual(
      call('client:ben@example.com', 'Ben Agent'),
    );
    expect(resolveDial('beatrice', entries, 'GB')).toEqual(
      call('client:bea@example.com', 'Béatrice Durand'),
    );
  });

  it('prefers an exact name, email, identity, extension or number over prefix matches', () => {
    expect(resolveDial('cy', entries, 'GB')).toEqual(call('client:cy@example.com', 'Cy'));
    expect(resolveDial('BEN@example.com', entries, 'GB')).toEqual(
      call('client:ben@example.com', 'Ben Agent'),
    );
    expect(resolveDial('client:ada@example.com', entries, 'GB')).toEqual(
      call('client:ada@example.com', 'Ada Admin'),
    );
    expect(resolveDial(' 1-01 ', entries, 'GB')).toEqual(
      call('client:ben@example.com', 'Ben Agent'),
    );
    expect(resolveDial('300', entries, 'GB')).toEqual(call('300', 'Sales'));
    expect(resolveDial('020 7946 0958', entries, 'GB')).toEqual(call('+442079460958', 'Acme Ltd'));
  });

  it('says who matches when several do, and asks for more', () => {
    expect(resolveDial('Ben', entries, 'GB')).toEqual({
      kind: 'problem',
      message:
        '2 match "Ben": Ben Agent and Solo. Pick one from the list, or type more of the name.',
    });
    expect(resolveDial('acme', entries, 'GB')).toEqual({
      kind: 'problem',
      message: 'Acme Ltd has 2 numbers. Pick one from the list.',
    });
  });

  it('says so when nobody matches a name or an email', () => {
    expect(resolveDial('Zed', entries, 'GB')).toEqual({
      kind: 'problem',
      message:
        'Nobody on the team or in the contacts is called "Zed". Check the spelling, or type a number or an extension.',
    });
    expect(resolveDial('zed@example.com', entries, 'GB')).toMatchObject({
      message: expect.stringMatching(/^Nobody on the team or in the contacts is with that email/),
    });
    expect(resolveDial('  ', entries, 'GB')).toEqual({
      kind: 'problem',
      message: 'Type a name, an extension or a number to call.',
    });
  });

  it('calls a number nobody has in E.164, an unknown extension as typed, and refuses a bad number', () => {
    expect(resolveDial('020 7946 0000', entries, 'GB')).toEqual(call('+442079460000', null));
    expect(resolveDial('(415) 555-0199', entries, 'US')).toEqual(call('+14155550199', null));
    expect(resolveDial('199', entries, 'GB')).toEqual(call('199', null));
    expect(resolveDial('12345678', entries, 'GB')).toMatchObject({
      kind: 'problem',
      message: expect.stringContaining('is not a valid phone number'),
    });
    expect(resolveDial('020 7946 0000', entries, null)).toMatchObject({
      kind: 'problem',
      message: expect.stringContaining('Start with + and the country code'),
    });
    expect(resolveDial('park:CA123', entries, 'GB')).toEqual(call('park:CA123', null));
  });
});
