/**
 * Extensions: the short numbers colleagues dial. Every person has one (the server gives the lowest
 * free one from 100 upwards on first sign-in, and to people from before extensions at startup); an
 * admin can change it. One number reaches one thing: an extension is never another person's nor a
 * ring group's number (groups live in the `groups` Sync map, written by admins in the browser).
 */
import { badRequest, HttpError } from '../http/errors';
import type { InternalSync } from '../sync/internal';

export const GROUPS_MAP = 'groups';
export const FIRST_EXTENSION = 100;
const LAST_EXTENSION = 999_999;
export const EXTENSION_SHAPE = /^\d{2,6}$/;

/** Spaces, dashes, dots and brackets people type in numbers are dropped (as the group form does). */
export function normaliseNumber(number: string): string {
  return number.trim().replace(/[\s().-]/g, '');
}

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

/** An extension an admin typed: 2 to 6 digits once spaces and dashes are dropped; 400 otherwise. */
export function parseExtension(raw: unknown): string {
  if (typeof raw !== 'string') throw badRequest('Field extension must be a string');
  const extension = normaliseNumber(raw);
  if (extension === '') throw badRequest('Enter an extension of 2 to 6 digits');
  if (!EXTENSION_SHAPE.test(extension)) throw badRequest('An extension is 2 to 6 digits, like 104');
  return extension;
}

/** A ring group's id, name and (normalised) number. */
export interface GroupNumber {
  id: string;
  name: string;
  number: string;
}

/** Every ring group with a number, from the `groups` map (none without the embedded service). */
export function groupNumbers(internal: InternalSync | undefined): GroupNumber[] {
  const out: GroupNumber[] = [];
  if (!internal) return out;
  for (const [id, data] of internal.mapItems(GROUPS_MAP)) {
    if (typeof data.number !== 'string') continue;
    const number = normaliseNumber(data.number);
    if (number === '') continue;
    out.push({ id, name: typeof data.name === 'string' && data.name ? data.name : id, number });
  }
  return out;
}

export const extensionTaken = (extension: string, owner: string): HttpError =>
  new HttpError(409, 'extension_taken', `${extension} is already ${owner}`);

/**
 * Why a ring group may not have this number, or null: another group has it, or it is a person's
 * extension. `groupId` is the group being written (its own number is not a clash).
 */
export function groupNumberClash(
  groupId: string,
  number: string,
  groups: readonly GroupNumber[],
  people: readonly { name: string; extension: string | null }[],
): string | null {
  const normalised = normaliseNumber(number);
  if (normalised === '') return null;
  const group = groups.find((g) => g.number === normalised && g.id !== groupId);
  if (group) return `${normalised} is already the number of ${group.name}`;
  const person = people.find((p) => p.extension === normalised);
  if (person) return `${normalised} is already the extension of ${person.name}`;
  return null;
}
