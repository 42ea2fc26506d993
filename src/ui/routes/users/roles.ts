/**
 * What /users says about role and extension changes, and the check of a typed extension before it
 * is sent (the changes themselves are src/app/mutators/users.ts).
 */
import { EXTENSION } from '../../../contracts/records/user';
import type { TeamMember } from './directory';
import type { Role } from '../../../contracts/roles';

export function roleChangedMessage(name: string, role: Role): string {
  return role === 'admin' ? `${name} is now an admin.` : `${name} is now an agent.`;
}

export function extensionChangedMessage(name: string, extension: string): string {
  return `${name}'s extension is now ${normaliseExtension(extension)}.`;
}

/** Spaces, dashes, dots and brackets people type are dropped, as the server does. */
export function normaliseExtension(raw: string): string {
  return raw.trim().replace(/[\s().-]/g, '');
}

/**
 * What is wrong with a typed extension before asking the server, or null: 2 to 6 digits, and not
 * someone else's (groups' numbers are checked by the server, which knows them all).
 */
export function checkExtension(
  raw: string,
  member: TeamMember,
  others: readonly TeamMember[],
): string | null {
  const extension = normaliseExtension(raw);
  if (extension === '') return 'Enter an extension of 2 to 6 digits.';
  if (!EXTENSION.test(extension)) return 'An extension is 2 to 6 digits, like 104.';
  const owner = others.find((o) => o.identity !== member.identity && o.extension === extension);
  if (owner) return `${extension} is already the extension of ${owner.name}.`;
  return null;
}
