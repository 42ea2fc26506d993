import type { AccessAttempt } from '../sync/policy';
import { HOLDS_MAP, PRESENCE_MAP, USERS_MAP } from './directory';

export type Role = 'admin' | 'agent';

/** Objects only admins may change (everyone on the team reads them: routing and the screens need them). */
const ADMIN_MAPS = new Set(['groups', 'guidance', 'audio']);
/** A ring group's own objects (`{prefix}{groupId}`), made with the group and removed with it. */
export const GROUP_PREFIXES = ['schedule:', 'calendar:', 'forwarding:'] as const;
/** Objects only the server writes: people read them, nobody can forge them. */
const SERVER_OBJECTS = new Set([USERS_MAP, 'calls', HOLDS_MAP]);
export const SETTINGS_PREFIX = 'settings:';

/**
 * Which rule an object falls under, by its unique name: the one table both backends read (the
 * embedded Sync service per request, below; Twilio Sync as per-object permissions, server/twilio/acl.ts).
 * - `server`: `users`, `calls`, `holds`; `admin`: `groups`, `guidance`, `audio` and every group's
 *   `schedule:*`, `calendar:*`, `forwarding:*`; `presence`; `settings`: `settings:{identity}`;
 *   `team`: everything else (`contacts`, …).
 */
export type ObjectRule = 'server' | 'admin' | 'presence' | 'settings' | 'team';

export function objectRule(name: string): ObjectRule {
  if (name.startsWith(SETTINGS_PREFIX)) return 'settings';
  if (SERVER_OBJECTS.has(name)) return 'server';
  if (isAdminObject(name)) return 'admin';
  if (name === PRESENCE_MAP) return 'presence';
  return 'team';
}

/** What one person may do to a whole object: Twilio Sync's permission flags. */
export interface ObjectAccess {
  /** Open it, read its items, be told of changes. */
  read: boolean;
  /** Change its data, add, change and remove its items. */
  write: boolean;
  /** Remove the object itself. */
  manage: boolean;
}

export const NO_ACCESS: ObjectAccess = { read: false, write: false, manage: false };

/**
 * The rules below at the grain of a whole object, for a backend that can only grant per object
 * (Twilio Sync): the same reads and writes, with two differences that come from that grain and are
 * documented (docs/sync-service.md, "Who may do what"): `presence` is writable as a whole by everyone
 * on the team (its items are not told apart), and only a group's own objects can be removed (by
 * admins, with the group); the shared objects the server made are removed by nobody.
 */
export function objectAccess(name: string, identity: string, role: Role | null): ObjectAccess {
  if (role === null) return NO_ACCESS;
  switch (objectRule(name)) {
    case 'settings':
      return name.slice(SETTINGS_PREFIX.length) === identity
        ? { read: true, write: true, manage: false }
        : NO_ACCESS;
    case 'server':
      return { read: true, write: false, manage: false };
    case 'admin': {
      const admin = role === 'admin';
      return { read: true, write: admin, manage: admin && isGroupObject(name) };
    }
    case 'presence':
    case 'team':
      return { read: true, write: true, manage: false };
  }
}

/**
 * Who may read and write what, enforced by the Sync service for every client request (the table is in
 * docs/sync-service.md, "Who may do what"):
 * - `users`, `calls` and `holds`: read by the team, written only by the server (roles through the
 *   admin API, call history and parked calls by the voice service), so none can be forged from a
 *   browser;
 * - `presence`: read by the team; each person writes only the item keyed by their own identity, and
 *   nobody removes or re-ttls the map;
 * - `groups`, `guidance`, `audio`, `schedule:*`, `calendar:*`, `forwarding:*`: read by the team,
 *   created, changed and removed by admins only;
 * - `settings:{identity}`: read and written by that person only;
 * - everything else (`contacts`, …): open to everyone on the team.
 * Someone no longer on the team (a token not yet expired) may do nothing at all.
 */
export function createAccessPolicy(
  roleOf: (identity: string) => Role | null,
): (attempt: AccessAttempt) => string | null {
  return (attempt) => {
    const role = roleOf(attempt.identity);
    if (role === null) return 'you are no longer on this team';
    const name = attempt.name ?? '';
    const rule = objectRule(name);
    if (rule === 'settings') {
      return name.slice(SETTINGS_PREFIX.length) === attempt.identity
        ? null
        : 'settings are private: only their owner reads or changes them';
    }
    if (attempt.op === 'read') return null;
    if (rule === 'server' && (attempt.kind === 'map' || attempt.kind === 'list')) {
      return name === USERS_MAP
        ? 'the users directory is kept by the server; admins change roles on the Users screen'
        : name === HOLDS_MAP
          ? 'calls are parked and picked up through the phone; the server keeps this list'
          : 'call history is written by the server as calls end';
    }
    if (rule === 'admin' && role !== 'admin') {
      return 'only admins change ring groups, announcements, audio, hours, holidays and forwarding';
    }
    if (attempt.kind === 'map' && rule === 'presence') {
      if (attempt.target === 'object') return 'the presence map itself cannot be changed';
      if (attempt.target === 'item' && attempt.key !== attempt.identity)
        return 'you can only set your own presence';
    }
    return null;
  };
}

function isGroupObject(name: string): boolean {
  return GROUP_PREFIXES.some((p) => name.startsWith(p));
}

function isAdminObject(name: string): boolean {
  return ADMIN_MAPS.has(name) || isGroupObject(name);
}
