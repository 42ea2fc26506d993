/**
 * The Twilio backend's tokens, decoded and their signature and grants checked, and what the app hands
 * the browser on that backend: Twilio's defaults for the SDKs (no embedded endpoints), Google sign-in
 * only, and a page allowed to reach Twilio.
 */
import {
  personOfClientAddress,
  personOfVoiceIdentity,
  voiceIdentityOf,
} from '../../../../src/contracts/voice-identity';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESENCE } from '../../../../src/contracts/objects';
import { TWILIO_SIGNALLING_URL } from '../../../../server/twilio/cloud';
import { mintTwilioSyncToken, mintTwilioVoiceToken } from '../../../../server/twilio/tokens';
import { expectError, postJson, raw } from '../support';
import {
  ACCOUNT_SID,
  API_KEY,
  API_SECRET,
  APP_SID,
  SERVICE_SID,
  startTwilioApp,
  testTwilioConfig,
  type TwilioTestApp,
} from './support';

const config = testTwilioConfig(null);

interface Decoded {
  header: Record<string, unknown>;
  payload: {
    jti: string;
    iss: string;
    sub: string;
    iat: number;
    exp: number;
    grants: Record<string, unknown>;
  };
}

/** Splits a JWT, checks its HS256 signature under the API key's secret, and decodes it. */
function decode(token: string): Decoded {
  const [h, p, s] = token.split('.');
  const expected = createHmac('sha256', API_SECRET).update(`${h}.${p}`).digest('base64url');
  expect(s).toBe(expected);
  const json = (part: string | undefined) =>
    JSON.parse(Buffer.from(part!, 'base64url').toString()) as unknown;
  return { header: json(h) as Decoded['header'], payload: json(p) as Decoded['payload'] };
}

describe('tokens', () => {
  it('a Sync token: the API key signs it for the account, with the identity and a Sync grant', () => {
    const { header, payload } = decode(mintTwilioSyncToken(config, 'alice@example.com'));
    expect(header).toMatchObject({ alg: 'HS256', typ: 'JWT', cty: 'twilio-fpa;v=1' });
    expect(payload.iss).toBe(API_KEY);
    expect(payload.sub).toBe(ACCOUNT_SID);
    expect(payload.jti.startsWith(`${API_KEY}-`)).toBe(true);
    // Short: a Twilio token cannot be withdrawn, and the SDK renews it before it ends.
    expect(payload.exp - payload.iat).toBe(600);
    expect(payload.grants).toEqual({
      identity: 'alice@example.com',
      data_sync: { service_sid: SERVICE_SID },
    });
  });

  it('a Voice token: outgoing calls through the TwiML app, incoming calls allowed', () => {
    const { payload } = decode(mintTwilioVoiceToken(config, 'bob@example.com', 600));
    expect(payload.exp - payload.iat).toBe(600);
    expect(payload.grants).toEqual({
      identity: 'bob_40example_2ecom',
      voice: { incoming: { allow: true }, outgoing: { application_sid: APP_SID } },
    });
  });

  it('a Voice identity is letters, digits and underscores, and maps back to the person', () => {
    for (const person of [
      'bob@example.com',
      'ann.lee+sales@example.co.uk',
      'o_brien@example.com',
      'zoë@exämple.de',
      'plain',
    ]) {
      const identity = voiceIdentityOf(person);
      expect(identity).toMatch(/^[A-Za-z0-9_]+$/);
      expect(personOfVoiceIdentity(identity)).toBe(person);
      expect(personOfClientAddress(`client:${identity}`)).toBe(person);
    }
    // The same person always gets the same identity; two people never share one.
    expect(voiceIdentityOf('a_b@x.io')).not.toBe(voiceIdentityOf('a.b@x.io'));
    expect(voiceIdentityOf('a_b@x.io')).toBe(voiceIdentityOf('a_b@x.io'));
    // The embedded backend's identities (emails) and phone numbers read as they are.
    expect(personOfClientAddress('client:bob@example.com')).toBe('bob@example.com');
    expect(personOfClientAddress('+442079460000')).toBeNull();
  });

  it('a lifetime beyond a day is cut to a day', () => {
    const { payload } = decode(mintTwilioVoiceToken(config, 'bob@example.com', 7 * 86_400));
    expect(payload.exp - payload.iat).toBe(86_400);
  });
});

describe('the app on the Twilio backend', () => {
  let t: TwilioTestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await startTwilioApp();
    cookie = await t.signIn('Grace@Example.com', 'Grace');
  });
  afterAll(() => t.close());

  const get = (path: string) => fetch(`${t.url}${path}`, { headers: { Cookie: cookie } });

  it('GET /api/config names the backend and offers Google sign-in only', async () => {
    const body = (await (await fetch(`${t.url}/api/config`)).json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      backend: 'twilio',
      localSignIn: false,
      passcodeRequired: false,
      googleClientId: 'switchboard-test.apps.googleusercontent.com',
    });
    const local = await postJson(`${t.url}/api/session/local`, {
      name: 'Eve',
      email: 'eve@example.com',
    });
    expect((await expectError(local)).code).toBe('local_sign_in_disabled');
  });

  it('GET /api/token: a Twilio Sync token, and no client options (Twilio is the default)', async () => {
    const body = (await (await get('/api/token')).json()) as {
      identity: string;
      token: string;
      sync: unknown;
    };
    expect(body.identity).toBe('grace@example.com');
    expect(body.sync).toEqual({});
    expect(decode(body.token).payload.grants).toEqual({
      identity: 'grace@example.com',
      data_sync: { service_sid: SERVICE_SID },
    });
  });

  it("GET /api/voice/token: a Voice token and Device options without this server's signalling", async () => {
    const body = (await (await get('/api/voice/token')).json()) as {
      token: string;
      ttlSeconds: number;
      device: Record<string, unknown>;
      signalling: { url: string };
    };
    // Twilio's client identifiers take letters, digits and underscores only: the email is encoded.
    expect(decode(body.token).payload.grants).toEqual({
      identity: 'grace_40example_2ecom',
      voice: { incoming: { allow: true }, outgoing: { application_sid: APP_SID } },
    });
    expect(decode(body.token).payload.grants.identity).toMatch(/^[A-Za-z0-9_]{1,256}$/);
    // The app's default is an hour; on Twilio a token lives 10 minutes at most.
    expect(body.ttlSeconds).toBe(600);
    expect(decode(body.token).payload.exp - decode(body.token).payload.iat).toBe(600);
    expect(body.device).not.toHaveProperty('chunderw');
    expect(body.device).not.toHaveProperty('publishEvents');
    expect(body.device).toMatchObject({
      enableImprovedSignalingErrorPrecision: true,
      closeProtection: false,
    });
    expect((body.device.sounds as Record<string, string>).incoming).toBe(
      `${t.url}/api/voice/sounds/incoming.wav`,
    );
    expect(body.signalling.url).toBe(TWILIO_SIGNALLING_URL);
  });

  it("GET /api/voice/registration: the dead-phone check follows the page's presence in Sync", async () => {
    const registered = async () =>
      ((await (await get('/api/voice/registration')).json()) as { registered: boolean }).registered;
    // No presence item: no page of Grace's keeps its heartbeat, so her phone is treated as gone
    // (the page that asks registers afresh).
    expect(await registered()).toBe(false);
    t.api.setMapItem(PRESENCE.name, 'grace@example.com', { status: 'away', onCall: false }, 75);
    expect(await registered()).toBe(true);
    // Past its ttl (Twilio deletes it soon after): the page was cut off, its Voice socket with it.
    t.clock.now += 76_000;
    expect(await registered()).toBe(false);
    t.clock.now -= 76_000;
    // Sync cannot say: the check does not claim the phone is dead.
    t.api.failWith(503);
    try {
      expect(await registered()).toBe(true);
    } finally {
      t.api.failWith(null);
    }
  });

  it("the page may reach Twilio's Sync and Voice", async () => {
    const csp = (await fetch(`${t.url}/api/config`)).headers.get('content-security-policy')!;
    expect(csp).toMatch(
      /connect-src 'self' https:\/\/accounts\.google\.com\/gsi\/ https:\/\/\*\.twilio\.com wss:\/\/\*\.twilio\.com;/,
    );
  });

  it('a sign-in writes the person into the users map in Twilio Sync', async () => {
    for (let i = 0; i < 100 && !t.api.maps.get('users')?.has('grace@example.com'); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(t.api.maps.get('users')?.get('grace@example.com')?.data).toEqual({
      name: 'Grace',
      email: 'grace@example.com',
      role: 'admin',
      extension: '100',
    });
    // The server's own objects exist from the start.
    expect([...t.api.maps.keys()]).toEqual(expect.arrayContaining(['users', 'presence', 'holds']));
    expect(t.api.lists.has('calls')).toBe(true);
  });

  it('the Twilio webhooks answer on the public name, which the server now answers to', async () => {
    const res = await raw(t.url, {
      method: 'POST',
      path: '/api/twilio/voice',
      headers: {
        Host: 'switchboard.example.com',
        'Content-Type': 'application/x-www-form-urlencoded',
        'Content-Length': '9',
      },
      chunks: ['CallSid=x'],
    });
    // Past the Host check (421 otherwise), refused for want of a signature.
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'bad_signature' } });
  });
});
