/**
 * SWITCHBOARD_BACKEND=twilio-twins: the server in Twilio mode against its own twins. The Sync twin
 * takes the tokens Twilio mode mints (the `twilio` package's, signed by the account's API key) and
 * refuses others with Twilio's codes; the browser-facing token answer sends the SDK to the twin; the
 * service was set up with ACL on at start, and the server's objects and grants went there through
 * Twilio's REST API; local sign-in is offered (it is not on real Twilio: tests/unit/server/twilio).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTwilioClient } from '../../../server/twilio/client';
import type { TwilioConfig } from '../../../server/twilio/config';
import { mintTwilioSyncToken } from '../../../server/twilio/tokens';
import { TWIN_ACCOUNT } from '../../../server/twins/account';
import { startServer, type RunningServer } from '../../support/server';
import { clientWithToken, RawTwilsock, shutdownClients, signIn, token, waitFor } from './support';

let server: RunningServer;
/** The server's own Twilio settings, read from the same data folder (the same generated secret). */
let config: TwilioConfig;

beforeAll(async () => {
  server = await startServer({
    // A presence item lives 2 s (the dead-phone check's case sees one lapse).
    env: { SWITCHBOARD_BACKEND: 'twilio-twins', SWITCHBOARD_PRESENCE_TTL: '2' },
  });
  config = {
    ...server.account(),
    apiBaseUrl: `${server.url}/twilio`,
  };
});

afterAll(async () => {
  await shutdownClients();
  await server?.stop();
  server?.cleanup();
});

const payloadOf = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;

async function initStatus(jwt: string): Promise<Record<string, unknown>> {
  const raw = await RawTwilsock.open(server.url);
  try {
    return (await raw.init(jwt)).header.status as Record<string, unknown>;
  } finally {
    raw.close();
  }
}

describe('Twilio mode on the twins', () => {
  it('offers local sign-in and says the backend is Twilio on its twins', async () => {
    const body = (await (await fetch(`${server.url}/api/config`)).json()) as Record<
      string,
      unknown
    >;
    expect(body).toMatchObject({ backend: 'twilio-twins', localSignIn: true });
  });

  it('hands out a Twilio token for the made-up account and points the SDK at the twin', async () => {
    const t = await token(server.url, await signIn(server.url, 'ada@example.com'));
    expect(payloadOf(t.token)).toMatchObject({
      iss: TWIN_ACCOUNT.TWILIO_API_KEY,
      sub: TWIN_ACCOUNT.TWILIO_ACCOUNT_SID,
      grants: {
        identity: 'ada@example.com',
        data_sync: { service_sid: TWIN_ACCOUNT.TWILIO_SYNC_SERVICE_SID },
      },
    });
    const { host } = new URL(server.url);
    expect(t.sync).toEqual({ twilsock: { uri: `ws://${host}/v3/wsconnect` }, cdsUri: server.url });

    // The real SDK connects with it and writes what an agent may; the server's objects are read-only.
    const sdk = clientWithToken(t.token, t.sync);
    const contacts = await sdk.map({ id: 'contacts', mode: 'open_existing' });
    await contacts.set('twin-1', { name: 'Grace', company: '', phones: [], email: '', note: '' });
    const users = await sdk.map({ id: 'users', mode: 'open_existing' });
    await waitFor(
      async () => (await users.get('ada@example.com').catch(() => undefined)) ?? undefined,
      10_000,
      'ada in the users directory',
    );
    const refused = await users.set('ada@example.com', { name: 'x' }).then(
      () => null,
      (e: { status?: number }) => e.status,
    );
    expect(refused).toBe(403);
  });

  it('set the Sync service up with ACL on, through Twilio’s REST API', async () => {
    const service = await createTwilioClient(config)
      .sync.v1.services(TWIN_ACCOUNT.TWILIO_SYNC_SERVICE_SID)
      .fetch();
    expect(service.aclEnabled).toBe(true);
  });

  it('takes a token the `twilio` package mints with the account’s API key', async () => {
    await signIn(server.url, 'bob@example.com');
    expect(await initStatus(mintTwilioSyncToken(config, 'bob@example.com'))).toMatchObject({
      code: 200,
    });
  });

  it.each([
    ['signed with another secret', { apiSecret: 'not-the-api-key-secret-at-all' }, 20107],
    ['from an unknown API key', { apiKey: `SK${'e'.repeat(32)}` }, 20103],
    ['for another account', { accountSid: `AC${'e'.repeat(32)}` }, 20103],
    ['for another Sync service', { syncServiceSid: `IS${'e'.repeat(32)}` }, 20106],
  ] as const)('refuses a token %s (%s)', async (_what, change, code) => {
    const jwt = mintTwilioSyncToken({ ...config, ...change }, 'bob@example.com');
    expect(await initStatus(jwt)).toMatchObject({
      code: 401,
      status: 'UNAUTHORIZED',
      errorCode: code,
    });
  });

  it('the dead-phone check (GET /api/voice/registration) reads the page’s presence: gone once it lapses', async () => {
    const cookie = await signIn(server.url, 'rita@example.com');
    const ask = async () => {
      const res = await fetch(`${server.url}/api/voice/registration`, { headers: { cookie } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { registered: boolean }).registered;
    };
    // No page has written her presence: nothing can ring her.
    expect(await ask()).toBe(false);
    // Her page publishes its presence as the app does (the server writes the item, with the
    // server's ttl: 2 s here), then the page stops.
    const published = await fetch(`${server.url}/api/presence`, {
      method: 'PUT',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'available' }),
    });
    expect(published.status).toBe(204);
    expect(await ask()).toBe(true);
    // The item lapses with its ttl: the phone is gone, and the page registers afresh when it asks.
    await expect.poll(ask, { timeout: 10_000, interval: 500 }).toBe(false);
  });

  it('refuses an expired token with 20104, and a malformed one with 20101', async () => {
    const expired = mintTwilioSyncToken(config, 'bob@example.com', 1);
    // A one-second life, two seconds ago.
    await new Promise((r) => setTimeout(r, 2100));
    expect(await initStatus(expired)).toMatchObject({ code: 401, errorCode: 20104 });
    expect(await initStatus('not-a-token')).toMatchObject({ code: 401, errorCode: 20101 });
  });
});

describe('the slow-Sync test hook, SWITCHBOARD_TEST_SYNC_DELAY_MS', () => {
  let slow: RunningServer;
  let slowConfig: TwilioConfig;
  beforeAll(async () => {
    slow = await startServer({
      env: { SWITCHBOARD_BACKEND: 'twilio-twins', SWITCHBOARD_TEST_SYNC_DELAY_MS: '300' },
    });
    slowConfig = {
      ...slow.account(),
      apiBaseUrl: `${slow.url}/twilio`,
    };
  });
  afterAll(async () => {
    await slow?.stop();
    slow?.cleanup();
  });

  it('answers every Sync REST read that much later, and the server says so', async () => {
    expect(slow.output()).toContain('TEST HOOK: every Sync REST read is answered 300 ms late');
    const service = createTwilioClient(slowConfig).sync.v1.services(slowConfig.syncServiceSid);
    await service.syncMaps.create({ uniqueName: 'slow-map' });
    const start = performance.now();
    expect((await service.syncMaps('slow-map').fetch()).uniqueName).toBe('slow-map');
    expect(performance.now() - start).toBeGreaterThanOrEqual(300);
  });

  it('stops the server on a delay that is not a whole number of ms up to 10 000', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-test-'));
    try {
      await expect(
        startServer({
          dataDir,
          env: { SWITCHBOARD_BACKEND: 'twilio-twins', SWITCHBOARD_TEST_SYNC_DELAY_MS: 'slow' },
        }),
      ).rejects.toThrow(/SWITCHBOARD_TEST_SYNC_DELAY_MS must be a whole number of ms, 0 to 10000/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
