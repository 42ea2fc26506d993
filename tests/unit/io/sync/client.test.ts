import { describe, expect, it, vi } from 'vitest';
import { createActor, waitFor } from 'xstate';
import {
  selectListItems,
  selectListOffline,
  selectListStatus,
} from '../../../../src/machines/syncList.selectors';
import { startSyncRuntime, type SyncClientLike } from '../../../../src/io/sync/client';
import type { SyncCredentials } from '../../../../src/machines/syncPorts';
import { FakeSdkClient, FakeSdkContainer, sdkItem } from './sdkFakes';

const flush = async () => {
  for (let i = 0; i < 20; i += 1) await Promise.resolve();
};

/** A fake SDK list that answers getItems like a Paginator. */
class FakeSdkList extends FakeSdkContainer {
  sid = 'ES1';
  uniqueName = 'calls';
  dateExpires = null;
  items = [sdkItem({ index: 0, lastEventId: 1 })];
  async getItems() {
    await Promise.resolve();
    return { items: this.items, hasNextPage: false };
  }
}

class FakeClientWithLists extends FakeSdkClient {
  lists = new Map<string, FakeSdkList>();
  opens: unknown[] = [];
  async list(options: { id?: string; mode?: string }) {
    await Promise.resolve();
    this.opens.push(options);
    const found = this.lists.get(options.id ?? '');
    if (options.mode === 'open_existing') {
      if (!found) throw Object.assign(new Error('List not found'), { status: 404, code: 54150 });
      return found;
    }
    if (found)
      throw Object.assign(new Error('Unique name already exists'), { status: 409, code: 54301 });
    const created = new FakeSdkList();
    this.lists.set(options.id ?? 'anon', created);
    return created;
  }
}

function start(credentials: Array<SyncCredentials | Error>) {
  const client = new FakeClientWithLists();
  const fetchCredentials = vi.fn(async () => {
    await Promise.resolve();
    const next = credentials.shift();
    if (!next) throw new Error('no more tokens');
    if (next instanceof Error) throw next;
    return next;
  });
  const createClient = vi.fn(() => client as unknown as SyncClientLike);
  const runtime = startSyncRuntime({ fetchCredentials, createClient });
  const toasts: Array<{ message: string; toastType: string }> = [];
  runtime.client.on('toast.show', (e) =>
    toasts.push({ message: e.message, toastType: e.toastType }),
  );
  return { runtime, client, fetchCredentials, createClient, toasts };
}

describe('sync runtime: the client actor', () => {
  it('creates the SDK client with the fetched token and options, and tracks its connection', async () => {
    const { runtime, client, createClient } = start([
      { token: 't1', clientOptions: { cdsUri: 'x' } },
    ]);
    await flush();
    expect(createClient).toHaveBeenCalledWith('t1', { cdsUri: 'x' });
    expect(runtime.client.getSnapshot().hasTag('offline')).toBe(true);
    client.connectionState = 'connected';
    client.emit('connectionStateChanged', 'connected');
    expect(runtime.client.getSnapshot().matches({ running: { connection: 'connected' } })).toBe(
      true,
    );
    expect(runtime.client.getSnapshot().hasTag('offline')).toBe(false);
  });

  it('renews the token when it is about to expire', async () => {
    const { runtime, client, fetchCredentials } = start([{ token: 't1' }, { token: 't2' }]);
    await flush();
    client.emit('tokenAboutToExpire');
    await flush();
    expect(fetchCredentials).toHaveBeenCalledTimes(2);
    expect(client.tokens).toEqual(['t2']);
    expect(runtime.client.getSnapshot().matches({ running: { token: 'valid' } })).toBe(true);
  });

  it('tells the person when the service rejects the renewed token, and retries on expiry', async () => {
    const { runtime, client, toasts } = start([{ token: 't1' }, { token: 't2' }, { token: 't3' }]);
    await flush();
    client.updateTokenError = Object.assign(new Error('Updated token was rejected by server'), {
      status: 400,
      code: 51130,
    });
    client.emit('tokenAboutToExpire');
    await flush();
    expect(runtime.client.getSnapshot().matches({ running: { token: 'renewalFailed' } })).toBe(
      true,
    );
    expect(toasts.at(-1)).toEqual({
      message: 'Your session could not be renewed. Sign in again to keep working.',
      toastType: 'error',
    });
    client.updateTokenError = null;
    client.emit('tokenExpired');
    await flush();
    expect(client.tokens).toEqual(['t3']);
    expect(runtime.client.getSnapshot().matches({ running: { token: 'valid' } })).toBe(true);
  });

  it('says so when no token can be fetched, and asks again on retry', async () => {
    const { runtime, toasts, createClient } = start([
      Object.assign(new Error('Server unavailable'), { status: 503 }),
      { token: 't1' },
    ]);
    await flush();
    expect(runtime.client.getSnapshot().matches('failed')).toBe(true);
    expect(toasts[0]?.toastType).toBe('error');
    expect(toasts[0]?.message).toMatch(/^Live updates are unavailable: The live connection/);
    runtime.client.send({ type: 'client.retry' });
    await flush();
    expect(createClient).toHaveBeenCalledWith('t1', {});
  });

  it('turns connection errors and a refused connection into toasts', async () => {
    const { client, toasts } = start([{ token: 't1' }]);
    await flush();
    client.emit('connectionError', { terminal: false, message: 'socket closed' });
    client.emit('connectionError', { terminal: true, message: 'too many retries' });
    client.emit('connectionStateChanged', 'denied');
    expect(toasts).toEqual([
      { message: 'The live connection is having trouble; retrying.', toastType: 'warning' },
      {
        message: 'The live connection stopped: too many retries. Reload the page to reconnect.',
        toastType: 'error',
      },
      {
        message: 'The live connection was refused. Sign in again to keep working.',
        toastType: 'error',
      },
    ]);
  });

  it('removes its listeners and shuts the client down when stopped', async () => {
    const { runtime, client } = start([{ token: 't1' }]);
    await flush();
    expect(client.totalListeners()).toBeGreaterThan(0);
    runtime.stop();
    await flush();
    expect(client.totalListeners()).toBe(0);
    expect(client.shutdowns).toBe(1);
  });
});

describe('sync runtime: container machines over the SDK', () => {
  it('opens or creates a list through the SDK modes, shows pushed items, and cleans up', async () => {
    const { runtime, client } = start([{ token: 't1' }]);
    const actor = createActor(runtime.machines.list, { input: { id: 'calls' } }).start();
    await waitFor(actor, (s) => s.matches({ ready: 'idle' }));
    expect(client.opens).toEqual([
      { mode: 'open_existing', id: 'calls' },
      { mode: 'create_new', id: 'calls' },
    ]);
    const sdkList = client.lists.get('calls')!;
    sdkList.emit('itemAdded', { item: sdkItem({ index: 1, lastEventId: 2 }), isLocal: false });
    expect(selectListItems(actor.getSnapshot()).map((i) => i.index)).toEqual([0, 1]);
    client.emit('connectionStateChanged', 'disconnected');
    expect(selectListOffline(actor.getSnapshot())).toBe(true);
    sdkList.emit('removed', { isLocal: false });
    expect(selectListStatus(actor.getSnapshot())).toBe('removed');
    expect(sdkList.totalListeners()).toBe(0);
    expect(sdkList.closed).toBe(1);
    runtime.stop();
  });
});
