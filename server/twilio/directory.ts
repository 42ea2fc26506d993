/**
 * The `users` directory on Twilio Sync: the same Directory the embedded backend keeps
 * (server/identity/directory.ts), written through the Sync REST API. The app database stays the source
 * of truth; writes go out in the background, in order per person, and a failure is logged (the next
 * start's `reconcile` repairs any drift), so a slow Twilio never holds up a sign-in.
 */
import type { User } from '../identity/users';
import { PRESENCE, USERS } from '../../src/contracts/objects';
import { directoryEntry, type Directory } from '../identity/directory';
import type { SyncRest } from './sync-rest';

export interface BackgroundDirectory extends Directory {
  /** Resolves once every write queued so far has been tried (tests, shutdown). */
  settled(): Promise<void>;
}

export function createRestDirectory(
  rest: SyncRest,
  log: (message: string) => void,
): BackgroundDirectory {
  /** The last write queued per key: the next waits for it, so a person's writes land in order. */
  const queues = new Map<string, Promise<void>>();
  const queue = (key: string, what: string, work: () => Promise<void>): void => {
    const previous = queues.get(key) ?? Promise.resolve();
    const next = previous
      .then(work)
      .catch((err: unknown) =>
        log(
          `users directory on Twilio: ${what} failed: ${err instanceof Error ? err.message : String(err)}`,
        ),
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
    // On Twilio the browser writes its whole presence item on every heartbeat; the server keeps who is
    // on a call itself (calls.ts) and routing reads that, so nothing is written here.
    onCall() {},
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
