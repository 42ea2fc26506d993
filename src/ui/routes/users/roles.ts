/** The admin role change, through the server (the `users` map is read-only to browsers). */
import type { ApiClient } from '../../../io/api/client';
import type { Role, TeamMember } from './directory';

export function setRole(api: ApiClient, identity: string, role: Role): Promise<unknown> {
  return api.request('PUT', `/api/users/${encodeURIComponent(identity)}/role`, { role });
}

export function roleChangedMessage(name: string, role: Role): string {
  return role === 'admin' ? `${name} is now an admin.` : `${name} is now an agent.`;
}

export function removeUser(api: ApiClient, identity: string): Promise<unknown> {
  return api.request('DELETE', `/api/users/${encodeURIComponent(identity)}`);
}

/** The admin's extension change; the server checks it again (409 when it is taken meanwhile). */
export function setExtension(
  api: ApiClient,
  identity: string,
  extension: string,
): Promise<unknown> {
  return api.request('PUT', `/api/users/${encodeURIComponent(identity)}/extension`, {
    extension,
  });
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
  if (!/^\d{2,6}$/.test(extension)) return 'An extension is 2 to 6 digits, like 104.';
  const owner = others.find((o) => o.identity !== member.identity && o.extension === extension);
  if (owner) return `${extension} is already the extension of ${owner.name}.`;
  return null;
}
