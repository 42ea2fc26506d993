/**
 * The voice signalling endpoint under attack: forged, expired, foreign and revoked tokens, messages
 * before sign-in, calls that are not yours, floods. Each gets the SDK's error (and `close` where
 * access is refused), changes nothing, and the server keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateSecret } from '../../../server/platform/lib/access-token';
import { mintAccessToken } from '../../../server/sync/token';
import { mintVoiceToken } from '../../../server/twins/voice/token';
import { startServer, type RunningServer } from '../../support/server';
import { token as syncToken } from '../sync/support';
import { listening, RawSignal, voiceToken } from './support';

let server: RunningServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
});

const errorOf = (f: { payload: Record<string, unknown> }) =>
  f.payload.error as { code: number; message: string };

async function refusedWith(tokenValue: unknown, code: number): Promise<string> {
  const s = await RawSignal.open(server.url);
  s.send('listen', { token: tokenValue, reconnectTimeout: 0 });
  const err = await s.next((f) => f.type === 'error');
  expect(errorOf(err).code).toBe(code);
  // The SDK stops reconnecting only on `close`; the socket ends too.
  await s.next((f) => f.type === 'close');
  await s.waitClosed();
  expect(s.frames.some((f) => f.type === 'connected')).toBe(false);
  return errorOf(err).message;
}

describe('tokens', () => {
  it('refuses garbage, forged, expired, over-long and foreign tokens with the SDK codes, then closes', async () => {
    const secret = loadOrCreateSecret(server.dataDir, 'voice-secret');
    const now = Math.floor(Date.now() / 1000);
    await refusedWith('not-a-jwt', 31204);
    const good = (await voiceToken(server.url, 'mallory@example.com')).token;
    const [h, p] = good.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), grants: { identity: 'boss@example.com', voice: { incoming: { allow: true } } } })).toString('base64url')}.${good.split('.')[2]}`;
    await refusedWith(forged, 31202);
    await refusedWith(mintVoiceToken(secret, 'mallory@example.com', now - 7200, 3600), 31205);
    await refusedWith(mintVoiceToken(secret, 'mallory@example.com', now, 90_000), 31207);
    // A Sync token is signed with another secret and carries no voice grant.
    const cookie = (await voiceToken(server.url, 'mallory@example.com')).cookie;
    await refusedWith((await syncToken(server.url, cookie)).token, 31202);
    const syncSecret = loadOrCreateSecret(server.dataDir, 'sync-secret');
    expect(syncSecret.equals(secret)).toBe(false);
    await refusedWith(mintAccessToken(secret, 'mallory@example.com', now), 31201);
    await refusedWith(42, 31204);
  });

  it('refuses a second identity on the same socket', async () => {
    const s = await listening(server.url, 'ann@example.com');
    const other = await voiceToken(server.url, 'bob@example.com');
    const from = s.frames.length;
    s.send('listen', { token: other.token, reconnectTimeout: 0 });
    expect(errorOf(await s.next((f) => f.type === 'error', from)).code).toBe(31204);
    await s.waitClosed();
  });

  it('answers messages before listen with 31204 and keeps nothing', async () => {
    const s = await RawSignal.open(server.url);
    s.send('register', { media: { audio: true } });
    expect(errorOf(await s.next((f) => f.type === 'error')).code).toBe(31204);
    s.send('invite', {
      callsid: 'TJSabc',
      sdp: 'v=0\r\n',
      twilio: { params: 'To=ann%40example.com' },
    });
    expect(errorOf(await s.next((f) => f.type === 'error', 1)).code).toBe(31204);
    expect(s.frames.some((f) => f.type === 'ready')).toBe(false);
    s.close();
  });

  it('ends a signed-out session at once', async () => {
    const t = await voiceToken(server.url, 'sam@example.com');
    const s = await RawSignal.open(server.url);
    s.send('listen', { token: t.token, reconnectTimeout: 0 });
    await s.next((f) => f.type === 'connected');
    const out = await fetch(`${server.url}/api/session/logout`, {
      method: 'POST',
      headers: { cookie: t.cookie, origin: server.url },
    });
    expect(out.status).toBeLessThan(300);
    expect(errorOf(await s.next((f) => f.type === 'error')).code).toBe(31204);
    await s.waitClosed();
    // The old token no longer opens a socket.
    await refusedWith(t.token, 31204);
  });
});

describe('calls that are not yours and bad frames', () => {
  it('refuses answers, rejects and hangups for unknown call ids without touching anything', async () => {
    const s = await listening(server.url, 'eve@example.com');
    for (const type of ['answer', 'reject', 'hangup', 'reinvite', 'dtmf', 'message']) {
      const from = s.frames.length;
      s.send(type, {
        callsid: 'CA0123456789abcdef0123456789abcdef',
        sdp: 'v=0\r\n',
        dtmf: '1',
        voiceeventsid: 'KX1',
        content: {},
        contenttype: 'application/json',
        messagetype: 'user-defined-message',
      });
      const err = await s.next((f) => f.type === 'error', from);
      expect(errorOf(err).code).toBe(31100);
    }
    s.close();
  });

  it('answers malformed frames with 31100 and a readable message, and keeps the socket', async () => {
    const s = await listening(server.url, 'fuzz@example.com');
    const bad = [
      'not json',
      '[]',
      '{"type":42}',
      '{"type":"invite","payload":{"callsid":"TJS1"}}',
      '{"type":"invite","payload":{"callsid":"TJS1","sdp":"nope"}}',
      '{"type":"register","payload":{"media":{"audio":"yes"}}}',
      '{"type":"dtmf","payload":{"callsid":"CA1","dtmf":"<script>"}}',
      '{"type":"whoami","payload":{}}',
      '{"type":"listen","payload":"x"}',
    ];
    for (const text of bad) {
      const from = s.frames.length;
      s.sendText(text);
      const err = await s.next((f) => f.type === 'error', from);
      expect(errorOf(err).code).toBe(31100);
      expect(errorOf(err).message).toMatch(/^(Malformed|Unknown)/);
    }
    s.sendText(Buffer.from([1, 2, 3]));
    expect(
      errorOf(await s.next((f) => f.type === 'error' && /binary/.test(errorOf(f).message))).code,
    ).toBe(31100);
    expect(s.closed).toBe(false);
    s.close();
  });

  it('closes a socket that floods, and serves the next one', async () => {
    const s = await listening(server.url, 'flood@example.com');
    for (let i = 0; i < 500; i++)
      s.sendText('{"type":"register","payload":{"media":{"audio":true}}}');
    const err = await s.next((f) => f.type === 'error' && errorOf(f).code === 31206);
    expect(errorOf(err).message).toMatch(/Rate limit/);
    await s.waitClosed();
    const fresh = await listening(server.url, 'flood@example.com');
    expect(fresh.frames.some((f) => f.type === 'ready')).toBe(true);
    fresh.close();
  });
});

describe('GET /api/voice/registration', () => {
  it('says whether the service can ring the signed-in person, and nobody else', async () => {
    const anon = await fetch(`${server.url}/api/voice/registration`);
    expect(anon.status).toBe(401);

    const t = await voiceToken(server.url, 'rita@example.com');
    const ask = async () => {
      const res = await fetch(`${server.url}/api/voice/registration`, {
        headers: { cookie: t.cookie },
      });
      expect(res.status).toBe(200);
      return (await res.json()) as unknown;
    };
    expect(await ask()).toEqual({ registered: false });

    const s = await RawSignal.open(server.url);
    s.send('listen', { token: t.token, reconnectTimeout: 0 });
    await s.next((f) => f.type === 'connected');
    expect(await ask()).toEqual({ registered: false }); // connected is not registered
    s.send('register', { media: { audio: true } });
    await s.next((f) => f.type === 'ready');
    expect(await ask()).toEqual({ registered: true });

    // Someone else registering changes nothing for Rita.
    const other = await listening(server.url, 'otto@example.com');
    s.send('register', { media: { audio: false } });
    await s.next((f) => f.type === 'offline');
    expect(await ask()).toEqual({ registered: false });

    s.send('register', { media: { audio: true } });
    await s.next((f) => f.type === 'ready', s.frames.length);
    s.close();
    await s.waitClosed();
    await expect.poll(ask).toEqual({ registered: false });
    other.close();
  });
});
