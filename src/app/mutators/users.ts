/**
 * Changes to people, through the server (the `users` map is the server's, read-only to browsers):
 * an admin's role, extension and removal changes, and anyone's own display name. The change comes
 * back to every open directory through the map. Rejects with the server's `ApiError`.
 */
import { API, type SignInCode } from '../../contracts/api';
import type { ApiClient } from '../../io/api/client';
import type { SessionUser } from '../../contracts/api-session';
import type { Role } from '../../contracts/roles';

export async function setRole(api: ApiClient, identity: string, role: Role): Promise<SessionUser> {
  return (await api.call(API.setRole, { identity }, { role })).user;
}

/** The server checks the extension again (409 when someone took it meanwhile). */
export async function setExtension(
  api: ApiClient,
  identity: string,
  extension: string,
): Promise<SessionUser> {
  return (await api.call(API.setExtension, { identity }, { extension })).user;
}

export function removeUser(api: ApiClient, identity: string): Promise<undefined> {
  return api.call(API.removeUser, { identity });
}

/** The name colleagues see. */
export async function renameMe(api: ApiClient, name: string): Promise<SessionUser> {
  return (await api.call(API.renameMe, undefined, { name })).user;
}

/**
 * Admins: a one-time code for a colleague to sign in with on a browser new to them (it replaces
 * any code waiting for them). The server refuses anyone else (403).
 */
export function issueSignInCode(api: ApiClient, identity: string): Promise<SignInCode> {
  return api.call(API.issueSignInCode, { identity });
}
