/**
 * The container machines and bridges driven by the real twilio-sync SDK against the real server's
 * Sync twin, its ACL off. After each step, the machine's view must equal what a fresh SDK client
 * reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor, type AnyStateMachine } from 'xstate';
import { ask } from '../../../src/machines/syncCommand';
import { selectListItems, selectListStatus } from '../../../src/machines/syncList.selectors';
import { selectMapItems, selectMapStatus } from '../../../src/machines/syncMap.selectors';
import { selectDocumentData } from '../../../src/machines/syncDocument.selectors';
import {
  startSyncRuntime,
  type SyncClientLike,
  type SyncRuntime,
} from '../../../src/io/sync/client';
import { startServer, type RunningServer } from '../../support/server';
import { aclOff, client, shutdownClients, signIn, token, waitFor } from '../sync/support';

let server: RunningServer;
let runtime: SyncRuntime;
let n = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++n}`;

/** What a brand-new client (empty cache) reads from the service. */
async function serviceList(id: string) {
  const fresh = await client(server.url, `reader${++n}@example.com`);
  const page = await (await fresh.list({ id, mode: 'open_existing' })).getItems({ pageSize: 100 });
  return page.items.map((i) => [i.index, i.data]);
}

async function serviceMap(id: string) {
  const fresh = await client(server.url, `reader${++n}@example.com`);
  const page = await (await fresh.map({ id, mode: 'open_existing' })).getItems({ pageSize: 100 });
  return page.items.map((i) => [i.key, i.data]);
}

async function until<T extends AnyStateMachine>(
  actor: Actor<T>,
  ok: (a: Actor<T>) => boolean,
  what: string,
) {
  await waitFor(() => ok(actor), 10_000, what);
}

beforeAll(async () => {
  server = await startServer();
  await aclOff(server);
  const cookie = await signIn(server.url, 'machine@example.com');
  runtime = startSyncRuntime({
    fetchCredentials: async () => {
      const t = await token(server.url, cookie);
      return { token: t.token, clientOptions: { ...t.sync, logLevel: 'silent' } };
    },
  });
  await runtime.sdkClient();
});

afterAll(async () => {
  runtime?.stop();
  await shutdownClients();
  await server?.stop();
  server?.cleanup();
});

describe('syncList machine over the real SDK and service', () => {
  it('creates, pushes, receives remote writes and removals, and matches the service after each step', async () => {
    const id = unique('calls');
    const actor = createActor(runtime.machines.list, { input: { id } }).start();
    await until(actor, (a) => a.getSnapshot().matches({ ready: 'idle' }), 'list ready');
    const view = () => selectListItems(actor.getSnapshot()).map((i) => [i.index, i.data]);
    expect(view()).toEqual(await serviceList(id));

    await ask(actor, { type: 'list.push', data: { from: 'a' } }, 'list');
    expect(view()).toEqual(await serviceList(id));

    const other = await (await client(server.url, 'other@example.com')).list(id);
    await other.push({ from: 'b' });
    await until(actor, () => view().length === 2, 'remote push');
    expect(view()).toEqual(await serviceList(id));

    await other.set(0, { from: 'a2' });
    await until(actor, () => JSON.stringify(view()).includes('a2'), 'remote set');
    expect(view()).toEqual(await serviceList(id));

    await ask(actor, { type: 'list.remove', index: 1 }, 'list');
    await until(actor, () => view().length === 1, 'local remove');
    expect(view()).toEqual(await serviceList(id));

    const removed = new Promise((resolve) => actor.on('list.removed', resolve));
    await other.removeList();
    await expect(removed).resolves.toEqual({ type: 'list.removed', isLocal: false });
    expect(selectListStatus(actor.getSnapshot())).toBe('removed');
  });

  it('fails open_existing on a missing list and create_new on a taken name', async () => {
    const missing = createActor(runtime.machines.list, {
      input: { id: unique('nothing'), mode: 'open_existing' },
    }).start();
    await until(missing, (a) => a.getSnapshot().matches('failed'), 'open_existing fails');
    expect(missing.getSnapshot().context.error?.status).toBe(404);

    const id = unique('taken');
    await (await client(server.url, 'creator@example.com')).list(id);
    const taken = createActor(runtime.machines.list, { input: { id, mode: 'create_new' } }).start();
    await until(taken, (a) => a.getSnapshot().matches('failed'), 'create_new fails');
    expect(taken.getSnapshot().context.error?.message).toBe(`A list named "${id}" already exists`);
  });

  it('pages 50 at a time and loads more on demand', async () => {
    const id = unique('paged');
    const writer = await (await client(server.url, 'writer@example.com')).list(id);
    for (let i = 0; i < 70; i += 10) {
      await Promise.all(Array.from({ length: 10 }, (_, j) => writer.push({ i: i + j })));
    }
    const actor = createActor(runtime.machines.list, { input: { id } }).start();
    await until(actor, (a) => a.getSnapshot().matches({ ready: 'idle' }), 'first page');
    expect(selectListItems(actor.getSnapshot())).toHaveLength(50);
    expect(actor.getSnapshot().context.paging.hasMore).toBe(true);
    actor.send({ type: 'list.loadMore' });
    await until(actor, (a) => selectListItems(a.getSnapshot()).length === 70, 'second page');
    expect(actor.getSnapshot().context.paging.hasMore).toBe(false);
    expect(selectListItems(actor.getSnapshot()).map((i) => [i.index, i.data])).toEqual(
      await serviceList(id),
    );
  });
});

describe('syncMap machine over the real SDK and service', () => {
  it('keeps key order and matches the service through local and remote writes', async () => {
    const id = unique('contacts');
    const actor = createActor(runtime.machines.map, { input: { id } }).start();
    await until(actor, (a) => a.getSnapshot().matches({ ready: 'idle' }), 'map ready');
    const view = () => selectMapItems(actor.getSnapshot()).map((i) => [i.key, i.data]);
    const keys = () => selectMapItems(actor.getSnapshot()).map((i) => i.key);

    for (const key of ['b', 'aa', 'B'])
      await ask(actor, { type: 'map.set', key, data: { key } }, 'map');
    expect(keys()).toEqual(['B', 'aa', 'b']);
    expect(view()).toEqual(await serviceMap(id));

    const other = await (await client(server.url, 'other2@example.com')).map(id);
    await other.set('a', { key: 'a' });
    await other.remove('b');
    await until(actor, () => keys().join() === 'B,a,aa', 'remote set and remove');
    expect(view()).toEqual(await serviceMap(id));

    await expect(ask(actor, { type: 'map.set', key: '', data: {} }, 'map')).rejects.toThrow(
      'SyncMapItem key may not be empty',
    );
    await expect(ask(actor, { type: 'map.remove', key: 'ghost' }, 'map')).rejects.toMatchObject({
      status: 404,
    });
    expect(view()).toEqual(await serviceMap(id));

    await ask(actor, { type: 'map.removeMap' }, 'map');
    expect(selectMapStatus(actor.getSnapshot())).toBe('removed');
  });
});

describe('syncDocument machine over the real SDK and service', () => {
  it('shows remote updates', async () => {
    const id = unique('settings');
    const actor = createActor(runtime.machines.document, { input: { id, data: { v: 0 } } }).start();
    await until(actor, (a) => a.getSnapshot().matches('ready'), 'document ready');
    const other = await (await client(server.url, 'other3@example.com')).document(id);
    await other.set({ v: 1 });
    await until(actor, (a) => selectDocumentData(a.getSnapshot())?.v === 1, 'remote update');
    await ask(actor, { type: 'document.update', data: { w: 2 } }, 'document');
    expect(selectDocumentData(actor.getSnapshot())).toEqual({ v: 1, w: 2 });
  });
});

describe('sync runtime', () => {
  it('reports the connection as connected', async () => {
    const sdk: SyncClientLike = await runtime.sdkClient();
    await waitFor(() => sdk.connectionState === 'connected', 10_000, 'connected');
    expect(runtime.client.getSnapshot().matches({ running: { connection: 'connected' } })).toBe(
      true,
    );
  });
});
