/**
 * Writes that break their record are refused at the embedded Sync service, through the real
 * twilio-sync SDK: a contact, a ring group, a settings patch and a forwarding rule that fail their
 * schema (src/contracts/records) get a 400 with Sync's invalid-data code for their kind and a message
 * naming the field and the reason, and change nothing; good ones pass. Objects the catalogue does
 * not name take any data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncClient } from 'twilio-sync';
import { startServer, type RunningServer } from '../support/server';
import { client, RawTwilsock, shutdownClients, signIn, token } from './sync/support';

interface Refusal {
  status: number;
  code: number;
  message: string;
}

async function refusal(promise: Promise<unknown>): Promise<Refusal> {
  try {
    await promise;
  } catch (e) {
    const err = e as { status?: number; code?: number; message?: string };
    return { status: err.status ?? 0, code: err.code ?? 0, message: err.message ?? '' };
  }
  throw new Error('the write was not refused');
}

const GROUP = {
  name: 'Sales',
  number: '300',
  members: ['bob@example.com'],
  strategy: 'simultaneous',
  ringTimeout: 20,
};

describe('writes checked against their record at the Sync service', () => {
  let server: RunningServer;
  let ada: SyncClient;
  let bob: SyncClient;

  beforeAll(async () => {
    server = await startServer();
    ada = await client(server.url, 'ada@example.com');
    bob = await client(server.url, 'bob@example.com');
  }, 60_000);
  afterAll(async () => {
    await shutdownClients();
    await server.stop();
    server.cleanup();
  });

  it('refuses a contact without a phone number, naming the field, and stores nothing', async () => {
    const contacts = await bob.map('contacts');
    const refused = await refusal(contacts.set('c-bad', { name: 'Ann', phones: [] }));
    expect(refused).toMatchObject({ status: 400, code: 54206 });
    // (The SDK adds the status and code to the service's message.)
    expect(refused.message).toMatch(/^Invalid contact phones: Add at least one phone number\. /);
    const nested = await refusal(
      contacts.set('c-bad', { name: 'Ann', phones: [{ label: 'Work', number: '+44 20' }] }),
    );
    expect(nested).toMatchObject({ status: 400, code: 54206 });
    expect(nested.message).toMatch(/^Invalid contact phones\.0\.number: /);
    expect((await contacts.getItems()).items.map((i) => i.key)).toEqual([]);

    const good = { name: 'Ann', phones: [{ label: 'Work', number: '+442079460958' }] };
    await contacts.set('c-good', good);
    const seen = await (await ada.map('contacts')).get('c-good');
    expect(seen.data).toEqual(good);
  });

  it('refuses a ring group whose ring time breaks its rule, and keeps the group as it was', async () => {
    const groups = await ada.map('groups');
    await groups.set('grp-a', GROUP);
    const refused = await refusal(groups.set('grp-a', { ...GROUP, ringTimeout: 2 }));
    expect(refused).toMatchObject({ status: 400, code: 54206 });
    expect(refused.message).toMatch(
      /^Invalid group ringTimeout: Use a whole number of seconds from 5 to 120\. /,
    );
    expect((await refusal(groups.set('grp-b', { ...GROUP, number: '4' }))).message).toMatch(
      /^Invalid group number: Use an extension of 2 to 6 digits/,
    );
    const items = (await (await bob.map('groups')).getItems()).items;
    expect(items.map((i) => [i.key, i.data])).toEqual([['grp-a', GROUP]]);
  });

  it('checks a settings patch as the whole document it makes', async () => {
    const mine = await bob.document('settings:bob@example.com');
    await mine.update({ doNotDisturb: true });
    const refused = await refusal(mine.update({ ringtoneVolume: 150 }));
    expect(refused).toMatchObject({ status: 400, code: 54101 });
    expect(refused.message).toMatch(/^Invalid settings ringtoneVolume: /);
    // Another patch goes through, and the refused one left no trace.
    await mine.update({ ringtoneVolume: 40 });
    const again = await bob.document({ id: 'settings:bob@example.com', mode: 'open_existing' });
    expect(again.data).toEqual({ doNotDisturb: true, ringtoneVolume: 40 });
  });

  it('refuses a forwarding rule that names no known case, with the list kind’s code', async () => {
    const rules = await ada.list('forwarding:grp-a');
    const refused = await refusal(rules.push({ when: 'sometimes', target: { kind: 'voicemail' } }));
    expect(refused).toMatchObject({ status: 400, code: 54156 });
    expect(refused.message).toMatch(
      /^Invalid forwarding rule when: Choose when calls are forwarded\./,
    );
    await rules.push({ when: 'always', target: { kind: 'voicemail' } });
    expect((await rules.getItems({})).items.map((i) => i.data)).toEqual([
      { when: 'always', target: { kind: 'voicemail' } },
    ]);
  });

  it('checks what a raw request would store, and leaves a malformed one to its own error', async () => {
    const raw = await RawTwilsock.open(server.url);
    try {
      await raw.init((await token(server.url, await signIn(server.url, 'ada@example.com'))).token);
      const status = (reply: { header: Record<string, unknown>; body: unknown }) => ({
        http: (reply.header.http_status as { code: number }).code,
        code: (reply.body as { code?: number }).code,
      });
      // A push without a body would store an empty rule.
      expect(status(await raw.request('POST', '/v3/Lists/forwarding:grp-a/Items'))).toEqual({
        http: 400,
        code: 54156,
      });
      // A map item without a key is the seed's error, whatever its data.
      expect(
        status(await raw.request('POST', '/v3/Maps/contacts/Items', { data: { name: '' } })),
      ).toEqual({ http: 400, code: 54209 });
      // Data that is no object at all is the handler's to refuse.
      expect(
        status(await raw.request('PUT', '/v3/Maps/contacts/Items/c-x', { data: 'text' })),
      ).toEqual({ http: 400, code: 20001 });
    } finally {
      raw.close();
    }
  });

  it('lets objects the catalogue does not name hold anything', async () => {
    const mine = await bob.map('scratch-anything');
    await mine.set('k', { phones: 'not a list', ringTimeout: 2 });
    expect((await mine.get('k')).data).toEqual({ phones: 'not a list', ringTimeout: 2 });
    const doc = await bob.document('notes-of-bob');
    await doc.set({ doNotDisturb: 'yes' });
    expect(doc.data).toEqual({ doNotDisturb: 'yes' });
  });
});
