/** The contact form's rules (the product's own; the seed leaves form validation open). */
import type { Contact } from './contact';

export const LIMITS = {
  name: 80,
  company: 80,
  label: 30,
  email: 254,
  note: 500,
  phones: 10,
} as const;

export interface ContactForm {
  name: string;
  company: string;
  phones: Array<{ label: string; number: string }>;
  email: string;
  note: string;
}

export interface ContactErrors {
  name?: string;
  company?: string;
  /** About the phone list as a whole ("add at least one"). */
  phones?: string;
  /** Per phone row, by position. */
  phoneNumbers?: Record<number, string>;
  phoneLabels?: Record<number, string>;
  email?: string;
  note?: string;
}

export const emptyForm = (): ContactForm => ({
  name: '',
  company: '',
  phones: [{ label: 'Mobile', number: '' }],
  email: '',
  note: '',
});

export function formFromContact(contact: Contact): ContactForm {
  return {
    name: contact.name,
    company: contact.company,
    phones: contact.phones.length
      ? contact.phones.map((p) => ({ ...p }))
      : [{ label: 'Mobile', number: '' }],
    email: contact.email,
    note: contact.note,
  };
}

/**
 * A phone number as stored: "+" and digits for an international (E.164) number, digits only for
 * an extension. Spaces, dashes, dots, slashes and parentheses are formatting and are dropped.
 */
export function normalizeNumber(raw: string): string {
  return raw.trim().replace(/[\s\-.()/]/g, '');
}

/** Null when the number is fine, else what to fix. */
export function checkNumber(raw: string): string | null {
  const number = normalizeNumber(raw);
  if (number === '') return 'Enter a number, or remove this row.';
  if (/[^\d+]/.test(number)) {
    return 'Use digits only, with an optional + at the start (spaces and dashes are fine).';
  }
  if (number.startsWith('+')) {
    const digits = number.slice(1);
    if (digits.includes('+')) return 'Only one + is allowed, at the start.';
    if (digits.startsWith('0'))
      return 'After the +, start with the country code (it never starts with 0).';
    if (digits.length < 7 || digits.length > 15) {
      return 'An international number has 7 to 15 digits after the +, e.g. +44 20 7946 0958.';
    }
    return null;
  }
  if (number.length >= 2 && number.length <= 6) return null;
  return 'Start with + and the country code (e.g. +1 415 555 0100), or enter an extension of 2 to 6 digits.';
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Either the contact to save (trimmed, numbers normalised) or the errors to show beside fields. */
export function validateContact(
  form: ContactForm,
): { ok: true; contact: Contact } | { ok: false; errors: ContactErrors } {
  const errors: ContactErrors = {};
  const name = form.name.trim();
  const company = form.company.trim();
  const email = form.email.trim();
  const note = form.note.trim();

  if (name === '') errors.name = 'Enter a name.';
  else if (name.length > LIMITS.name)
    errors.name = `Use at most ${LIMITS.name} characters (now ${name.length}).`;
  if (company.length > LIMITS.company) {
    errors.company = `Use at most ${LIMITS.company} characters (now ${company.length}).`;
  }

  // A row left completely blank is ignored, unless it is the only one.
  const rows = form.phones
    .map((phone, index) => ({ phone, index }))
    .filter(({ phone }) => phone.number.trim() !== '' || phone.label.trim() !== '');
  if (rows.length === 0) errors.phones = 'Add at least one phone number.';
  if (form.phones.length > LIMITS.phones) errors.phones = `Add at most ${LIMITS.phones} numbers.`;
  const phoneNumbers: Record<number, string> = {};
  const phoneLabels: Record<number, string> = {};
  for (const { phone, index } of rows) {
    const problem = checkNumber(phone.number);
    if (problem) phoneNumbers[index] = problem;
    if (phone.label.trim().length > LIMITS.label) {
      phoneLabels[index] = `Use at most ${LIMITS.label} characters.`;
    }
  }
  if (Object.keys(phoneNumbers).length) errors.phoneNumbers = phoneNumbers;
  if (Object.keys(phoneLabels).length) errors.phoneLabels = phoneLabels;

  if (email !== '' && (email.length > LIMITS.email || !EMAIL.test(email))) {
    errors.email = 'Enter an email address like name@example.com, or leave it empty.';
  }
  if (note.length > LIMITS.note)
    errors.note = `Use at most ${LIMITS.note} characters (now ${note.length}).`;

  if (Object.keys(errors).length) return { ok: false, errors };
  return {
    ok: true,
    contact: {
      name,
      company,
      phones: rows.map(({ phone }) => ({
        label: phone.label.trim(),
        number: normalizeNumber(phone.number),
      })),
      email,
      note,
    },
  };
}
