/**
 * Presence written by the server for the signed-in person (PUT, POST …/renew and DELETE
 * /api/presence), in process on the twins: their own item and nobody else's, with the ttl, "on a
 * call" kept as the server holds it, a lapsed item's renewal refused so the page writes it again, and
 * bad requests refused changing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, requestAs, signInAs, startApp, stopApp, type TestApp } from '../support';

let t: TestApp;
let ada: string;
let bob: string;

beforeAll(async () => {
  t = await startApp();
  ada = await signInAs(t, 'Ada', 'ada@x.io');
  bob = await signInAs(t, 'Bob', 'bob@x.io');
});
afterAll(() => stopApp(t));

const call = (method: string, path: string, cookie: string, body?: unknown) =>
  requestAs(t, method, path, cookie, body);
const item = async (identity: string) => await t.sync.getMapItem('presence', identity);

describe('/api/presence', () => {
  it("writes the person's own item with the ttl, and what colleagues see of do not disturb", async () => {
    const before = Date.now();
    expect((await call('PUT', '/api/presence', ada, { status: 'away' })).status).toBe(204);
    const written = await item('ada@x.io');
    expect(written?.data).toEqual({ status: 'away', onCall: false });
    // The presence ttl (DEFAULT_PRESENCE: 75 s), from the write.
    expect(written!.expiresAt).toBeGreaterThanOrEqual(before + 74_000);
    expect(written!.expiresAt).toBeLessThanOrEqual(Date.now() + 76_000);
    const dnd = await call('PUT', '/api/presence', ada, {
      status: 'available',
      doNotDisturb: true,
    });
    expect(dnd.status).toBe(204);
    expect((await item('ada@x.io'))?.data).toEqual({
      status: 'available',
      onCall: false,
      doNotDisturb: true,
    });
    // Nobody else's item was touched.
    expect(await item('bob@x.io')).toBeNull();
  });

  it('keeps "on a call" as the server holds it: the page does not say', async () => {
    await t.sync.setMapItem('presence', 'bob@x.io', { status: 'available', onCall: true }, 60);
    expect((await call('PUT', '/api/presence', bob, { status: 'away' })).status).toBe(204);
    expect((await item('bob@x.io'))?.data).toEqual({ status: 'away', onCall: true });
    // The body cannot set it.
    const sneaky = await call('PUT', '/api/presence', bob, { status: 'away', onCall: false });
    expect(await expectError(sneaky)).toMatchObject({
      status: 400,
      message: 'Unknown field: "onCall"',
    });
    expect((await item('bob@x.io'))?.data).toEqual({ status: 'away', onCall: true });
  });

  it('renews the item without changing it, and says so once it has lapsed', async () => {
    expect((await call('PUT', '/api/presence', ada, { status: 'available' })).status).toBe(204);
    const first = await item('ada@x.io');
    expect((await call('POST', '/api/presence/renew', ada)).status).toBe(204);
    const renewed = await item('ada@x.io');
    expect(renewed?.data).toEqual(first?.data);
    expect(renewed?.revision).toBe(first?.revision);
    await t.sync.removeMapItem('presence', 'ada@x.io');
    expect(await expectError(await call('POST', '/api/presence/renew', ada))).toMatchObject({
      status: 404,
      code: 'no_presence',
    });
  });

  it('removes the item on DELETE: Offline at once', async () => {
    expect((await call('PUT', '/api/presence', ada, { status: 'available' })).status).toBe(204);
    expect((await call('DELETE', '/api/presence', ada)).status).toBe(204);
    expect(await item('ada@x.io')).toBeNull();
    // Removing what is gone is no error.
    expect((await call('DELETE', '/api/presence', ada)).status).toBe(204);
  });

  it('refuses a visitor and a bad body, changing nothing', async () => {
    await t.sync.setMapItem('presence', 'bob@x.io', { status: 'available', onCall: false }, 60);
    expect((await call('PUT', '/api/presence', '', { status: 'away' })).status).toBe(401);
    for (const [body, message] of [
      [{ status: 'busy' }, 'Field status must be "available" or "away"'],
      [{}, 'Missing field: status'],
      [{ status: 'away', doNotDisturb: 'yes' }, 'Field doNotDisturb must be true or false'],
      ['{not json', /JSON/],
    ] as const) {
      const error = await expectError(await call('PUT', '/api/presence', bob, body));
      expect(error.status).toBe(400);
      expect(error.message).toMatch(message);
    }
    expect((await item('bob@x.io'))?.data).toEqual({ status: 'available', onCall: false });
  });
});
