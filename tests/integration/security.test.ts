/**
 * Lost rights end at once, tried as an attacker would: a removed person's and a signed-out session's old
 * token, a client that ignores the expiry close and keeps writing, and numbers that would not read back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server';
import {
  client,
  clientWithToken,
  mintWithServerSecret,
  RawTwilsock,
  shutdownClients,
  signIn,
  token,
  waitFor,
} from './sync/support';

let server: RunningServer;
let adminCookie: string;

beforeAll(async () => {
  server = await startServer();
  adminCookie = await signIn(server.url, 'ada@example.com');
}, 60_000);
afterAll(async () => {
  await shutdownClients();
  await server.stop();
  server.cleanup();
});

/** Creates a map as the admin, so that writes to it fail only for the reasons under test. */
async function map(name: string): Promise<void> {
  const ada = await client(server.url, 'ada@example.com');
  await ada.map(name);
}

/** What the service holds for a map key, read by the admin's own SDK client. */
async function stored(mapName: string, key: string): Promise<unknown> {
  const ada = await client(server.url, 'ada@example.com');
  const map = await ada.map(mapName);
  return map.get(key).then(
    (item) => item.data,
    () => undefined,
  );
}

/** A raw Twilsock socket initialised with `jwt`; resolves with the init reply's status. */
async function rawWith(
  jwt: string,
): Promise<{ raw: RawTwilsock; status: Record<string, unknown> }> {
  const raw = await RawTwilsock.open(server.url);
  const reply = await raw.init(jwt);
  return { raw, status: reply.header.status as Record<string, unknown> };
}

const closed = (raw: RawTwilsock): Promise<void> =>
  raw.ws.readyState === raw.ws.CLOSED
    ? Promise.resolve()
    : new Promise((resolve) => raw.ws.once('close', () => resolve()));

describe('a removed person', () => {
  it('is cut off at once, and their last token neither connects nor writes', async () => {
    await map('sec-removed');
    const cookie = await signIn(server.url, 'mallory@example.com');
    const { token: jwt } = await token(server.url, cookie);
    const { raw, status } = await rawWith(jwt);
    expect(status.code).toBe(200);
    expect(
      (await raw.request('POST', '/v3/Maps/sec-removed/Items', { key: 'before', data: { n: 1 } }))
        .header.http_status,
    ).toMatchObject({ code: 201 });

    const res = await fetch(`${server.url}/api/users/mallory%40example.com`, {
      method: 'DELETE',
      headers: { Cookie: adminCookie },
    });
    expect(res.status).toBe(204);
    await closed(raw);
    const close = raw.frames.find((f) => f.header.method === 'close');
    expect(close?.header.status).toMatchObject({ code: 401 });

    // The old token, on a fresh socket: refused at init, and requests on it are never run.
    const again = await rawWith(jwt);
    expect(again.status).toMatchObject({ code: 401, errorCode: 20101 });
    const write = await again.raw.request('POST', '/v3/Maps/sec-removed/Items', {
      key: 'after',
      data: { n: 2 },
    });
    expect(write.header.status).toMatchObject({ code: 401 });
    again.raw.close();
    expect(await stored('sec-removed', 'after')).toBeUndefined();
    expect(await stored('sec-removed', 'before')).toEqual({ n: 1 });
  });

  it('is disconnected from the real SDK too, which cannot get back in', async () => {
    const cookie = await signIn(server.url, 'trudy@example.com');
    const t = await token(server.url, cookie);
    const sdk = clientWithToken(t.token, t.sync);
    await (await sdk.map('sec-sdk')).set('k', { v: 1 });
    const states: string[] = [];
    sdk.on('connectionStateChanged', (s: string) => states.push(s));
    await fetch(`${server.url}/api/users/trudy%40example.com`, {
      method: 'DELETE',
      headers: { Cookie: adminCookie },
    });
    await waitFor(
      () => states.includes('denied') || states.includes('disconnected'),
      10_000,
      'SDK cut off',
    );
    expect(sdk.connectionState).not.toBe('connected');
  });
});

describe('a signed-out session', () => {
  it("closes the sockets of that session's tokens at once and leaves the person's other sessions alone", async () => {
    await map('sec-signout');
    const laptop = await signIn(server.url, 'sam@example.com');
    const phone = await signIn(server.url, 'sam@example.com');
    const fromLaptop = await rawWith((await token(server.url, laptop)).token);
    const fromPhone = await rawWith((await token(server.url, phone)).token);
    const laptopToken = (await token(server.url, laptop)).token;

    const out = await fetch(`${server.url}/api/session/logout`, {
      method: 'POST',
      headers: { Cookie: laptop },
    });
    expect(out.status).toBe(204);
    await closed(fromLaptop.raw);
    expect((await rawWith(laptopToken)).status).toMatchObject({ code: 401, errorCode: 20101 });

    // The other session's socket still works.
    const write = await fromPhone.raw.request('POST', '/v3/Maps/sec-signout/Items', {
      key: 'phone',
      data: { ok: true },
    });
    expect(write.header.http_status).toMatchObject({ code: 201 });
    fromPhone.raw.close();
  });
});

describe('signing out everywhere', () => {
  it('takes the presence item away when the last session ends, not before', async () => {
    const first = await signIn(server.url, 'pat@example.com');
    const second = await signIn(server.url, 'pat@example.com');
    const t = await token(server.url, second);
    const pat = clientWithToken(t.token, t.sync);
    await (await pat.map('presence')).set('pat@example.com', { status: 'available' });
    const logout = (cookie: string) =>
      fetch(`${server.url}/api/session/logout`, { method: 'POST', headers: { Cookie: cookie } });
    expect((await logout(first)).status).toBe(204);
    // (the server adds `onCall`, which is its own to say)
    expect(await stored('presence', 'pat@example.com')).toEqual({
      status: 'available',
      onCall: false,
    });
    expect((await logout(second)).status).toBe(204);
    expect(await stored('presence', 'pat@example.com')).toBeUndefined();
  });
});

describe('a client that ignores the expiry close', () => {
  it('has nothing accepted once its token has expired', async () => {
    await map('sec-expired');
    await signIn(server.url, 'eve@example.com');
    // Issued long ago with just over a second left.
    const jwt = mintWithServerSecret(server.dataDir, 'eve@example.com', 3, Date.now() - 1500);
    const { raw, status } = await rawWith(jwt);
    expect(status.code).toBe(200);
    await waitFor(
      () => raw.frames.some((f) => f.header.method === 'close'),
      10_000,
      'expiry close',
    );
    // It keeps writing as if nothing happened, before the server closes the socket.
    const replies = await Promise.all(
      [0, 1, 2].map((i) =>
        raw.request('POST', '/v3/Maps/sec-expired/Items', { key: `late-${i}`, data: { i } }),
      ),
    );
    for (const r of replies) expect(r.header.status).toMatchObject({ code: 401, errorCode: 20104 });
    raw.close();
    for (const i of [0, 1, 2]) expect(await stored('sec-expired', `late-${i}`)).toBeUndefined();
  });
});

describe('numbers that would not read back as written', () => {
  it('are refused with the service error shape, and nothing is stored', async () => {
    await map('sec-numbers');
    const { raw } = await rawWith((await token(server.url, adminCookie)).token);
    const odd = ['1e99999', '-1e99999', '1e-99999', '-0', '12345678901234567890'];
    for (const [i, n] of odd.entries()) {
      const reply = await raw.requestText(
        'POST',
        '/v3/Maps/sec-numbers/Items',
        `{"key":"odd-${i}","data":{"n":${n}}}`,
      );
      expect(reply.header.http_status, n).toMatchObject({ code: 400 });
      expect(reply.body, n).toMatchObject({
        status: 400,
        code: 20001,
        message: expect.stringContaining(`The number ${n} cannot be stored exactly`),
        more_info: expect.any(String),
      });
      expect(await stored('sec-numbers', `odd-${i}`)).toBeUndefined();
    }
    // Numbers that do read back are stored as they were written.
    const fine = await raw.requestText(
      'POST',
      '/v3/Maps/sec-numbers/Items',
      '{"key":"fine","data":{"a":1e21,"b":0.1,"c":-2.5e-7,"d":9007199254740991}}',
    );
    expect(fine.header.http_status).toMatchObject({ code: 201 });
    expect(await stored('sec-numbers', 'fine')).toEqual({
      a: 1e21,
      b: 0.1,
      c: -2.5e-7,
      d: 9007199254740991,
    });
    raw.close();
  });

  it('are refused by the HTTP API too', async () => {
    const res = await fetch(`${server.url}/api/session/local`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"Num","email":"num@example.com","passcode":1e99999}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { code: 'invalid_json', message: expect.stringContaining('1e99999') },
    });
  });
});
