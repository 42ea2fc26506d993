import { PRESENCE, USERS } from '../../src/contracts/objects';
import type { UserEntry } from '../../src/contracts/records/user';
import type { InternalSync } from '../twins/sync/internal';
import type { User, Users } from './users';

const USERS_MAP = USERS.name;
const PRESENCE_MAP = PRESENCE.name;

/** What the `users` map holds per identity: no picture URL or timestamps, only what the team sees. */
export function directoryEntry(user: User): UserEntry {
  return {
    name: user.name,
    email: user.email,
    role: user.role,
    ...(user.extension === null ? {} : { extension: user.extension }),
  };
}

/**
 * Keeps the `users` Sync map equal to the app database's users. The database is the source of
 * truth: a failed mirror write is logged, not surfaced to the person signing in, and the next start
 * (`reconcile`) repairs any drift.
 */
export interface Directory {
  upsert(user: User): void;
  /** Removes the user's directory entry and presence item. */
  remove(identity: string): void;
  /** Removes the presence item of someone signed out of every browser. */
  signedOut(identity: string): void;
  /**
   * Marks someone on a call or off it in their presence item (kept with its other fields and the
   * presence ttl); nothing when they have no presence item (signed out).
   */
  onCall(identity: string, onCall: boolean, ttlSeconds: number): void;
  /** Makes the map hold exactly these users; creates the reserved maps if missing. */
  reconcile(users: readonly User[]): void;
}

export function createDirectory(
  internal: InternalSync | undefined,
  log: (message: string) => void,
): Directory {
  const guarded =
    <A extends unknown[]>(what: string, fn: (sync: InternalSync, ...args: A) => void) =>
    (...args: A): void => {
      if (!internal) return;
      try {
        fn(internal, ...args);
      } catch (err) {
        log(`users directory: ${what} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    };

  const same = (a: Record<string, unknown> | undefined, b: Record<string, unknown>): boolean =>
    a !== undefined && JSON.stringify(a) === JSON.stringify(b);

  return {
    upsert: guarded('upsert', (sync, user: User) => {
      const entry = directoryEntry(user);
      // A sign-in that changes nothing writes nothing, so subscribers see no empty update.
      if (same(sync.getMapItem(USERS_MAP, user.identity), entry)) return;
      sync.setMapItem(USERS_MAP, user.identity, entry);
    }),
    remove: guarded('remove', (sync, identity: string) => {
      sync.removeMapItem(USERS_MAP, identity);
      sync.removeMapItem(PRESENCE_MAP, identity);
    }),
    signedOut: guarded('sign-out', (sync, identity: string) => {
      sync.removeMapItem(PRESENCE_MAP, identity);
    }),
    onCall: guarded('on-call', (sync, identity: string, onCall: boolean, ttlSeconds: number) => {
      const current = sync.getMapItem(PRESENCE_MAP, identity);
      if (!current || current.onCall === onCall) return;
      sync.setMapItem(PRESENCE_MAP, identity, { ...current, onCall }, ttlSeconds);
    }),
    reconcile: guarded('reconcile', (sync, users: readonly User[]) => {
      sync.ensureMap(USERS_MAP);
      sync.ensureMap(PRESENCE_MAP);
      const current = sync.mapItems(USERS_MAP);
      const wanted = new Set(users.map((u) => u.identity));
      for (const user of users) {
        const entry = directoryEntry(user);
        if (!same(current.get(user.identity), entry))
          sync.setMapItem(USERS_MAP, user.identity, entry);
      }
      for (const key of current.keys()) if (!wanted.has(key)) sync.removeMapItem(USERS_MAP, key);
    }),
  };
}

/** The user store, with every sign-in mirrored into the directory (name changes, new users). */
export function mirrorSignIns<U extends Pick<Users, 'upsertOnSignIn'>>(
  users: U,
  directory: Directory,
): U {
  return {
    ...users,
    upsertOnSignIn(profile, now) {
      const user = users.upsertOnSignIn(profile, now);
      directory.upsert(user);
      return user;
    },
  };
}
