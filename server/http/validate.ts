import { badRequest } from './errors';

type FieldKind = 'string';

/**
 * Checks that a parsed JSON body is a plain object whose keys are exactly among `required` and
 * `optional`, each a string. Unknown fields are refused so a typo never silently does nothing.
 */
export function expectFields<R extends string, O extends string = never>(
  body: unknown,
  required: readonly R[],
  optional: readonly O[] = [],
): Record<R, string> & Partial<Record<O, string>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('Request body must be a JSON object');
  }
  const known = new Set<string>([...required, ...optional]);
  const record = body as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!known.has(key)) throw badRequest(`Unknown field: ${JSON.stringify(key).slice(0, 60)}`);
  }
  const kind: FieldKind = 'string';
  for (const key of required) {
    if (!Object.hasOwn(record, key)) throw badRequest(`Missing field: ${key}`);
  }
  for (const key of known) {
    if (Object.hasOwn(record, key) && typeof record[key] !== kind) {
      throw badRequest(`Field ${key} must be a ${kind}`);
    }
  }
  return record as Record<R, string> & Partial<Record<O, string>>;
}

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
  if (stripUnsafeText(name) !== name) throw badRequest('Name must not contain control characters');
  const length = [...name].length;
  if (length < 1) throw badRequest('Name must not be empty');
  if (length > 80) throw badRequest('Name must be at most 80 characters');
  return name;
}

// Local part: the dot-atom of RFC 5322 (no quoted forms). Domain: dot-separated labels of
// letters, digits and inner hyphens, at least two of them, the last alphabetic or an IDN.
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** An email address, trimmed and lowercased; it doubles as the user's identity. */
export function parseEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length === 0) throw badRequest('Email must not be empty');
  if (email.length > 254) throw badRequest('Email must be at most 254 characters');
  const local = email.slice(0, email.lastIndexOf('@'));
  if (!EMAIL.test(email) || local.length > 64) {
    throw badRequest('Email must be a valid address like name@example.com');
  }
  return email;
}
