/**
 * The voice signalling endpoint under attack: forged, expired, foreign and revoked tokens, messages
 * before sign-in, calls that are not yours, floods. Each gets the SDK's error (and `close` where
 * access is refused), changes nothing, and the server keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voiceIdentityOf } from '../../../src/contracts/voice-identity';
import { voiceTokenFor } from '../../support/access-tokens';
import { startServer, type RunningServer } from '../../support/server';
import { token as syncToken } from '../sync/support';
import {
  answerAndHangUpAtOnce,
  answerTo,
  closeLegs,
  connected,
  dial,
  hears,
  person,
} from './media-support';
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
    // Voice tokens are Twilio's, signed with the account's API key (the twins' made-up account,
    // server/twins/account.ts).
    const account = server.account();
    const mallory = voiceIdentityOf('mallory@example.com');
    const nowMs = Date.now();
    await refusedWith('not-a-jwt', 31204);
    const good = (await voiceToken(server.url, 'mallory@example.com')).token;
    const [h, p] = good.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), grants: { identity: voiceIdentityOf('boss@example.com'), voice: { incoming: { allow: true } } } })).toString('base64url')}.${good.split('.')[2]}`;
    await refusedWith(forged, 31202);
    await refusedWith(voiceTokenFor(account, mallory, 3600, nowMs - 7_200_000), 31205);
    await refusedWith(voiceTokenFor(account, mallory, 90_000, nowMs), 31207);
    // Signed with another secret than the account's API key's.
    await refusedWith(
      voiceTokenFor({ ...account, apiSecret: `${account.apiSecret}-not` }, mallory, 600, nowMs),
      31202,
    );
    // A Sync token is signed with the same key, but carries no voice grant.
    const cookie = (await voiceToken(server.url, 'mallory@example.com')).cookie;
    await refusedWith((await syncToken(server.url, cookie)).token, 31201);
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

  // Signing out no longer cuts a live Voice socket (a Twilio token cannot be withdrawn; it lives at
  // most its ttl): what holds now is that the signed-out session is handed no new token.
  it('hands a signed-out session no new token', async () => {
    const t = await voiceToken(server.url, 'sam@example.com');
    const s = await RawSignal.open(server.url);
    s.send('listen', { token: t.token, reconnectTimeout: 0 });
    await s.next((f) => f.type === 'connected');
    const out = await fetch(`${server.url}/api/session/logout`, {
      method: 'POST',
      headers: { cookie: t.cookie, origin: server.url },
    });
    expect(out.status).toBeLessThan(300);
    const again = await fetch(`${server.url}/api/voice/token`, { headers: { cookie: t.cookie } });
    expect(again.status).toBe(401);
    // No JWT (they all begin `eyJ`, base64url of `{"`) in the answer.
    expect(await again.text()).not.toContain('eyJ');
    const sync = await fetch(`${server.url}/api/token`, { headers: { cookie: t.cookie } });
    expect(sync.status).toBe(401);
    s.close();
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

  it("refuses another person's answer, decline and hang-up of a ringing leg, which then connects", async () => {
    const [ann, bob, eve] = await Promise.all([
      person(server.url, 'ann@example.com'),
      person(server.url, 'bob@example.com'),
      person(server.url, 'eve@example.com'),
    ]);
    const mark = bob.frames.length;
    const calling = dial(ann, bob.identity);
    const invite = await bob.next((f) => f.type === 'invite', mark, 10_000);
    for (const type of ['answer', 'reject', 'hangup']) {
      const from = eve.frames.length;
      eve.send(type, { callsid: invite.payload.callsid, sdp: 'v=0\r\n' });
      const err = await eve.next((f) => f.type === 'error', from);
      expect(errorOf(err).code).toBe(31100);
    }
    const bobLeg = await answerTo(bob, invite);
    const { frame, leg } = await calling;
    expect(frame.type).toBe('answer');
    await hears(leg, 'sound');
    await hears(bobLeg, 'sound');
    for (const p of [ann, bob, eve]) p.close();
    await closeLegs();
  });

  it("a callee who hangs up the moment they answer ends the caller's call too (no caller left on a dead line)", async () => {
    const [ann, bob] = await Promise.all([
      person(server.url, 'ann@example.com'),
      person(server.url, 'bob@example.com'),
    ]);
    const mark = bob.frames.length;
    const annMark = ann.frames.length;
    const calling = dial(ann, bob.identity);
    const invite = await bob.next((f) => f.type === 'invite', mark, 10_000);
    // The server reads Bob's hang-up while still taking his answer, as a loaded server did in CI.
    await answerAndHangUpAtOnce(bob, invite);
    const { frame } = await calling;
    const annSid = frame.payload.callsid;
    await ann.next((f) => f.type === 'hangup' && f.payload.callsid === annSid, annMark, 10_000);
    for (const p of [ann, bob]) p.close();
    await closeLegs();
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

describe('a call and a renewed token', () => {
  it("goes on when the callee's SDK resumes it after its new token's listen (reconnect)", async () => {
    const [ann, bob] = await Promise.all([
      person(server.url, 'ann@example.com'),
      person(server.url, 'bob@example.com'),
    ]);
    const mark = bob.frames.length;
    const { fromLeg, toSid, toLeg } = await connected(ann, bob);
    const invite = bob.frames.slice(mark).find((f) => f.type === 'invite')!;
    const reconnect = String(invite.payload.reconnect);
    // The SDK sends `listen` with its new token, and on `connected` resumes every call it has a
    // reconnect token for (Call._onConnected): an `invite` with that token.
    const from = bob.frames.length;
    bob.send('listen', { token: (await voiceToken(server.url, 'bob@example.com')).token });
    await bob.next((f) => f.type === 'connected', from);
    bob.send('invite', { callsid: toSid, sdp: toLeg.localSdp, reconnect, twilio: {} });
    const answer = await bob.next((f) => f.payload.callsid === toSid, from);
    expect(answer.type).toBe('answer');
    expect(answer.payload.reconnect).toBe(reconnect);
    // Someone else's resumption with the same token is told the call has ended, changing nothing.
    const eve = await person(server.url, 'eve@example.com');
    const eveMark = eve.frames.length;
    eve.send('invite', { callsid: toSid, sdp: toLeg.localSdp, reconnect, twilio: {} });
    expect((await eve.next((f) => f.type === 'hangup', eveMark)).payload.callsid).toBe(toSid);
    await hears(fromLeg, 'sound');
    await hears(toLeg, 'sound');
    expect(ann.frames.some((f) => f.type === 'hangup')).toBe(false);
    expect(bob.frames.slice(from).some((f) => f.type === 'hangup')).toBe(false);
    for (const p of [ann, bob, eve]) p.close();
    await closeLegs();
  });
});

describe('a decline', () => {
  it("is the person's on every device: the others stop ringing and the caller's call ends", async () => {
    const [ann, bob, bobToo] = await Promise.all([
      person(server.url, 'ann@example.com'),
      person(server.url, 'bob@example.com'),
      person(server.url, 'bob@example.com'),
    ]);
    const [mark, markToo] = [bob.frames.length, bobToo.frames.length];
    const calling = dial(ann, bob.identity);
    const invite = await bob.next((f) => f.type === 'invite', mark, 10_000);
    await bobToo.next((f) => f.type === 'invite', markToo, 10_000);
    const declinedAt = Date.now();
    bob.send('reject', { callsid: invite.payload.callsid });
    const cancel = await bobToo.next((f) => f.type === 'cancel', markToo, 3000);
    expect(cancel.payload.callsid).toBe(invite.payload.callsid);
    expect((await calling).frame.type).toBe('hangup');
    // At once, not when the ring timeout (30 s) runs out.
    expect(Date.now() - declinedAt).toBeLessThan(10_000);
    for (const p of [ann, bob, bobToo]) p.close();
    await closeLegs();
  });
});

describe('GET /api/voice/registration', () => {
  // Twilio cannot be asked whether a Voice client is registered: the check reads the person's
  // presence item, which the server writes for them (PUT /api/presence) and which lapses with its
  // ttl or goes with DELETE /api/presence, not the voice twin's sockets.
  it("says whether the signed-in person's presence shows them reachable, and nobody else's", async () => {
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
    const presence = async (method: 'PUT' | 'DELETE') => {
      const res = await fetch(`${server.url}/api/presence`, {
        method,
        headers: { cookie: t.cookie, origin: server.url, 'content-type': 'application/json' },
        ...(method === 'PUT' ? { body: JSON.stringify({ status: 'available' }) } : {}),
      });
      expect(res.status).toBe(204);
    };
    expect(await ask()).toEqual({ registered: false });

    // A registered socket alone is not presence.
    const s = await RawSignal.open(server.url);
    s.send('listen', { token: t.token, reconnectTimeout: 0 });
    await s.next((f) => f.type === 'connected');
    s.send('register', { media: { audio: true } });
    await s.next((f) => f.type === 'ready');
    expect(await ask()).toEqual({ registered: false });

    // Someone else registered and present changes nothing for Rita.
    const other = await listening(server.url, 'otto@example.com');
    expect(await ask()).toEqual({ registered: false });

    await presence('PUT');
    expect(await ask()).toEqual({ registered: true });

    // Withdrawn (as her page does when it closes, or lapsed with its ttl): gone, Otto's or not.
    await presence('DELETE');
    expect(await ask()).toEqual({ registered: false });
    s.close();
    other.close();
  });
});
