/**
 * A contact in the `contacts` map (key = contact id): a name, a company, up to ten phone numbers,
 * an email and a note. Written by anyone on the team.
 */
import { randomHex } from '../random';
import * as v from 'valibot';
import { defineRecord } from '../record';

export const CONTACT_LIMITS = {
  name: 80,
  company: 80,
  label: 30,
  email: 254,
  note: 500,
  phones: 10,
} as const;

/**
 * A phone number as stored: "+" and digits for an international (E.164) number, digits only for
 * an extension. Spaces, dashes, dots, slashes and parentheses are formatting and are dropped.
 */
export function normalizeNumber(raw: string): string {
  return raw.trim().replace(/[\s\-.()/]/g, '');
}

/** Null when the number (as typed) is fine, else what to fix. */
export function numberProblem(raw: string): string | null {
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

/** An email address as the form and the contract accept it. */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const atMost = (limit: number) =>
  v.maxLength<string, number, string>(limit, `Use at most ${limit} characters.`);

export const PhoneSchema = v.object({
  label: v.optional(v.pipe(v.string(), atMost(CONTACT_LIMITS.label)), ''),
  number: v.pipe(
    v.string(),
    v.nonEmpty('Enter a number, or remove this row.'),
    v.check(
      (n) => numberProblem(n) === null && normalizeNumber(n) === n,
      (issue) =>
        numberProblem(issue.input) ?? 'Store the number without spaces or dashes (+442079460958).',
    ),
  ),
});

export const ContactSchema = v.object({
  name: v.pipe(
    v.string(),
    v.check((s) => s.trim() !== '', 'Enter a name.'),
    atMost(CONTACT_LIMITS.name),
  ),
  company: v.optional(v.pipe(v.string(), atMost(CONTACT_LIMITS.company)), ''),
  phones: v.pipe(
    v.array(PhoneSchema),
    v.minLength(1, 'Add at least one phone number.'),
    v.maxLength(CONTACT_LIMITS.phones, `Add at most ${CONTACT_LIMITS.phones} numbers.`),
  ),
  email: v.optional(
    v.pipe(
      v.string(),
      v.check(
        (e) => e === '' || (e.length <= CONTACT_LIMITS.email && EMAIL.test(e)),
        'Enter an email address like name@example.com, or leave it empty.',
      ),
    ),
    '',
  ),
  note: v.optional(v.pipe(v.string(), atMost(CONTACT_LIMITS.note)), ''),
});

export type Phone = v.InferOutput<typeof PhoneSchema>;
export type Contact = v.InferOutput<typeof ContactSchema>;

export const contactRecord = defineRecord('contact', ContactSchema, {
  name: '',
  company: '',
  phones: [],
  email: '',
  note: '',
});

/** A new contact id: random, URL-safe, and not dependent on `crypto.randomUUID` (plain-http LANs). */
export function newContactId(): string {
  return `c-${randomHex(12)}`;
}
