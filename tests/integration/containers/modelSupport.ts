/**
 * Shared pieces of the container model tests against the real service: a server with test hooks
 * and its Sync twin's ACL off (the machines are tested over Sync as such, not the app's grants),
 * SDK clients, reading what the service holds with a fresh client, and dropping a client's socket.
 */
import type { SyncClient } from 'twilio-sync';
import { startSyncRuntime, type SyncRuntime } from '../../../src/io/sync/client';
import { startServer, type RunningServer } from '../../support/server';
import { RawTwilsock, aclOff, client, signIn, token, waitFor } from '../sync/support';

export interface World {
  server: RunningServer;
  /** The machines' runtime (client A). */
  runtime: SyncRuntime;
  identityA: string;
  /** A second real SDK client (client B): remote writes, races, removals. */
  b: SyncClient;
  identityB: string;
}

let n = 0;
/** A fresh object name per path (never reused across paths or runs). */
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++n}`;

export async function startWorld(): Promise<World> {
  const server = await startServer({ env: { SWITCHBOARD_SYNC_TEST_HOOKS: '1' } });
  await aclOff(server);
  const cookie = await signIn(server.url, 'model-a@example.com');
  const first = await token(server.url, cookie);
  const runtime = startSyncRuntime({
    fetchCredentials: async () => {
      const t = await token(server.url, cookie);
      return { token: t.token, clientOptions: { ...t.sync, logLevel: 'silent' } };
    },
  });
  await runtime.sdkClient();
  const cookieB = await signIn(server.url, 'model-b@example.com');
  const tb = await token(server.url, cookieB);
  const b = await client(server.url, 'model-b@example.com');
  return { server, runtime, identityA: first.identity, b, identityB: tb.identity };
}

/** Runs `read` with a brand-new client (empty cache), shut down afterwards: the service's truth. */
export async function withFreshReader<T>(world: World, read: (c: SyncClient) => Promise<T>) {
  const c = await client(world.server.url, `reader${++n}@example.com`);
  try {
    return await read(c);
  } finally {
    await c.shutdown().catch(() => undefined);
  }
}

/** Every page of a container's items, read by `c` (the service's truth when `c` is fresh). */
export async function allListItems(c: SyncClient, id: string) {
  const list = await c.list({ id, mode: 'open_existing' });
  const out: Array<[number, unknown]> = [];
  let page = await list.getItems({ pageSize: 100 });
  for (;;) {
    out.push(...page.items.map((i) => [i.index, i.data] as [number, unknown]));
    if (!page.hasNextPage) break;
    page = await page.nextPage();
  }
  list.close();
  return out;
}

export async function allMapItems(c: SyncClient, id: string) {
  const map = await c.map({ id, mode: 'open_existing' });
  const out: Array<[string, unknown]> = [];
  let page = await map.getItems({ pageSize: 100 });
  for (;;) {
    out.push(...page.items.map((i) => [i.key, i.data] as [string, unknown]));
    if (!page.hasNextPage) break;
    page = await page.nextPage();
  }
  map.close();
  return out;
}

/** Whether the service holds a container of that kind and name (read by a fresh client). */
export async function exists(c: SyncClient, kind: 'list' | 'map', id: string): Promise<boolean> {
  try {
    const o =
      kind === 'list'
        ? await c.list({ id, mode: 'open_existing' })
        : await c.map({ id, mode: 'open_existing' });
    o.close();
    return true;
  } catch (e) {
    if ((e as { status?: number }).status === 404) return false;
    throw e;
  }
}

/** Drops every socket of `identity` through the service's test hook (SWITCHBOARD_SYNC_TEST_HOOKS). */
export async function dropSockets(world: World, identity: string): Promise<number> {
  const raw = await RawTwilsock.open(world.server.url);
  try {
    const t = await token(world.server.url, await signIn(world.server.url, 'dropper@example.com'));
    await raw.init(t.token);
    const reply = await raw.request('POST', '/test/drop', { identity });
    return (reply.body as { dropped: number }).dropped;
  } finally {
    raw.close();
  }
}

export { waitFor };
