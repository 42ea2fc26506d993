/**
 * Extensions over the real server process and the real SDK: the `users` map carries them, the admin
 * API changes them (400, 403, 409 naming who has it), and the ring groups' API (`/api/groups`, the
 * only way a group is written: browsers only read the `groups` map) refuses a group whose number is
 * another group's or a person's extension (409 `number_taken`, naming who has it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncClient, SyncMap } from 'twilio-sync';
import { startServer, type RunningServer } from '../support/server';
import { clientWithToken, refusal, shutdownClients, signIn, token, waitFor } from './sync/support';

interface Person {
  cookie: string;
  client: SyncClient;
}

async function person(url: string, email: string): Promise<Person> {
  const cookie = await signIn(url, email);
  const t = await token(url, cookie);
  return { cookie, client: clientWithToken(t.token, t.sync) };
}

const HOURS = { timeZone: 'Europe/London', week: {} };

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

  const groupApi = (cookie: string, method: string, id: string, body?: unknown) =>
    fetch(`${server.url}/api/groups/${encodeURIComponent(id)}`, {
      method,
      headers: {
        Cookie: cookie,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const numbers = async () =>
    Object.fromEntries(
      (await groups.getItems()).items.map((i) => [i.key, (i.data as { number?: unknown }).number]),
    );

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
    groups = await ada.client.map({ id: 'groups', mode: 'open_existing' });
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

  it("the groups API refuses a group number that is a person's extension or another group's (409, naming who has it)", async () => {
    const onBob = await groupApi(ada.cookie, 'POST', 'grp-a', {
      group: group('Sales', '101'),
      schedule: HOURS,
    });
    expect(await errorOf(onBob)).toEqual({
      status: 409,
      code: 'number_taken',
      message: '101 is already the extension of bob.',
    });
    expect(
      (
        await groupApi(ada.cookie, 'POST', 'grp-a', {
          group: group('Sales', '300'),
          schedule: HOURS,
        })
      ).status,
    ).toBe(201);
    const twice = await groupApi(ada.cookie, 'POST', 'grp-b', {
      group: group('Support', '300'),
      schedule: HOURS,
    });
    expect(await errorOf(twice)).toEqual({
      status: 409,
      code: 'number_taken',
      message: '300 is already the number of Sales.',
    });
    // A change that takes another's number is refused the same way.
    expect(
      (
        await groupApi(ada.cookie, 'POST', 'grp-b', {
          group: group('Support', '301'),
          schedule: HOURS,
        })
      ).status,
    ).toBe(201);
    const taking = await groupApi(ada.cookie, 'PUT', 'grp-b', {
      base: group('Support', '301'),
      group: group('Support', '100'),
    });
    expect(await errorOf(taking)).toMatchObject({
      status: 409,
      code: 'number_taken',
      message: '100 is already the extension of ada.',
    });
    // Keeping its own number is fine.
    const kept = await groupApi(ada.cookie, 'PUT', 'grp-a', {
      base: group('Sales', '300'),
      group: group('Sales team', '300'),
    });
    expect(await kept.json()).toEqual({ ok: true });
    // An agent is refused by role before any of this, through the API and at Sync.
    expect(
      (
        await groupApi(bob.cookie, 'POST', 'grp-c', {
          group: group('Mine', '400'),
          schedule: HOURS,
        })
      ).status,
    ).toBe(403);
    const bobGroups = await bob.client.map({ id: 'groups', mode: 'open_existing' });
    expect(await refusal(bobGroups.set('grp-c', group('Mine', '400')))).toEqual({
      status: 403,
      code: 54007,
    });
    // And nobody writes the map at Sync around the API, an admin neither.
    expect(await refusal(groups.set('grp-d', group('Around', '101')))).toEqual({
      status: 403,
      code: 54007,
    });
    // What the admin's SDK sees once the server's writes have arrived: only what the API took.
    await waitFor(
      async () => ((await groups.get('grp-a')).data as { name: string }).name === 'Sales team',
      5000,
      'the rename to arrive',
    );
    expect(await numbers()).toEqual({ 'grp-a': '300', 'grp-b': '301' });
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
    const freed = await groupApi(ada.cookie, 'PUT', 'grp-b', {
      base: group('Support', '301'),
      group: group('Support', '101'),
    });
    expect(await freed.json()).toEqual({ ok: true });
    await waitFor(
      async () => (await numbers())['grp-b'] === '101',
      5000,
      'the group’s new number to arrive',
    );
  });
});
