/**
 * The reserved maps over the real SDK and the real server process: the `users` directory is
 * server-written and read-only to browsers, `presence` items are each person's own and lapse with
 * their ttl. (Parked calls and their pick-up race: tests/integration/voice/park.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncClient, SyncMap } from 'twilio-sync';
import { startServer, type RunningServer } from '../support/server';
import { clientWithToken, shutdownClients, signIn, token, waitFor } from './sync/support';

interface Person {
  cookie: string;
  client: SyncClient;
}

async function person(url: string, email: string): Promise<Person> {
  const cookie = await signIn(url, email);
  const t = await token(url, cookie);
  return { cookie, client: clientWithToken(t.token, t.sync) };
}

async function refusal(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await promise;
  } catch (e) {
    const err = e as { status?: number; message?: string };
    return { status: err.status ?? 0, message: err.message ?? '' };
  }
  throw new Error('the write was not refused');
}

const entries = async (map: SyncMap) =>
  Object.fromEntries((await map.getItems({ pageSize: 100 })).items.map((i) => [i.key, i.data]));

describe('users, presence and holds over the SDK', () => {
  let server: RunningServer;
  let ada: Person;
  let bob: Person;

  beforeAll(async () => {
    server = await startServer({
      env: { SWITCHBOARD_SYNC_SWEEP_MS: '200', SWITCHBOARD_SYNC_LOG_REQUESTS: '1' },
    });
    ada = await person(server.url, 'ada@example.com');
    bob = await person(server.url, 'bob@example.com');
  }, 60_000);
  afterAll(async () => {
    await shutdownClients();
    await server.stop();
    server.cleanup();
  });

  it('agents read the users directory but cannot write it; an admin role change arrives live', async () => {
    const users = await bob.client.map({ id: 'users', mode: 'open_existing' });
    expect(await entries(users)).toEqual({
      'ada@example.com': { name: 'ada', email: 'ada@example.com', role: 'admin', extension: '100' },
      'bob@example.com': { name: 'bob', email: 'bob@example.com', role: 'agent', extension: '101' },
    });
    const set = await refusal(users.set('bob@example.com', { role: 'admin' }));
    expect(set.status).toBe(403);
    expect(set.message).toMatch(/users directory is kept by the server/);
    expect((await refusal(users.remove('ada@example.com'))).status).toBe(403);
    expect((await refusal(users.removeMap())).status).toBe(403);

    const updates: Array<{ key: string; role: unknown }> = [];
    users.on('itemUpdated', (e: { item: { key: string; data: { role?: unknown } } }) =>
      updates.push({ key: e.item.key, role: e.item.data.role }),
    );
    const res = await fetch(`${server.url}/api/users/bob%40example.com/role`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Cookie: ada.cookie },
      body: JSON.stringify({ role: 'admin' }),
    });
    expect(res.status).toBe(200);
    await waitFor(() => updates.length > 0, 5000, 'the role change event');
    expect(updates).toEqual([{ key: 'bob@example.com', role: 'admin' }]);
    // Back to agent for the tests below.
    await fetch(`${server.url}/api/users/bob%40example.com/role`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Cookie: ada.cookie },
      body: JSON.stringify({ role: 'agent' }),
    });
  });

  it('each person writes only their own presence item (on a call only when the server says so), which lapses with its ttl', async () => {
    const mine = await bob.client.map('presence');
    const watcher = await ada.client.map('presence');
    const removed: string[] = [];
    watcher.on('itemRemoved', (e: { key: string }) => removed.push(e.key));

    // Bob claims a call he is not on: the server stores what the voice service knows.
    await mine.set('bob@example.com', { status: 'away', onCall: true }, { ttl: 1 });
    const other = await refusal(mine.set('ada@example.com', { status: 'away', onCall: false }));
    expect(other.status).toBe(403);
    expect(other.message).toMatch(/only set your own presence/);
    expect((await refusal(mine.removeMap())).status).toBe(403);
    expect(await entries(watcher)).toEqual({
      'bob@example.com': { status: 'away', onCall: false },
    });

    await waitFor(() => removed.includes('bob@example.com'), 5000, 'presence expiry');
    expect(await entries(watcher)).toEqual({});
  });

  it('removing a user takes them out of the directory live', async () => {
    const carol = await person(server.url, 'carol@example.com');
    const users = await ada.client.map('users');
    const removed: string[] = [];
    users.on('itemRemoved', (e: { key: string }) => removed.push(e.key));
    const res = await fetch(`${server.url}/api/users/carol%40example.com`, {
      method: 'DELETE',
      headers: { Cookie: ada.cookie },
    });
    expect(res.status).toBe(204);
    await waitFor(() => removed.includes('carol@example.com'), 5000, 'directory removal');
    await carol.client.shutdown();
  });
});
