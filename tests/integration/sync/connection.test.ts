/** Connection life: a dropped socket heals by replay, token updates, token expiry, and bad tokens. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { signToken } from '../../support/access-tokens';
import { startServer, type RunningServer } from '../../support/server';
import {
  accountToken,
  aclOff,
  clientWithToken,
  RawTwilsock,
  shutdownClients,
  syncOptions,
  waitFor,
} from './support';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function unsignedToken(payload: object, secret = 'not-the-account-key-secret'): string {
  const b64 = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = `${b64({ typ: 'JWT', alg: 'HS256', cty: 'twilio-fpa;v=1' })}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** An API key the account does not have (Twilio answers its tokens 20103). */
const UNKNOWN_KEY = {
  accountSid: 'AC' + 'f'.repeat(32),
  apiKey: 'SK' + 'e'.repeat(32),
  apiSecret: 'a-made-up-api-key-secret',
};

describe('connection', () => {
  let server: RunningServer;
  const tokenFor = (identity: string, ttl = 600, nowMs = Date.now()): string =>
    accountToken(server, identity, ttl, nowMs);
  /** The issuer and subject of the account's tokens (its API key and the account). */
  const accountKey = (): { iss: string; sub: string } => ({
    iss: server.account().apiKey,
    sub: server.account().accountSid,
  });
  const sdk = (identity: string, ttl = 600): ReturnType<typeof clientWithToken> =>
    clientWithToken(tokenFor(identity, ttl), syncOptions(server.url));

  beforeAll(async () => {
    server = await startServer({ env: { SWITCHBOARD_SYNC_TEST_HOOKS: '1' } });
    await aclOff(server);
  });
  afterAll(async () => {
    await shutdownClients();
    await server.stop();
    server.cleanup();
  });

  it('replays what a client missed while its socket was down', async () => {
    const alice = sdk('alice');
    const bob = sdk('bob');
    const la = await alice.list('drop-list');
    const lb = await bob.list('drop-list');
    const states: string[] = [];
    bob.on('connectionStateChanged', (s: string) => states.push(s));
    const seen: Array<[number, boolean]> = [];
    lb.on('itemAdded', (e: { item: { index: number }; isLocal: boolean }) =>
      seen.push([e.item.index, e.isLocal]),
    );
    await sleep(300);
    await la.push({ before: true });
    await waitFor(() => seen.length === 1, 5000, 'first item');

    const raw = await RawTwilsock.open(server.url);
    await raw.init(tokenFor('tester'));
    const drop = await raw.request('POST', '/test/drop', { identity: 'bob' });
    expect(drop.body).toEqual({ dropped: 1 });
    raw.close();
    await waitFor(() => states.includes('connecting'), 5000, 'bob to notice the drop');
    for (let i = 0; i < 3; i++) await la.push({ missed: i });

    await waitFor(() => seen.length === 4, 15_000, 'missed items replayed');
    expect(seen.map(([, local]) => local)).toEqual([false, false, false, false]);
    expect(seen.map(([i]) => i)).toEqual([0, 1, 2, 3]);
    expect(states.slice(-1)).toEqual(['connected']);
    // The replay healed bob's view: it now agrees with the server.
    expect(lb.lastEventId).toBe(4);
    await lb.push({ after: true });
    expect((await la.getItems({})).items).toHaveLength(5);
  });

  it('accepts a token update for the same identity', async () => {
    const carol = sdk('carol');
    await carol.document('token-doc');
    await carol.updateToken(tokenFor('carol', 900));
    expect(carol.connectionState).toBe('connected');
    const doc = await carol.document('token-doc');
    await doc.set({ renewed: true });
    expect(doc.data).toEqual({ renewed: true });
  });

  it('rejects a token update with a bad signature as 51130 and denies the connection', async () => {
    const dave = sdk('dave');
    await dave.document('token-doc');
    const bad = unsignedToken({
      ...accountKey(),
      exp: Math.floor(Date.now() / 1000) + 600,
      grants: { identity: 'dave', data_sync: {} },
    });
    const e = await dave.updateToken(bad).then(
      () => null,
      (err: { message: string; status: number; code: number }) => err,
    );
    expect(e).toMatchObject({ status: 400, code: 51130 });
    expect(e?.message).toMatch(/^Updated token was rejected by server/);
    expect(dave.connectionState).toBe('denied');
  });

  it('warns before expiry and closes with tokenExpired at expiry', async () => {
    // Issued 180 s ago with a 182 s life: two seconds left, inside the three-minute warning window.
    const token = tokenFor('erin', 182, Date.now() - 180_000);
    const erin = clientWithToken(token, syncOptions(server.url));
    const events: string[] = [];
    erin.on('tokenAboutToExpire', () => events.push('tokenAboutToExpire'));
    erin.on('tokenExpired', () => events.push('tokenExpired'));
    await waitFor(() => events.includes('tokenExpired'), 10_000, 'tokenExpired');
    expect(events).toEqual(['tokenAboutToExpire', 'tokenExpired']);
    await waitFor(() => erin.connectionState === 'disconnected' || undefined, 5000, 'disconnected');
  });

  it('keeps a client connected when it renews its token on tokenAboutToExpire', async () => {
    const frank = clientWithToken(
      tokenFor('frank', 182, Date.now() - 180_000),
      syncOptions(server.url),
    );
    const events: string[] = [];
    frank.on('tokenAboutToExpire', () => {
      events.push('tokenAboutToExpire');
      void frank.updateToken(tokenFor('frank', 600));
    });
    frank.on('tokenExpired', () => events.push('tokenExpired'));
    await waitFor(() => events.includes('tokenAboutToExpire'), 5000, 'warning');
    await sleep(3000);
    expect(events).toEqual(['tokenAboutToExpire']);
    expect(frank.connectionState).toBe('connected');
    await (await frank.map('renewed-map')).set('k', { ok: true });
  });

  it('denies bad tokens at connect with the Twilio error codes', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string, number]> = [
      ['malformed', 'not-a-jwt', 20101],
      [
        'bad signature',
        unsignedToken({
          ...accountKey(),
          exp: now + 600,
          grants: { identity: 'x', data_sync: {} },
        }),
        20107,
      ],
      [
        'signed by a key the account does not have',
        signToken(UNKNOWN_KEY, { identity: 'x', data_sync: {} }, now, 600),
        20103,
      ],
      ['expired', tokenFor('gina', 60, Date.now() - 120_000), 20104],
    ];
    for (const [what, jwt, code] of cases) {
      const c = clientWithToken(jwt, syncOptions(server.url));
      const errors: unknown[] = [];
      c.on('connectionError', (e) => {
        errors.push(e);
      });
      await waitFor(() => errors.length > 0 || undefined, 10_000, `${what} connectionError`);
      await waitFor(() => c.connectionState === 'denied' || undefined, 10_000, `${what} denied`);
      expect(errors[0], what).toMatchObject({
        terminal: true,
        errorCode: code,
        httpStatusCode: 401,
      });
    }
  });

  it('denies a token without a data_sync grant, or for another service, with 20106', async () => {
    const raw = await RawTwilsock.open(server.url);
    const now = Math.floor(Date.now() / 1000);
    // Signed with the account's key: only the grant is wrong.
    for (const grants of [
      { identity: 'h' },
      { identity: 'h', data_sync: { service_sid: 'IS' + '0'.repeat(32) } },
    ]) {
      const reply = await raw.init(signToken(server.account(), grants, now, 600));
      expect(reply.header.status, JSON.stringify(grants)).toMatchObject({
        code: 401,
        status: 'UNAUTHORIZED',
        errorCode: 20106,
      });
    }
    raw.close();
  });

  it('offers the session-storage id to browser SDKs and not to Node, where it has no storage', async () => {
    const initAs = async (env?: string): Promise<Record<string, unknown>> => {
      const raw = await RawTwilsock.open(server.url);
      const reply = await raw.call({
        method: 'init',
        token: tokenFor('ivy'),
        continuation_token: null,
        ...(env ? { metadata: { ver: '1.0.2', env, type: 'sync', sdk: 'JS', sdkv: '4.0.1' } } : {}),
        registrations: [],
      });
      raw.close();
      expect(reply.header.status).toEqual({ code: 200, status: 'OK' });
      return reply.header;
    };
    const browser = await initAs('Chrome');
    expect(browser.offline_storage).toEqual({
      data_sync: { storage_id: expect.stringMatching(/^sb-[0-9a-f]{16}$/) },
    });
    expect((await initAs()).offline_storage).toEqual(browser.offline_storage);
    expect((await initAs('Node.js')).offline_storage).toBeUndefined();
  });
});
