/**
 * The contact form: what is typed, and each field's problem in words beside it, before anything is
 * saved. The limits are the contract's (src/contracts/records/contact.ts), which the save checks
 * again; numbers are read in the team's country (src/domain/phone-number.ts) and stored in E.164.
 */
import { CONTACT_LIMITS, EMAIL, type Contact } from '../../../contracts/records/contact';
import { formatNumber, parseNumber, type CountryCode } from '../../../domain/phone-number';

export const LIMITS = CONTACT_LIMITS;

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

/** The form for a stored contact, its numbers written as people read them in `country`. */
export function formFromContact(contact: Contact, country: CountryCode | null): ContactForm {
  return {
    name: contact.name,
    company: contact.company,
    phones: contact.phones.length
      ? contact.phones.map((p) => ({ label: p.label, number: formatNumber(p.number, country) }))
      : [{ label: 'Mobile', number: '' }],
    email: contact.email,
    note: contact.note,
  };
}

/**
 * Either the contact to save (trimmed, numbers in E.164, read in `country`) or the errors to show
 * beside fields; nothing is saved while any number does not read.
 */
export function validateContact(
  form: ContactForm,
  country: CountryCode | null,
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
  const stored = new Map<number, string>();
  for (const { phone, index } of rows) {
    const parsed = parseNumber(phone.number, country);
    if (parsed.ok) stored.set(index, parsed.number);
    else phoneNumbers[index] = parsed.reason;
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
      phones: rows.map(({ phone, index }) => ({
        label: phone.label.trim(),
        number: stored.get(index) ?? '',
      })),
      email,
      note,
    },
  };
}

/**
 * A save the contract refused (`field` a dot path such as "phones.1.number"), shown beside the
 * field: the form's own checks let through something the contract does not.
 */
export function errorsFromRefusal(field: string, reason: string): ContactErrors {
  const top = field.split('.')[0];
  if (top === 'name' || top === 'company' || top === 'email' || top === 'note')
    return { [top]: reason };
  return { phones: field.startsWith('phones') ? reason : `${field || 'The contact'}: ${reason}` };
}
