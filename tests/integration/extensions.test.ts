/**
 * Extensions over the real server process and the real SDK: the `users` map carries them, the admin
 * API changes them (400, 403, 409 naming who has it), and the Sync service itself refuses a ring
 * group whose number is another group's or a person's extension, whatever client writes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncClient, SyncMap } from 'twilio-sync';
import { startServer, type RunningServer } from '../support/server';
import { clientWithToken, shutdownClients, signIn, token } from './sync/support';

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

const group = (name: string, number: string) => ({
  name,
  number,
  members: [],
  strategy: 'simultaneous',
  ringTimeout: 20,
});

describe('extensions', () => {
  let server: RunningServer;
  let ada: Person;
  let bob: Person;
  let groups: SyncMap;

  const setExtension = (cookie: string, identity: string, body: unknown) =>
    fetch(`${server.url}/api/users/${encodeURIComponent(identity)}/extension`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Cookie: cookie },
      body: JSON.stringify(body),
    });
  const errorOf = async (res: Response) => ({
    status: res.status,
    ...((await res.json()) as { error: { code: string; message: string } }).error,
  });

  beforeAll(async () => {
    server = await startServer();
    ada = await person(server.url, 'ada@example.com');
    bob = await person(server.url, 'bob@example.com');
    groups = await ada.client.map('groups');
  }, 60_000);
  afterAll(async () => {
    await shutdownClients();
    await server.stop();
    server.cleanup();
  });

  it('the users map gives everyone an extension from 100, in the order they joined', async () => {
    const users = await bob.client.map({ id: 'users', mode: 'open_existing' });
    const items = (await users.getItems({ pageSize: 100 })).items;
    expect(
      Object.fromEntries(items.map((i) => [i.key, (i.data as { extension?: unknown }).extension])),
    ).toEqual({
      'ada@example.com': '100',
      'bob@example.com': '101',
    });
  });

  it("the Sync service refuses a group number that is a person's extension or another group's", async () => {
    const onBob = await refusal(groups.set('grp-a', group('Sales', '101')));
    expect(onBob.status).toBe(400);
    expect(onBob.message).toMatch(/101 is already the extension of bob/);

    await groups.set('grp-a', group('Sales', '300'));
    const twice = await refusal(groups.set('grp-b', group('Support', '3 00')));
    expect(twice.status).toBe(400);
    expect(twice.message).toMatch(/300 is already the number of Sales/);
    // Keeping its own number is fine, and an agent is refused by role before any of this.
    await groups.set('grp-a', group('Sales team', '300'));
    const agent = await refusal(
      (await bob.client.map('groups')).set('grp-c', group('Mine', '400')),
    );
    expect(agent.status).toBe(403);
    const keys = (await groups.getItems()).items.map((i) => [
      i.key,
      (i.data as { number?: unknown }).number,
    ]);
    expect(keys).toEqual([['grp-a', '300']]);
  });

  it('an admin changes an extension; taken (409) and malformed (400) ones are refused, agents too (403)', async () => {
    expect(
      await errorOf(await setExtension(ada.cookie, 'bob@example.com', { extension: '300' })),
    ).toEqual({
      status: 409,
      code: 'extension_taken',
      message: '300 is already the number of the ring group Sales team',
    });
    expect(
      await errorOf(await setExtension(ada.cookie, 'bob@example.com', { extension: '100' })),
    ).toMatchObject({ status: 409, message: '100 is already the extension of ada' });
    expect(
      (await errorOf(await setExtension(ada.cookie, 'bob@example.com', { extension: '1x' })))
        .status,
    ).toBe(400);
    expect(
      (await errorOf(await setExtension(bob.cookie, 'bob@example.com', { extension: '150' })))
        .status,
    ).toBe(403);

    const users = await ada.client.map('users');
    const updated = new Promise<unknown>((resolve) =>
      users.on('itemUpdated', (e: { item: { key: string; data: { extension?: unknown } } }) => {
        if (e.item.key === 'bob@example.com') resolve(e.item.data.extension);
      }),
    );
    expect((await setExtension(ada.cookie, 'bob@example.com', { extension: '150' })).status).toBe(
      200,
    );
    expect(await updated).toBe('150');
    // Bob's old extension is free for a group now.
    await groups.set('grp-b', group('Support', '101'));
  });
});
