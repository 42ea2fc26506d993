/**
 * A browser's write that breaks its record, made around the app's screens with the real
 * twilio-sync SDK, is put right from Sync's webhooks (server/records/put-right.ts), in process on the
 * twins: an item is made what every reader reads it as when that passes its record, and removed when
 * nothing would; a good write, and a fix someone made meanwhile, are left alone.
 */
import { SyncClient } from 'twilio-sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, removeDir, sessionCookieOf, startApp, type TestApp } from '../support';

let t: TestApp;
let client: SyncClient;

beforeAll(async () => {
  t = await startApp();
  const cookie = sessionCookieOf(
    await postJson(`${t.url}/api/session/local`, { name: 'Bob', email: 'bob@x.io' }),
  )!;
  const { token, sync } = (await (
    await fetch(`${t.url}/api/token`, { headers: { Cookie: cookie } })
  ).json()) as { token: string; sync: Record<string, unknown> };
  client = new SyncClient(token, { ...sync, logLevel: 'silent' });
});
afterAll(async () => {
  await client.shutdown();
  await t.close();
  removeDir(t.dataDir);
});

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 5000;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}

const phones = [{ label: 'Work', number: '+442079460958' }];
const contact = (key: string) => t.sync.getMapItem('contacts', key);

describe('a write that breaks its record', () => {
  it('is made what every reader reads it as, when that passes its record', async () => {
    const contacts = await client.map('contacts');
    // A company that is not text reads as none.
    await contacts.set('c1', { name: 'Ann', phones, company: 42 });
    const fixed = await eventually(
      () => contact('c1'),
      (item) => item?.data.company !== 42,
    );
    expect(fixed?.data).toEqual({
      name: 'Ann',
      company: '',
      phones,
      email: '',
      note: '',
    });
  });

  it('is removed when no reading of it passes (a contact without a name)', async () => {
    const contacts = await client.map('contacts');
    await contacts.set('c2', { name: ' ', phones });
    expect(
      await eventually(
        () => contact('c2'),
        (item) => item === null,
      ),
    ).toBeNull();
  });

  it('leaves a good write as written', async () => {
    const contacts = await client.map('contacts');
    await contacts.set('c3', { name: 'Cy', phones });
    // The put-right of c4 after it shows that c3's event has been looked at too.
    await contacts.set('c4', { name: '', phones });
    await eventually(
      () => contact('c4'),
      (item) => item === null,
    );
    expect((await contact('c3'))?.data).toEqual({ name: 'Cy', phones });
  });
});
