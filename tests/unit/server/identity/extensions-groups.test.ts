/**
 * Extensions and ring groups' numbers: the groups are in Sync, which runs none of this server's
 * code, so the server reads them itself (afresh) before an admin changes someone's extension and
 * refuses a group's number; a new person's extension skips the numbers of the groups last read.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { expectError } from '../support';
import { startTwilioApp, type TwilioTestApp } from '../twilio/support';

let t: TwilioTestApp | null = null;

afterEach(async () => {
  await t?.close();
  t = null;
});

const setExtension = (app: TwilioTestApp, cookie: string, identity: string, extension: string) =>
  fetch(`${app.url}/api/users/${encodeURIComponent(identity)}/extension`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', Cookie: cookie },
    body: JSON.stringify({ extension }),
  });

/** Each person's extension in the `users` map, once the server's writes there have landed. */
async function extensions(app: TwilioTestApp, want: Record<string, string>) {
  const read = () =>
    Object.fromEntries(
      [...(app.api.maps.get('users') ?? new Map<string, { data: { extension?: unknown } }>())].map(
        ([k, v]) => [k, v.data.extension],
      ),
    );
  const until = Date.now() + 3000;
  while (Date.now() < until && JSON.stringify(read()) !== JSON.stringify(want))
    await new Promise((r) => setTimeout(r, 10));
  return read();
}

describe('extensions on Twilio', () => {
  it("refuses a ring group's number, naming the group, even one saved a moment ago", async () => {
    t = await startTwilioApp();
    const ada = await t.signIn('ada@example.com', 'Ada');
    await t.signIn('bob@example.com', 'Bob');
    // The first change reads the groups (none yet); a group is then saved straight to Twilio Sync.
    expect((await setExtension(t, ada, 'bob@example.com', '150')).status).toBe(200);
    t.api.setMapItem('groups', 'grp-desk', {
      name: 'Front desk',
      number: '102',
      members: [],
      strategy: 'simultaneous',
      ringTimeout: 20,
    });
    expect(await expectError(await setExtension(t, ada, 'bob@example.com', '1 02'))).toEqual({
      status: 409,
      code: 'extension_taken',
      message: '102 is already the number of the ring group Front desk',
    });
    // A new person's extension skips the group's number (as last read).
    await t.signIn('cy@example.com', 'Cy');
    await t.signIn('dan@example.com', 'Dan');
    const want = {
      'ada@example.com': '100',
      'bob@example.com': '150',
      'cy@example.com': '101',
      'dan@example.com': '103',
    };
    expect(await extensions(t, want)).toEqual(want);
  });

  it('changes nothing, and says to try again, when Twilio Sync cannot be read', async () => {
    t = await startTwilioApp();
    const ada = await t.signIn('ada@example.com', 'Ada');
    await t.signIn('bob@example.com', 'Bob');
    t.api.failWith(503);
    try {
      expect(await expectError(await setExtension(t, ada, 'bob@example.com', '150'))).toEqual({
        status: 503,
        code: 'upstream_error',
        message:
          'The ring groups could not be read just now, so the extension was not changed; try again in a moment',
      });
    } finally {
      t.api.failWith(null);
    }
    // With Sync back, the same change goes through.
    const again = await setExtension(t, ada, 'bob@example.com', '150');
    expect(again.status).toBe(200);
    expect(((await again.json()) as { user: { extension: string } }).user.extension).toBe('150');
  }, 20_000);
});
