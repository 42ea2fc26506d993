/**
 * Connection loss with the real SDK: when the service goes away the container machines show it
 * (`offline` tag), and when it comes back they catch up with what changed meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { askList } from '../../../src/machines/syncAsk';
import { selectListItems, selectListOffline } from '../../../src/machines/syncList.selectors';
import { startSyncRuntime, type SyncRuntime } from '../../../src/io/sync/client';
import { startServer, type RunningServer } from '../../support/server';
import { aclOff, client, shutdownClients, signIn, token, waitFor } from '../sync/support';

let server: RunningServer;
let runtime: SyncRuntime;

beforeAll(async () => {
  server = await startServer();
  await aclOff(server);
  const cookie = await signIn(server.url, 'reconnect@example.com');
  const t = await token(server.url, cookie);
  runtime = startSyncRuntime({
    fetchCredentials: () =>
      Promise.resolve({ token: t.token, clientOptions: { ...t.sync, logLevel: 'silent' } }),
  });
  await runtime.sdkClient();
});

afterAll(async () => {
  runtime?.stop();
  await shutdownClients();
  await server?.stop();
  server?.cleanup();
});

describe('connection loss', () => {
  it('shows offline while the service is down and catches up after it returns', async () => {
    const actor = createActor(runtime.machines.list, { input: { id: 'reconnect-calls' } }).start();
    await waitFor(
      () => actor.getSnapshot().matches({ ready: 'idle' }),
      30_000,
      `ready (now ${JSON.stringify(actor.getSnapshot().value)})`,
    );
    await askList(actor, { type: 'list.push', data: { n: 1 } });
    await waitFor(() => !selectListOffline(actor.getSnapshot()), 10_000, 'online');

    const { port, dataDir } = server;
    await server.kill();
    await waitFor(() => selectListOffline(actor.getSnapshot()), 20_000, 'offline shown');
    expect(runtime.client.getSnapshot().hasTag('offline')).toBe(true);

    server = await startServer({ port, dataDir });
    // The app turns the service's ACL on at every start.
    await aclOff(server);
    const other = await (await client(server.url, 'writer@example.com')).list('reconnect-calls');
    await other.push({ n: 2 });
    await waitFor(() => !selectListOffline(actor.getSnapshot()), 60_000, 'online again');
    await waitFor(() => selectListItems(actor.getSnapshot()).length === 2, 30_000, 'caught up');
    expect(selectListItems(actor.getSnapshot()).map((i) => i.data)).toEqual([{ n: 1 }, { n: 2 }]);
  }, 120_000);
});
