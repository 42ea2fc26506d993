import { describe, expect, it } from 'vitest';
import { contactNumbers, resolveDial, type Dialable } from '../../../../src/ui/phone/dial';

const people: Dialable[] = [
  { identity: 'bob@example.com', name: 'Bob Baker', email: 'bob@example.com', extension: '101' },
  { identity: 'cy@example.com', name: 'Cy', email: 'cy@example.com', extension: null },
];
const numbers = contactNumbers([
  {
    name: 'Acme Ltd',
    phones: [
      { label: 'office', number: '+44 20 7946 0000' },
      { label: '', number: '+44 7700 900123' },
    ],
  },
  { name: 'Nobody', phones: [] },
  { name: '  ', phones: [{ label: 'x', number: '+1' }] },
  { name: 'Solo', phones: [{ label: 'mobile', number: '+1 555 0100' }] },
]);

describe('dial box', () => {
  it('rings a colleague by their extension, typed with or without spaces and dashes', () => {
    const bob = { kind: 'person', to: 'client:bob@example.com', displayName: 'Bob Baker' };
    expect(resolveDial('101', people, numbers)).toEqual(bob);
    expect(resolveDial(' 1-01 ', people, numbers)).toEqual(bob);
    // An extension nobody has (or a group's number) is sent as typed: the voice service says why.
    expect(resolveDial('102', people, numbers)).toEqual({
      kind: 'typed',
      to: '102',
      displayName: null,
    });
  });

  it('offers each contact by name (first number) and, with several numbers, each one by label', () => {
    expect(numbers.map((n) => n.label)).toEqual([
      'Acme Ltd',
      'Acme Ltd · office',
      'Acme Ltd · number 2',
      'Solo',
    ]);
  });

  it('resolves colleagues first, then contact entries, then a number a contact has', () => {
    expect(resolveDial('bob baker', people, numbers)).toEqual({
      kind: 'person',
      to: 'client:bob@example.com',
      displayName: 'Bob Baker',
    });
    expect(resolveDial('acme ltd · number 2', people, numbers)).toEqual({
      kind: 'contact',
      to: '+44 7700 900123',
      displayName: 'Acme Ltd',
    });
    expect(resolveDial('Acme Ltd', people, numbers)).toMatchObject({ to: '+44 20 7946 0000' });
    expect(resolveDial('+15550100', people, numbers)).toEqual({
      kind: 'contact',
      to: '+15550100',
      displayName: 'Solo',
    });
  });

  it('sends anything else as typed, and refuses nothing typed', () => {
    expect(resolveDial('  ', people, numbers)).toEqual({ kind: 'empty' });
    expect(resolveDial('Zed', people, numbers)).toEqual({
      kind: 'typed',
      to: 'Zed',
      displayName: null,
    });
    expect(resolveDial('12', people, numbers)).toMatchObject({ kind: 'typed' });
  });
});
