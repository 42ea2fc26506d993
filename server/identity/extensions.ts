/**
 * Extensions: the short numbers colleagues dial. Every person has one (the server gives the lowest
 * free one from 100 upwards on first sign-in, and to people from before extensions at startup); an
 * admin can change it. One number reaches one thing: an extension is never another person's nor a
 * ring group's number (src/domain/group.ts: `dialledGroups`, `numberClash`).
 */
import { normaliseNumber } from '../../src/contracts/records/group';
import { EXTENSION } from '../../src/contracts/records/user';
import { invalidField } from './errors';

export const FIRST_EXTENSION = 100;
const LAST_EXTENSION = 999_999;

/**
 * The lowest extension from 100 upwards that is not in `taken` (other people's extensions and
 * group numbers, normalised). Throws only when all 999,900 are taken.
 */
export function lowestFreeExtension(taken: ReadonlySet<string>): string {
  for (let n = FIRST_EXTENSION; n <= LAST_EXTENSION; n++) {
    const candidate = String(n);
    if (!taken.has(candidate)) return candidate;
  }
  throw new Error('Every extension from 100 to 999999 is taken');
}

/** An extension an admin typed: 2 to 6 digits once spaces and dashes are dropped. */
export function parseExtension(raw: string): string {
  const extension = normaliseNumber(raw);
  if (extension === '') throw invalidField('Enter an extension of 2 to 6 digits');
  if (!EXTENSION.test(extension)) throw invalidField('An extension is 2 to 6 digits, like 104');
  return extension;
}
