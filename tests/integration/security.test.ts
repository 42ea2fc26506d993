/**
 * Lost rights, tried as an attacker would, against Twilio's rules: a Sync token is a Twilio access
 * token (signed with the account's API key, ten minutes long) that nobody can withdraw once handed
 * out. So a removed person loses every permission on the service's objects (its ACL) within
 * moments, and their live socket and last token then read and write nothing; no new token is handed
 * out to them or to a signed-out session; the tokens already out lapse on their own; an expired,
 * forged or foreign token is refused with Twilio's codes. And numbers that would not read back as
 * written are refused with the service's error shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../support/access-tokens';
import { startServer, type RunningServer } from '../support/server';
import {
  accountToken,
  clientWithToken,
  httpCode,
  type RawFrame,
  RawTwilsock,
  shutdownClients,
  signIn,
  token,
  waitFor,
} from './sync/support';

let server: RunningServer;
let adminCookie: string;
let admin: RawTwilsock;

beforeAll(async () => {
  server = await startServer({ env: { SWITCHBOARD_SYNC_SWEEP_MS: '200' } });
  adminCookie = await signIn(server.url, 'ada@example.com');
  admin = await RawTwilsock.open(server.url);
  await admin.init((await token(server.url, adminCookie)).token);
}, 60_000);
afterAll(async () => {
  admin?.close();
  await shutdownClients();
  await server.stop();
  server.cleanup();
});

/** A contact as its record accepts it (the server puts right a write that breaks it). */
const contact = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  phones: [{ label: 'Work', number: '+442079460958' }],
  ...extra,
});

/** A contact as the service holds it, read by the admin; undefined when there is none. */
async function stored(key: string): Promise<unknown> {
  const reply = await admin.request('GET', `/v3/Maps/contacts/Items/${encodeURIComponent(key)}`);
  return httpCode(reply) === 200 ? (reply.body as { data: unknown }).data : undefined;
}

/** A raw Twilsock socket initialised with `jwt`; resolves with the init reply's status. */
async function rawWith(
  jwt: string,
): Promise<{ raw: RawTwilsock; status: Record<string, unknown> }> {
  const raw = await RawTwilsock.open(server.url);
  const reply = await raw.init(jwt);
  return { raw, status: reply.header.status as Record<string, unknown> };
}

/**
 * How the service answered a request: run and allowed, refused by the ACL (Twilio's 403 / 54007),
 * or not run at all (the socket's token refused: 401); anything else is the reply, for the report.
 */
function outcome(reply: RawFrame): string {
  const status = reply.header.status as { code?: number } | undefined;
  if (status?.code === 401) return 'unauthorized';
  const code = httpCode(reply);
  if (code > 0 && code < 400) return 'allowed';
  const body = reply.body as { status?: number; code?: number; message?: string } | undefined;
  if (
    code === 403 &&
    body?.status === 403 &&
    body.code === 54007 &&
    /^Access forbidden for identity/.test(body.message ?? '')
  )
    return 'forbidden';
  return `${code} ${JSON.stringify(reply.body)}`;
}

/** The error a promise is rejected with (fails when it is not). */
async function refusalOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('the call was not refused');
}

const removeUser = (identity: string) =>
  fetch(`${server.url}/api/users/${encodeURIComponent(identity)}`, {
    method: 'DELETE',
    headers: { Cookie: adminCookie },
  });
const tokenStatus = async (cookie: string): Promise<number> =>
  (await fetch(`${server.url}/api/token`, { headers: { cookie } })).status;

/** The claims of a Twilio access token. */
const claims = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as {
    iss: string;
    sub: string;
    iat: number;
    exp: number;
    grants: { identity: string; data_sync?: { service_sid: string } };
  };

describe('a removed person', () => {
  it('loses every permission within moments: their live socket and their last token read and write nothing, and no new token is handed out', async () => {
    const cookie = await signIn(server.url, 'mallory@example.com');
    const { token: jwt } = await token(server.url, cookie);
    const { raw, status } = await rawWith(jwt);
    expect(status.code).toBe(200);
    expect(
      outcome(
        await raw.request('POST', '/v3/Maps/contacts/Items', {
          key: 'mal-before',
          data: contact('Before'),
        }),
      ),
    ).toBe('allowed');
    expect(outcome(await raw.request('GET', '/v3/Maps/users'))).toBe('allowed');

    expect((await removeUser('mallory@example.com')).status).toBe(204);
    // No new token, from the session they had.
    expect(await tokenStatus(cookie)).toBe(401);
    // Their permissions go in the background, object by object: within moments their live socket
    // reads nothing.
    const reads = (socket: RawTwilsock) =>
      Promise.all([
        socket.request('GET', '/v3/Maps/users'),
        socket.request('GET', '/v3/Maps/contacts'),
        socket.request('GET', '/v3/Maps/contacts/Items', undefined, { PageSize: '10' }),
        socket.request('GET', '/v3/Lists/calls/Items'),
        socket.request('GET', '/v3/Documents/team-settings'),
        socket.request(
          'GET',
          `/v3/Documents/${encodeURIComponent('settings:mallory@example.com')}`,
        ),
      ]);
    const started = Date.now();
    await waitFor(
      async () => (await reads(raw)).every((reply) => outcome(reply) === 'forbidden'),
      5000,
      'the removed person to lose every read permission',
    );
    console.log(`[security] a removed person read nothing after ${Date.now() - started} ms`);
    const attempts = async (socket: RawTwilsock, key: string) => [
      ...(await reads(socket)),
      await socket.request('POST', '/v3/Maps/contacts/Items', { key, data: contact('After') }),
      await socket.request('PUT', '/v3/Maps/contacts/Items/mal-before', {
        data: contact('Changed'),
      }),
      await socket.request('DELETE', '/v3/Maps/contacts/Items/mal-before'),
      await socket.request('POST', '/v3/Maps', { unique_name: 'mallory-own' }),
    ];
    for (const reply of await attempts(raw, 'mal-after'))
      expect(outcome(reply), JSON.stringify(reply.header)).toBe('forbidden');
    raw.close();

    // The old token on a fresh socket: Twilio cannot withdraw a token, but its identity holds nothing.
    const again = await rawWith(jwt);
    for (const reply of await attempts(again.raw, 'mal-again'))
      expect(['forbidden', 'unauthorized'], JSON.stringify(reply.header)).toContain(outcome(reply));
    // Nor can it subscribe to an object to hear of its changes.
    const contactsSid = ((await admin.request('GET', '/v3/Maps/contacts')).body as { sid: string })
      .sid;
    await again.raw.request('POST', '/v4/Subscriptions', {
      action: 'establish',
      correlation_id: 7001,
      requests: [{ object_sid: contactsSid, object_type: 'map', last_event_id: null }],
    });
    const subscribed = await waitFor(
      () =>
        again.raw.frames.find(
          (f) => (f.body as { correlation_id?: number } | undefined)?.correlation_id === 7001,
        ),
      5000,
      'the subscription outcome',
    );
    expect(subscribed.body).toMatchObject({
      event_type: 'subscription_failed',
      events: [{ error: { status: 403, code: 54007 } }],
    });
    again.raw.close();
    expect(await stored('mal-after')).toBeUndefined();
    expect(await stored('mal-again')).toBeUndefined();
    expect(await stored('mal-before')).toEqual(contact('Before'));
  });

  /** Someone on the team with a real SDK client, listening to `contacts`. */
  async function listener(email: string) {
    const cookie = await signIn(server.url, email);
    const t = await token(server.url, cookie);
    const sdk = clientWithToken(t.token, t.sync);
    const contacts = await sdk.map({ id: 'contacts', mode: 'open_existing' });
    // What others change, as the SDK tells it (its own writes are left out).
    const heard: string[] = [];
    type Changed = { isLocal: boolean; item?: { key: string }; key?: string };
    const hear = (e: Changed) => {
      if (!e.isLocal) heard.push(e.item?.key ?? e.key ?? '?');
    };
    contacts.on('itemAdded', hear);
    contacts.on('itemUpdated', hear);
    contacts.on('itemRemoved', hear);
    // A colleague's write reaches them while they are on the team (their subscription is live).
    const key = `seen-by-${email}`;
    expect(
      httpCode(
        await admin.request('POST', '/v3/Maps/contacts/Items', { key, data: contact('Seen') }),
      ),
    ).toBe(201);
    await waitFor(() => heard.includes(key), 5000, 'the colleague’s write');
    return { sdk, contacts, heard };
  }

  it('is refused by the real SDK too', async () => {
    const { sdk, contacts } = await listener('trudy@example.com');
    await contacts.set('trudy-1', contact('Trudy'));
    expect((await removeUser('trudy@example.com')).status).toBe(204);
    // Her permissions go in the background: within moments her writes are refused.
    let tries = 0;
    const error = await waitFor(
      () =>
        contacts.set(`trudy-late-${++tries}`, contact('Late')).then(
          () => false as const,
          (e: { status?: number; code?: number }) => e,
        ),
      5000,
      'the SDK write to be refused',
    );
    expect(error).toMatchObject({ status: 403, code: 54007 });
    expect(await refusalOf(contacts.set('trudy-after', contact('After')))).toMatchObject({
      status: 403,
      code: 54007,
    });
    expect(await refusalOf(sdk.map({ id: 'users', mode: 'open_existing' }))).toMatchObject({
      status: 403,
      code: 54007,
    });
    expect(await stored('trudy-after')).toBeUndefined();
    expect(await stored('trudy-1')).toEqual(contact('Trudy'));
  });

  it('hears of no change after, on a subscription opened while on the team', async () => {
    const { contacts, heard } = await listener('oscar@example.com');
    expect((await removeUser('oscar@example.com')).status).toBe(204);
    // Once his permissions are gone (his own write is refused)…
    let tries = 0;
    await waitFor(
      () =>
        contacts.set(`oscar-late-${++tries}`, contact('Late')).then(
          () => false as const,
          (e: { status?: number }) => e.status === 403,
        ),
      5000,
      'his write to be refused',
    );
    // …what colleagues write does not reach him either: reading it is what he may no longer do.
    for (const [method, path, body] of [
      ['POST', '/v3/Maps/contacts/Items', { key: 'hidden-from-oscar', data: contact('Hidden') }],
      ['POST', '/v3/Maps/contacts/Items/seen-by-oscar@example.com', { data: contact('Changed') }],
    ] as const)
      expect(httpCode(await admin.request(method, path, body)), path).toBeLessThan(300);
    await new Promise((r) => setTimeout(r, 1000));
    expect(heard).toEqual(['seen-by-oscar@example.com']);
  });
});

describe('a signed-out session', () => {
  it('gets no new token, leaves the person’s other sessions alone, and its last token lapses on its own within ten minutes', async () => {
    const laptop = await signIn(server.url, 'sam@example.com');
    const phone = await signIn(server.url, 'sam@example.com');
    const laptopToken = (await token(server.url, laptop)).token;
    const fromPhone = await rawWith((await token(server.url, phone)).token);
    // A Twilio access token for the team's Sync service, signed with the account's API key, that
    // lives ten minutes (nobody can withdraw it before).
    const account = server.account();
    const c = claims(laptopToken);
    expect(c).toMatchObject({
      iss: account.apiKey,
      sub: account.accountSid,
      grants: { identity: 'sam@example.com', data_sync: { service_sid: account.syncServiceSid } },
    });
    expect(c.exp - c.iat).toBe(600);

    const out = await fetch(`${server.url}/api/session/logout`, {
      method: 'POST',
      headers: { Cookie: laptop },
    });
    expect(out.status).toBe(204);
    expect(await tokenStatus(laptop)).toBe(401);
    expect(await tokenStatus(phone)).toBe(200);
    // The other session's socket still works.
    expect(
      outcome(
        await fromPhone.raw.request('POST', '/v3/Maps/contacts/Items', {
          key: 'phone',
          data: contact('Phone'),
        }),
      ),
    ).toBe('allowed');
    fromPhone.raw.close();
  });
});

describe('signing out everywhere', () => {
  it('takes the presence item away when the last session ends, not before', async () => {
    const first = await signIn(server.url, 'pat@example.com');
    const second = await signIn(server.url, 'pat@example.com');
    const presence = async (): Promise<unknown> => {
      const reply = await admin.request('GET', '/v3/Maps/presence/Items/pat%40example.com');
      return httpCode(reply) === 200 ? (reply.body as { data: unknown }).data : undefined;
    };
    const set = await fetch(`${server.url}/api/presence`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Cookie: second },
      body: JSON.stringify({ status: 'available' }),
    });
    expect(set.status).toBe(204);
    const logout = (cookie: string) =>
      fetch(`${server.url}/api/session/logout`, { method: 'POST', headers: { Cookie: cookie } });
    expect((await logout(first)).status).toBe(204);
    // (the server adds `onCall`, which is its own to say)
    expect(await presence()).toEqual({ status: 'available', onCall: false });
    expect((await logout(second)).status).toBe(204);
    await waitFor(async () => (await presence()) === undefined, 5000, 'the presence item to go');
  });
});

describe('tokens the service refuses', () => {
  it('has nothing accepted from a client that ignores the expiry close', async () => {
    // Signed in, and her permissions in place (as before any token is handed out).
    await token(server.url, await signIn(server.url, 'eve@example.com'));
    // Signed with the account's key long ago, with just over a second left.
    const jwt = accountToken(server, 'eve@example.com', 3, Date.now() - 1500);
    const { raw, status } = await rawWith(jwt);
    expect(status.code).toBe(200);
    // While it lasts, eve (on the team) may write contacts.
    expect(
      outcome(
        await raw.request('POST', '/v3/Maps/contacts/Items', {
          key: 'eve-early',
          data: contact('Early'),
        }),
      ),
    ).toBe('allowed');
    await waitFor(
      () => raw.frames.some((f) => f.header.method === 'close'),
      10_000,
      'expiry close',
    );
    // It keeps writing as if nothing happened, before the server closes the socket.
    const replies = await Promise.all(
      [0, 1, 2].map((i) =>
        raw.request('POST', '/v3/Maps/contacts/Items', {
          key: `eve-late-${i}`,
          data: contact(`Late ${i}`),
        }),
      ),
    );
    for (const r of replies) expect(r.header.status).toMatchObject({ code: 401, errorCode: 20104 });
    raw.close();
    for (const i of [0, 1, 2]) expect(await stored(`eve-late-${i}`)).toBeUndefined();
    expect(await stored('eve-early')).toEqual(contact('Early'));
  });

  it('refuses an expired, forged, foreign or grant-less token at connect with Twilio’s codes', async () => {
    const account = server.account();
    const now = Math.floor(Date.now() / 1000);
    const grants = {
      identity: 'ada@example.com',
      data_sync: { service_sid: account.syncServiceSid },
    };
    const good = accountToken(server, 'ada@example.com', 600);
    const [head, body] = good.split('.');
    const b64 = (v: object): string => Buffer.from(JSON.stringify(v)).toString('base64url');
    const cases: Array<[string, string, number]> = [
      ['malformed', 'not-a-jwt', 20101],
      ['expired', accountToken(server, 'ada@example.com', 60, Date.now() - 120_000), 20104],
      [
        'signed with another secret',
        signToken({ ...account, apiSecret: 'guessed' }, grants, now),
        20107,
      ],
      ['its signature cut off', `${head}.${body}.`, 20107],
      [
        'its claims changed after signing',
        `${head}.${b64({ ...claims(good), grants: { ...grants, identity: 'root' } })}.${good.split('.')[2]}`,
        20107,
      ],
      [
        'signed by a key the account does not have',
        signToken(
          { accountSid: 'AC' + 'f'.repeat(32), apiKey: 'SK' + 'e'.repeat(32), apiSecret: 'x' },
          grants,
          now,
        ),
        20103,
      ],
      [
        'the account key, for another account',
        signToken({ ...account, accountSid: 'AC' + '1'.repeat(32) }, grants, now),
        20103,
      ],
      ['no Sync grant', signToken(account, { identity: 'ada@example.com' }, now), 20106],
      [
        'another Sync service',
        signToken(
          account,
          { identity: 'ada@example.com', data_sync: { service_sid: 'IS' + '0'.repeat(31) + '1' } },
          now,
        ),
        20106,
      ],
    ];
    for (const [what, jwt, code] of cases) {
      const { raw, status } = await rawWith(jwt);
      expect(status, what).toMatchObject({ code: 401, status: 'UNAUTHORIZED', errorCode: code });
      // Nothing is run on a socket whose token was refused.
      const write = await raw.request('POST', '/v3/Maps/contacts/Items', {
        key: `forged-${code}`,
        data: contact('Forged'),
      });
      expect(write.header.status, what).toMatchObject({ code: 401 });
      raw.close();
      expect(await stored(`forged-${code}`), what).toBeUndefined();
    }
  });

  it('grants nothing to an identity the team does not have, whoever signed its token', async () => {
    // A well-signed token for someone never on the team: the ACL gives that identity nothing.
    const { raw, status } = await rawWith(accountToken(server, 'stranger@example.com', 600));
    expect(status.code).toBe(200);
    for (const reply of [
      await raw.request('GET', '/v3/Maps/users'),
      await raw.request('GET', '/v3/Maps/contacts/Items'),
      await raw.request('GET', '/v3/Documents/team-settings'),
      await raw.request('POST', '/v3/Maps/contacts/Items', { key: 'stranger', data: contact('S') }),
      await raw.request('POST', '/v3/Documents', { unique_name: 'settings:stranger@example.com' }),
    ])
      expect(outcome(reply), JSON.stringify(reply.body)).toBe('forbidden');
    raw.close();
    expect(await stored('stranger')).toBeUndefined();
  });
});

describe('numbers that would not read back as written', () => {
  it('are refused with the service error shape, and nothing is stored', async () => {
    const odd = ['1e99999', '-1e99999', '1e-99999', '-0', '12345678901234567890'];
    const phones = '[{"label":"Work","number":"+442079460958"}]';
    for (const [i, n] of odd.entries()) {
      const reply = await admin.requestText(
        'POST',
        '/v3/Maps/contacts/Items',
        `{"key":"odd-${i}","data":{"name":"Odd","phones":${phones},"n":${n}}}`,
      );
      expect(reply.header.http_status, n).toMatchObject({ code: 400 });
      expect(reply.body, n).toMatchObject({
        status: 400,
        code: 20001,
        message: expect.stringContaining(`The number ${n} cannot be stored exactly`),
        more_info: expect.any(String),
      });
      expect(await stored(`odd-${i}`)).toBeUndefined();
    }
    // Numbers that do read back are stored as they were written.
    const fine = await admin.requestText(
      'POST',
      '/v3/Maps/contacts/Items',
      `{"key":"fine","data":{"name":"Fine","phones":${phones},"a":1e21,"b":0.1,"c":-2.5e-7,"d":9007199254740991}}`,
    );
    expect(fine.header.http_status).toMatchObject({ code: 201 });
    expect(await stored('fine')).toEqual(
      contact('Fine', { a: 1e21, b: 0.1, c: -2.5e-7, d: 9007199254740991 }),
    );
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
