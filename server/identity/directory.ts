/**
 * The `users` directory in Sync: the app database's users as the team sees them, written through
 * Sync's REST API (the `users` map, which only the server writes). The app database stays the
 * source of truth; writes go out in the background, in order per person, and a failure is logged
 * (the next start's `reconcile` repairs any drift), so a slow Sync never holds up a sign-in.
 */
import { PRESENCE, USERS } from '../../src/contracts/objects';
import type { UserEntry } from '../../src/contracts/records/user';
import type { SyncAcl } from '../twilio/acl';
import type { SyncRest } from '../twilio/sync-rest';
import type { User, Users } from './users';

/** What the `users` map holds per identity: no picture URL or timestamps, only what the team sees. */
export function directoryEntry(user: User): UserEntry {
  return {
    name: user.name,
    email: user.email,
    role: user.role,
    ...(user.extension === null ? {} : { extension: user.extension }),
  };
}

/** Keeps the `users` Sync map equal to the app database's users. */
export interface Directory {
  upsert(user: User): void;
  /** Removes the user's directory entry and presence item. */
  remove(identity: string): void;
  /** Removes the presence item of someone signed out of every browser. */
  signedOut(identity: string): void;
  /** Makes the map hold exactly these users; creates the reserved maps if missing. */
  reconcile(users: readonly User[]): void;
  /** Resolves once every write queued so far has been tried (tests, shutdown). */
  settled(): Promise<void>;
}

export function createDirectory(rest: SyncRest, log: (message: string) => void): Directory {
  /** The last write queued per key: the next waits for it, so a person's writes land in order. */
  const queues = new Map<string, Promise<void>>();
  const queue = (key: string, what: string, work: () => Promise<void>): void => {
    const previous = queues.get(key) ?? Promise.resolve();
    const next = previous
      .then(work)
      .catch((err: unknown) =>
        log(`users directory: ${what} failed: ${err instanceof Error ? err.message : String(err)}`),
      )
      .finally(() => {
        if (queues.get(key) === next) queues.delete(key);
      });
    queues.set(key, next);
  };

  return {
    upsert(user: User) {
      queue(user.identity, 'upsert', () =>
        rest.setMapItem(USERS.name, user.identity, directoryEntry(user)),
      );
    },
    remove(identity) {
      queue(identity, 'remove', async () => {
        await rest.removeMapItem(USERS.name, identity);
        await rest.removeMapItem(PRESENCE.name, identity);
      });
    },
    signedOut(identity) {
      queue(identity, 'sign-out', () => rest.removeMapItem(PRESENCE.name, identity));
    },
    reconcile(users) {
      queue('*', 'reconcile', async () => {
        await rest.ensureMap(USERS.name);
        await rest.ensureMap(PRESENCE.name);
        const current = await rest.mapItems(USERS.name);
        const wanted = new Set(users.map((u) => u.identity));
        for (const user of users) {
          const entry = directoryEntry(user);
          if (JSON.stringify(current.get(user.identity)?.data) !== JSON.stringify(entry))
            await rest.setMapItem(USERS.name, user.identity, entry);
        }
        for (const key of current.keys())
          if (!wanted.has(key)) await rest.removeMapItem(USERS.name, key);
      });
    },
    async settled() {
      while (queues.size > 0) await Promise.all([...queues.values()]);
    },
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

/**
 * The directory with each person's Sync permissions following it (twilio/acl.ts): a sign-in, a role
 * change and a removal each bring their permissions up to date, and a removed person's presence item
 * goes again once they can no longer write it.
 */
export function withPermissions(
  directory: Directory,
  acl: Pick<SyncAcl, 'update' | 'settled'>,
): Directory {
  return {
    ...directory,
    upsert(user) {
      directory.upsert(user);
      void acl.update(user.identity);
    },
    remove(identity) {
      directory.remove(identity);
      // Again once their permissions are gone: a heartbeat of theirs may have landed in between (a
      // group would ring them while their Voice token lasts).
      void acl.update(identity).then(() => directory.signedOut(identity));
    },
    async settled() {
      await directory.settled();
      await acl.settled();
      await directory.settled();
    },
  };
}
