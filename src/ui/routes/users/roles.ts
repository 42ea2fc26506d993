/** The admin role change, through the server (the `users` map is read-only to browsers). */
import type { ApiClient } from '../../../auth/api';
import type { Role } from './directory';

export function setRole(api: ApiClient, identity: string, role: Role): Promise<unknown> {
  return api.request('PUT', `/api/users/${encodeURIComponent(identity)}/role`, { role });
}

export function roleChangedMessage(name: string, role: Role): string {
  return role === 'admin' ? `${name} is now an admin.` : `${name} is now an agent.`;
}

export function removeUser(api: ApiClient, identity: string): Promise<unknown> {
  return api.request('DELETE', `/api/users/${encodeURIComponent(identity)}`);
}
