import type { AccessAttempt } from '../sync/policy';
import { HOLDS_MAP, PRESENCE_MAP, USERS_MAP } from './directory';

export type Role = 'admin' | 'agent';

/** Objects only admins may change (everyone on the team reads them: routing and the screens need them). */
const ADMIN_MAPS = new Set(['groups', 'guidance', 'audio']);
const ADMIN_PREFIXES = ['schedule:', 'calendar:', 'forwarding:'];
/** Objects only the server writes: people read them, nobody can forge them. */
const SERVER_OBJECTS = new Set([USERS_MAP, 'calls', HOLDS_MAP]);
const SETTINGS_PREFIX = 'settings:';

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
    if (name.startsWith(SETTINGS_PREFIX)) {
      return name.slice(SETTINGS_PREFIX.length) === attempt.identity
        ? null
        : 'settings are private: only their owner reads or changes them';
    }
    if (attempt.op === 'read') return null;
    if (SERVER_OBJECTS.has(name) && (attempt.kind === 'map' || attempt.kind === 'list')) {
      return name === USERS_MAP
        ? 'the users directory is kept by the server; admins change roles on the Users screen'
        : name === HOLDS_MAP
          ? 'calls are parked and picked up through the phone; the server keeps this list'
          : 'call history is written by the server as calls end';
    }
    if (isAdminObject(name) && role !== 'admin') {
      return 'only admins change ring groups, announcements, audio, hours, holidays and forwarding';
    }
    if (attempt.kind === 'map' && name === PRESENCE_MAP) {
      if (attempt.target === 'object') return 'the presence map itself cannot be changed';
      if (attempt.target === 'item' && attempt.key !== attempt.identity)
        return 'you can only set your own presence';
    }
    return null;
  };
}

function isAdminObject(name: string): boolean {
  return ADMIN_MAPS.has(name) || ADMIN_PREFIXES.some((p) => name.startsWith(p));
}
