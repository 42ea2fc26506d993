/**
 * The server's maps over the real SDK and the real server process: the `users` directory is
 * server-written and read-only to browsers (Sync's 403 / 54007), and each person's `presence` item
 * is written for them by the server through `/api/presence` (nobody writes the map at Sync, not even
 * their own item), keeps "on a call" as the server knows it, and lapses with its ttl unless renewed.
 * (Parked calls and their pick-up race: tests/integration/voice/park.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncClient, SyncMap } from 'twilio-sync';
import { startServer, type RunningServer } from '../support/server';
import {
  clientWithToken,
  FORBIDDEN,
  refusal,
  shutdownClients,
  signIn,
  token,
  waitFor,
} from './sync/support';

interface Person {
  cookie: string;
  client: SyncClient;
}

async function person(url: string, email: string): Promise<Person> {
  const cookie = await signIn(url, email);
  const t = await token(url, cookie);
  return { cookie, client: clientWithToken(t.token, t.sync) };
}

const entries = async (map: SyncMap) =>
  Object.fromEntries((await map.getItems({ pageSize: 100 })).items.map((i) => [i.key, i.data]));

/** The presence item's ttl (s) in this suite: short, so its lapse is seen. */
const PRESENCE_TTL = 3;

describe('users and presence over the SDK', () => {
  let server: RunningServer;
  let ada: Person;
  let bob: Person;

  const presenceApi = (who: Person, method: string, path = '', body?: unknown) =>
    fetch(`${server.url}/api/presence${path}`, {
      method,
      headers: {
        Cookie: who.cookie,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    server = await startServer({
      env: {
        SWITCHBOARD_SYNC_SWEEP_MS: '200',
        SWITCHBOARD_SYNC_LOG_REQUESTS: '1',
        SWITCHBOARD_PRESENCE_TTL: String(PRESENCE_TTL),
      },
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
    expect(await refusal(users.set('bob@example.com', { role: 'admin' }))).toEqual(FORBIDDEN);
    expect(await refusal(users.remove('ada@example.com'))).toEqual(FORBIDDEN);
    expect(await refusal(users.removeMap())).toEqual(FORBIDDEN);
    // An admin neither: the directory changes through the admin API only.
    const adaUsers = await ada.client.map({ id: 'users', mode: 'open_existing' });
    expect(await refusal(adaUsers.set('bob@example.com', { role: 'admin' }))).toEqual(FORBIDDEN);

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

  it('each person sets their own presence through the API (on a call only when the server says so); nobody writes the map at Sync', async () => {
    const mine = await bob.client.map({ id: 'presence', mode: 'open_existing' });
    const watcher = await ada.client.map({ id: 'presence', mode: 'open_existing' });
    const seen: Array<[string, unknown]> = [];
    watcher.on('itemAdded', (e: { item: { key: string; data: unknown } }) =>
      seen.push([e.item.key, e.item.data]),
    );
    watcher.on('itemUpdated', (e: { item: { key: string; data: unknown } }) =>
      seen.push([e.item.key, e.item.data]),
    );

    // At Sync, nobody writes presence: not their own item, not a colleague's, not the map.
    expect(await refusal(mine.set('bob@example.com', { status: 'away' }))).toEqual(FORBIDDEN);
    expect(await refusal(mine.set('ada@example.com', { status: 'away' }))).toEqual(FORBIDDEN);
    expect(await refusal(watcher.set('bob@example.com', { status: 'away' }))).toEqual(FORBIDDEN);
    expect(await refusal(mine.removeMap())).toEqual(FORBIDDEN);

    // Through the API: the caller's own item, with what the server knows of calls.
    expect((await presenceApi(bob, 'PUT', '', { status: 'away' })).status).toBe(204);
    await waitFor(() => seen.length > 0, 5000, 'bob’s presence to arrive');
    expect(seen).toEqual([['bob@example.com', { status: 'away', onCall: false }]]);
    // Claiming a call is not the browser's to say; a body that tries is refused, changing nothing.
    const claim = await presenceApi(bob, 'PUT', '', { status: 'available', onCall: true });
    expect(claim.status).toBe(400);
    // Do not disturb is shown to colleagues.
    expect(
      (await presenceApi(bob, 'PUT', '', { status: 'available', doNotDisturb: true })).status,
    ).toBe(204);
    await waitFor(() => seen.length > 1, 5000, 'bob’s change to arrive');
    expect(seen[1]).toEqual([
      'bob@example.com',
      { status: 'available', onCall: false, doNotDisturb: true },
    ]);
    // Values the record does not know are refused with a reason.
    const bad = await presenceApi(bob, 'PUT', '', { status: 'busy' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(
      /status must be "available" or "away"/,
    );
    expect(await entries(watcher)).toEqual({
      'bob@example.com': { status: 'available', onCall: false, doNotDisturb: true },
    });
    // Signed out, no presence is written.
    expect(
      (
        await fetch(`${server.url}/api/presence`, {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ status: 'away' }),
        })
      ).status,
    ).toBe(401);
  });

  it('a presence item lapses with its ttl unless renewed, and goes at once when withdrawn', async () => {
    const watcher = await ada.client.map({ id: 'presence', mode: 'open_existing' });
    const removed: string[] = [];
    watcher.on('itemRemoved', (e: { key: string }) => removed.push(e.key));
    expect((await presenceApi(ada, 'PUT', '', { status: 'available' })).status).toBe(204);
    expect((await presenceApi(bob, 'PUT', '', { status: 'away' })).status).toBe(204);

    // Ada renews hers inside each ttl; Bob's lapses.
    const started = Date.now();
    await waitFor(
      async () => {
        expect((await presenceApi(ada, 'POST', '/renew')).status).toBe(204);
        await new Promise((r) => setTimeout(r, 500));
        return removed.includes('bob@example.com');
      },
      (PRESENCE_TTL + 5) * 1000,
      'bob’s presence to lapse',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual((PRESENCE_TTL - 1) * 1000);
    expect(removed).toEqual(['bob@example.com']);
    expect(await entries(watcher)).toEqual({
      'ada@example.com': { status: 'available', onCall: false },
    });
    // A lapsed item is not renewed: the browser writes it again in full.
    const lapsed = await presenceApi(bob, 'POST', '/renew');
    expect(lapsed.status).toBe(404);
    expect(((await lapsed.json()) as { error: { code: string } }).error.code).toBe('no_presence');

    // Withdrawn: Offline at once.
    expect((await presenceApi(ada, 'DELETE')).status).toBe(204);
    await waitFor(() => removed.includes('ada@example.com'), 2000, 'ada’s withdrawal');
    expect(await entries(watcher)).toEqual({});
  });

  it('removing a user takes them out of the directory live', async () => {
    await signIn(server.url, 'carol@example.com');
    const users = await ada.client.map({ id: 'users', mode: 'open_existing' });
    const removed: string[] = [];
    users.on('itemRemoved', (e: { key: string }) => removed.push(e.key));
    const res = await fetch(`${server.url}/api/users/carol%40example.com`, {
      method: 'DELETE',
      headers: { Cookie: ada.cookie },
    });
    expect(res.status).toBe(204);
    await waitFor(() => removed.includes('carol@example.com'), 5000, 'directory removal');
    expect(Object.keys(await entries(users)).sort()).toEqual([
      'ada@example.com',
      'bob@example.com',
    ]);
  });
});
