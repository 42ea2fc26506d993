/**
 * The rules of the fields people give about themselves beyond their shape (the route's body schema
 * checks that): a display name and an email address, which is also the identity.
 */
import { invalidField } from './errors';

// Control characters (C0, DEL, C1) plus line and paragraph separators and bidi overrides, which
// would let a display name rewrite the text around it.
// eslint-disable-next-line no-control-regex
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Removes the characters a display name may not contain (for names from Google profiles). */
export function stripUnsafeText(text: string): string {
  return text.replace(UNSAFE_TEXT, '');
}

/** A person's display name: trimmed, 1..80 characters, no control characters. */
export function parseName(raw: string): string {
  const name = raw.trim().normalize('NFC');
  if (stripUnsafeText(name) !== name)
    throw invalidField('Name must not contain control characters');
  const length = [...name].length;
  if (length < 1) throw invalidField('Name must not be empty');
  if (length > 80) throw invalidField('Name must be at most 80 characters');
  return name;
}

// Local part: the dot-atom of RFC 5322 (no quoted forms). Domain: dot-separated labels of
// letters, digits and inner hyphens, at least two of them, the last alphabetic or an IDN.
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** An email address, trimmed and lowercased; it doubles as the user's identity. */
export function parseEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length === 0) throw invalidField('Email must not be empty');
  if (email.length > 254) throw invalidField('Email must be at most 254 characters');
  const local = email.slice(0, email.lastIndexOf('@'));
  if (!EMAIL.test(email) || local.length > 64) {
    throw invalidField('Email must be a valid address like name@example.com');
  }
  return email;
}
