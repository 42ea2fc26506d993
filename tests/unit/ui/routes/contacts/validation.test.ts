import { describe, expect, it } from 'vitest';
import {
  checkNumber,
  emptyForm,
  normalizeNumber,
  validateContact,
  type ContactForm,
} from '../../../../../src/ui/routes/contacts/validation';

const valid = (): ContactForm => ({
  name: ' Ada Lovelace ',
  company: 'Analytical Engines',
  phones: [{ label: 'Mobile', number: '+44 (20) 7946-0958' }],
  email: 'ada@example.com',
  note: 'Prefers mornings',
});

describe('contact form validation', () => {
  it('accepts a good contact, trimmed, with numbers normalised', () => {
    const result = validateContact(valid());
    expect(result).toEqual({
      ok: true,
      contact: {
        name: 'Ada Lovelace',
        company: 'Analytical Engines',
        phones: [{ label: 'Mobile', number: '+442079460958' }],
        email: 'ada@example.com',
        note: 'Prefers mornings',
      },
    });
  });

  it('requires a name of at most 80 characters', () => {
    expect(validateContact({ ...valid(), name: '   ' })).toMatchObject({
      ok: false,
      errors: { name: 'Enter a name.' },
    });
    expect(validateContact({ ...valid(), name: 'x'.repeat(80) }).ok).toBe(true);
    expect(validateContact({ ...valid(), name: 'x'.repeat(81) })).toMatchObject({
      ok: false,
      errors: { name: 'Use at most 80 characters (now 81).' },
    });
  });

  it('requires at least one phone, ignoring blank extra rows', () => {
    expect(validateContact({ ...valid(), phones: [{ label: '', number: '' }] })).toMatchObject({
      ok: false,
      errors: { phones: 'Add at least one phone number.' },
    });
    const extra = validateContact({
      ...valid(),
      phones: [...valid().phones, { label: '', number: ' ' }],
    });
    expect(extra.ok && extra.contact.phones).toHaveLength(1);
    expect(validateContact(emptyForm())).toMatchObject({ ok: false });
  });

  it('accepts E.164-like numbers and 2-6 digit extensions, and says what is wrong otherwise', () => {
    expect(checkNumber('+1 415 555 0100')).toBeNull();
    expect(checkNumber('204')).toBeNull();
    expect(checkNumber('123456')).toBeNull();
    expect(checkNumber('1234567')).toMatch(/Start with \+ and the country code/);
    expect(checkNumber('7')).toMatch(/extension of 2 to 6 digits/);
    expect(checkNumber('+0 20 7946')).toMatch(/never starts with 0/);
    expect(checkNumber('+12345')).toMatch(/7 to 15 digits/);
    expect(checkNumber('+1234567890123456')).toMatch(/7 to 15 digits/);
    expect(checkNumber('+1 415 CALL NOW')).toMatch(/digits only/);
    expect(checkNumber('+1+4155550100')).toMatch(/Only one \+/);
    expect(normalizeNumber(' +1 (415) 555.0100 ')).toBe('+14155550100');
  });

  it('reports each bad phone row by its position', () => {
    const result = validateContact({
      ...valid(),
      phones: [
        { label: 'Ok', number: '+14155550100' },
        { label: 'Bad', number: 'abc' },
        { label: 'x'.repeat(31), number: '204' },
      ],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors.phoneNumbers ?? {})).toEqual(['1']);
    expect(Object.keys(result.errors.phoneLabels ?? {})).toEqual(['2']);
  });

  it('allows an empty email but not a malformed one', () => {
    expect(validateContact({ ...valid(), email: '' }).ok).toBe(true);
    for (const email of ['ada', 'ada@', 'ada@example', 'a b@example.com']) {
      expect(validateContact({ ...valid(), email })).toMatchObject({
        ok: false,
        errors: { email: expect.stringContaining('name@example.com') },
      });
    }
  });

  it('limits the note to 500 characters', () => {
    expect(validateContact({ ...valid(), note: 'n'.repeat(500) }).ok).toBe(true);
    expect(validateContact({ ...valid(), note: 'n'.repeat(501) })).toMatchObject({
      ok: false,
      errors: { note: 'Use at most 500 characters (now 501).' },
    });
  });

  it('reports every problem at once', () => {
    const result = validateContact({
      name: '',
      company: 'c'.repeat(81),
      phones: [{ label: '', number: 'x' }],
      email: 'no',
      note: 'n'.repeat(501),
    });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(Object.keys(result.errors).sort()).toEqual([
        'company',
        'email',
        'name',
        'note',
        'phoneNumbers',
      ]);
  });
});
