import { describe, expect, it } from 'vitest';
import {
  emptyForm,
  formFromContact,
  validateContact as validateIn,
  type ContactForm,
} from '../../../../../src/ui/routes/contacts/validation';

/** In a team whose default country is the United Kingdom. */
const validateContact = (form: ContactForm) => validateIn(form, 'GB');

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

  it('reads numbers in the team country or with + and a country code, and stores them in E.164', () => {
    const phones = (number: string, country: 'GB' | 'US' | null = 'GB') => {
      const result = validateIn({ ...valid(), phones: [{ label: 'Office', number }] }, country);
      return result.ok ? result.contact.phones[0]!.number : result.errors.phoneNumbers?.[0];
    };
    expect(phones('020 7946 0958')).toBe('+442079460958');
    expect(phones('+1 415 555 0100')).toBe('+14155550100');
    expect(phones('(415) 555-0100', 'US')).toBe('+14155550100');
    expect(phones('204')).toBe('204');
    expect(phones('020 7946 0958', null)).toMatch(/^Start with \+ and the country code/);
    expect(phones('12345678')).toMatch(/is not a valid phone number in the team's country/);
    expect(phones('+1 415 CALL NOW')).toMatch(/digits only/);
  });

  it('saves nothing while any number does not read', () => {
    const result = validateContact({
      ...valid(),
      phones: [
        { label: 'Office', number: '020 7946 0958' },
        { label: 'Bad', number: '0207 946' },
      ],
    });
    expect(result).toMatchObject({
      ok: false,
      errors: { phoneNumbers: { 1: expect.any(String) } },
    });
  });

  it('opens a stored contact with its numbers as dialled in the team country', () => {
    const form = formFromContact(
      {
        name: 'Acme',
        company: '',
        phones: [
          { label: 'Office', number: '+442079460958' },
          { label: 'US', number: '+14155550100' },
          { label: 'Desk', number: '204' },
        ],
        email: '',
        note: '',
      },
      'GB',
    );
    expect(form.phones.map((p) => p.number)).toEqual(['020 7946 0958', '+1 415 555 0100', '204']);
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
