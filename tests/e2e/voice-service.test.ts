/**
 * The voice service as the unmodified Voice SDK meets it: people's Devices in Chromium pages
 * against the real server, calls placed and answered through the SDK's own API, the audio each side
 * receives read from WebRTC statistics, and what the server records (history, presence) read back
 * through the Sync SDK.
 */
import type { Browser } from 'playwright-core';
import type { SyncClient } from 'twilio-sync';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { e2eBackend, startServer, type RunningServer } from '../support/server';
import { CALL_REASONS } from '../../src/domain/calls/reasons';
import { listening } from '../integration/voice/support';
import { apiSignIn } from '../model/support/app';
import { sdkClientFor } from './support/live';
import { fuzzSignalling } from './support/voice-fuzz';
import {
  dial,
  eventually,
  hangUpEverywhere,
  inboundAudio,
  onCall,
  openPhone,
  type Phone,
} from './support/phone';

let server: RunningServer;
let browser: Browser;
let ann: Phone;
let bob: Phone;
let cat: Phone;
let sync: SyncClient;

const TOKEN_TTL = 20;

beforeAll(async () => {
  server = await startServer({
    env: {
      SWITCHBOARD_VOICE_RING_SECONDS: '5',
      ...(process.env.VOICE_DEBUG ? { SWITCHBOARD_VOICE_LOG: '1' } : {}),
      SWITCHBOARD_VOICE_TOKEN_TTL: String(TOKEN_TTL),
    },
  });
  browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  [ann, bob, cat] = (await Promise.all(
    ['Ann', 'Bob', 'Cat'].map((name) => openPhone(browser, server.url, name)),
  )) as [Phone, Phone, Phone];
  for (const p of [ann, bob, cat]) await p.waitForEvent('device:registered');
  sync = await sdkClientFor(server.url, 'Ann', 'ann@example.com');
});

// A test that failed mid-call leaves none up for the next.
afterEach(() => hangUpEverywhere());

afterAll(async () => {
  if (process.env.VOICE_DEBUG) console.log(server.output());
  await sync?.shutdown();
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

/** The `calls` list, oldest first. */
async function history(): Promise<Record<string, unknown>[]> {
  const list = await sync.list({ id: 'calls', mode: 'open_existing' });
  const page = await list.getItems({ pageSize: 100, order: 'asc' });
  return page.items.map((i) => i.data as Record<string, unknown>);
}

async function lastCallEvent(phone: Phone, since: number): Promise<string[]> {
  return (await phone.events()).slice(since).filter((e) => e.startsWith('call:'));
}

describe('calls between people', () => {
  it('rings the callee, connects audio both ways when answered, silences a muted side, and ends from either side', async () => {
    const before = (await history()).length;
    // Ann is available: her phone's helper had the server write it (openPhone).
    const presence = await sync.map({ id: 'presence', mode: 'open_existing' });

    await dial(ann, 'Bob');
    await bob.waitForEvent('call:incoming');
    await ann.waitForEvent('call:ringing');
    await onCall(bob, 'accept');
    await ann.waitForEvent('call:accept');
    await bob.waitForEvent('call:accept');
    const a = await eventually(
      () => inboundAudio(ann),
      (s) => s.packets > 50 && s.level > 0.01,
    );
    const b = await eventually(
      () => inboundAudio(bob),
      (s) => s.packets > 50 && s.level > 0.01,
    );
    expect(a.packets).toBeGreaterThan(50);
    expect(b.packets).toBeGreaterThan(50);
    // Presence follows the call.
    await eventually(
      async () => (await presence.get(ann.identity)).data as Record<string, unknown>,
      (d) => d.onCall === true,
    );
    // Nobody but the server writes presence now (PUT /api/presence, for the person), so no tab can
    // clear it while the call is up: Ann's own SDK is refused, on both backends.
    await expect(
      presence.set(ann.identity, { status: 'away', onCall: false }, { ttl: 60 }),
    ).rejects.toMatchObject({ status: 403, code: 54007 });
    // A colleague sees it.
    const colleague = await sdkClientFor(server.url, 'Cat', 'cat@example.com');
    try {
      const seen = await colleague.map({ id: 'presence', mode: 'open_existing' });
      // (Other fields may be there too: a write by the app on Ann's page carries her
      // do-not-disturb, false.)
      expect((await seen.get(ann.identity)).data).toMatchObject({
        status: 'available',
        onCall: true,
      });
    } finally {
      await colleague.shutdown();
    }

    // Muted: packets keep coming (the call stays up) but carry silence.
    await onCall(ann, 'mute');
    const muted = await eventually(
      () => inboundAudio(bob),
      (s) => s.level < 0.001,
    );
    const later = await eventually(
      () => inboundAudio(bob),
      (s) => s.packets > muted.packets + 25,
    );
    expect(later.level).toBeLessThan(0.001);
    await onCall(ann, 'unmute');
    await eventually(
      () => inboundAudio(bob),
      (s) => s.level > 0.01,
    );

    await onCall(bob, 'disconnect');
    await ann.waitForEvent('call:disconnect');
    await eventually(
      async () => (await presence.get(ann.identity)).data as Record<string, unknown>,
      (d) => d.onCall === false,
    );
    const rows = await eventually(history, (h) => h.length === before + 1);
    expect(rows.at(-1)).toMatchObject({
      direction: 'outbound',
      from: ann.identity,
      // The colleague called, as the app resolved the dialled name (the callee's identity).
      to: bob.identity,
      user: ann.identity,
      callee: bob.identity,
      outcome: 'answered',
    });
    const row = rows.at(-1)!;
    expect(row.answeredAt as number).toBeGreaterThanOrEqual(row.startedAt as number);
    expect(row.endedAt as number).toBeGreaterThanOrEqual(row.answeredAt as number);
  });

  it("the callee rejects: the caller's call ends and history says rejected, and why", async () => {
    const before = (await history()).length;
    const mark = (await ann.events()).length;
    const bobMark = (await bob.events()).length;
    await dial(ann, 'bob@example.com');
    await eventually(
      () => lastCallEvent(bob, bobMark),
      (e) => e.includes('call:incoming'),
    );
    await onCall(bob, 'reject');
    // His decline stops every ring of his (the app's own phone on his page too) and ends the
    // `<Dial>` `busy` (https://www.twilio.com/docs/voice/twiml/dial#dialcallstatus-values); the app's
    // action hangs the caller up: their SDK sees the call end, and reads why in the row.
    await eventually(
      () => lastCallEvent(ann, mark),
      (e) => e.includes('call:disconnect'),
    );
    // The rows since (a call the previous test left, hung up after it, may be among them).
    const rows = await eventually(history, (h) =>
      h.slice(before).some((r) => r.outcome === 'rejected'),
    );
    expect(rows.slice(before).find((r) => r.outcome === 'rejected')).toMatchObject({
      outcome: 'rejected',
      callee: bob.identity,
      reason: CALL_REASONS.declined('Bob'),
    });
  });

  it('the caller cancels while it rings: the callee stops ringing', async () => {
    const mark = (await bob.events()).length;
    await dial(ann, 'Bob');
    await eventually(
      () => lastCallEvent(bob, mark),
      (e) => e.includes('call:incoming'),
    );
    await onCall(ann, 'disconnect');
    await eventually(
      () => lastCallEvent(bob, mark),
      (e) => e.includes('call:cancel'),
    );
    const rows = await eventually(history, (h) => h.at(-1)?.outcome === 'abandoned');
    expect(rows.at(-1)).toMatchObject({ outcome: 'abandoned', callee: bob.identity });
  });

  it('nobody answers: the call is missed after the ring timeout', async () => {
    const mark = (await ann.events()).length;
    const bobMark = (await bob.events()).length;
    await dial(ann, 'Bob');
    // The ring runs out: the `<Dial>` ends `no-answer` and the app hangs the caller up (their SDK
    // sees the call end); the row says why.
    await eventually(
      () => lastCallEvent(ann, mark),
      (e) => e.includes('call:disconnect'),
      15_000,
    );
    expect(await lastCallEvent(bob, bobMark)).toContain('call:cancel');
    const rows = await eventually(history, (h) => h.at(-1)?.outcome === 'missed');
    expect(rows.at(-1)).toMatchObject({
      outcome: 'missed',
      callee: bob.identity,
      reason: CALL_REASONS.noAnswer('Bob'),
    });
  });

  it('a busy callee, an unknown name and a phone number are each refused with a reason', async () => {
    // Bob talks to Cat; Ann then calls Bob.
    await dial(cat, 'Bob');
    const bobMark = (await bob.events()).length;
    await eventually(
      () => lastCallEvent(bob, bobMark),
      (e) => e.includes('call:incoming'),
    );
    await onCall(bob, 'accept');
    await cat.waitForEvent('call:accept');

    // Each is refused before anyone rings: Bob with `<Reject reason="busy">`
    // (https://www.twilio.com/docs/voice/twiml/reject: the call ends `busy`), the others with a
    // spoken sentence and a hang-up. The caller's SDK sees the call end; the row says why.
    const cases: [string, Record<string, unknown>][] = [
      ['Bob', { outcome: 'busy', callee: bob.identity, reason: CALL_REASONS.busy('Bob') }],
      ['Nobody Here', { reason: 'Nobody here is called "Nobody Here".' }],
      // The embedded backend has no phone provider and says so; on Twilio (the twins' account has a
      // number) it is dialled, and the twins' phone network connects nobody: `failed`.
      [
        '+1 555 0100',
        {
          reason:
            e2eBackend() === 'embedded'
              ? (expect.stringMatching(/phone provider/) as unknown)
              : CALL_REASONS.numberFailed('+15550100'),
        },
      ],
    ];
    for (const [to, expected] of cases) {
      const before = (await history()).length;
      const mark = (await ann.events()).length;
      const rung = (await bob.events()).length;
      await dial(ann, to);
      // A sentence is heard to its end first (the phone number's takes some 12 s of speech).
      await eventually(
        () => lastCallEvent(ann, mark),
        (e) => e.includes('call:disconnect'),
        30_000,
      );
      expect(await lastCallEvent(bob, rung)).not.toContain('call:incoming');
      const rows = await eventually(history, (h) => h.length === before + 1);
      expect(rows.at(-1)).toMatchObject({ from: ann.identity, ...expected });
    }
    await onCall(cat, 'disconnect');
    await bob.waitForEvent('call:disconnect');
  });

  it('calls an offline person: refused, and a missed row saying why', async () => {
    // Dan is on the team but has no page open: no presence item. (A page closed a moment ago leaves
    // its item until the ttl lapses, and a call then rings nobody: "Dan did not answer.")
    const dan = (await apiSignIn(server.url, 'Dan', 'dan@example.com')).user;
    const mark = (await ann.events()).length;
    await dial(ann, 'Dan');
    // No presence item: refused with `<Reject>` before it is answered
    // (https://www.twilio.com/docs/voice/twiml/reject: the call ends `no-answer`); the row says why.
    await eventually(
      () => lastCallEvent(ann, mark),
      (e) => e.includes('call:disconnect'),
    );
    const rows = await eventually(history, (h) => h.at(-1)?.callee === dan.identity);
    expect(rows.at(-1)).toMatchObject({
      outcome: 'missed',
      callee: dan.identity,
      reason: CALL_REASONS.offline('Dan'),
    });
  });

  it('rings every registered device of the callee; answering on one cancels the other', async () => {
    const bob2 = await openPhone(browser, server.url, 'Bob');
    await bob2.waitForEvent('device:registered');
    const mark = (await bob.events()).length;
    await dial(ann, 'Bob');
    await bob2.waitForEvent('call:incoming');
    await eventually(
      () => lastCallEvent(bob, mark),
      (e) => e.includes('call:incoming'),
    );
    await onCall(bob2, 'accept');
    await ann.waitForEvent('call:accept');
    await eventually(
      () => lastCallEvent(bob, mark),
      (e) => e.includes('call:cancel'),
    );
    await eventually(
      () => inboundAudio(bob2),
      (s) => s.packets > 25 && s.level > 0.01,
    );
    await onCall(ann, 'disconnect');
    await bob2.waitForEvent('call:disconnect');
    await bob2.context.close();
  });

  it('a call outlives the token it started with: the SDK renews it and the call stays up', async () => {
    const mark = (await ann.events()).length;
    await dial(ann, 'Cat');
    await cat.waitForEvent('call:incoming');
    await onCall(cat, 'accept');
    await eventually(
      () => lastCallEvent(ann, mark),
      (e) => e.includes('call:accept'),
    );
    // Past the lifetime of the token the call started with, renewed on the way.
    await new Promise((r) => setTimeout(r, (TOKEN_TTL + 3) * 1000));
    const events = (await ann.events()).slice(mark);
    expect(events).toContain('device:tokenUpdated');
    expect(events).not.toContain('call:disconnect');
    const before = await inboundAudio(ann);
    await eventually(
      () => inboundAudio(ann),
      (s) => s.packets > before.packets + 25,
    );
    await onCall(ann, 'disconnect');
    await cat.waitForEvent('call:disconnect');
  });
});

describe('hostile signalling beside real calls', () => {
  it("refuses another person's answer and hangup for a ringing call, which then connects normally", async () => {
    const eve = await listening(server.url, 'eve@example.com');
    const mark = (await bob.events()).length;
    await dial(ann, 'Bob');
    await eventually(
      () => lastCallEvent(bob, mark),
      (e) => e.includes('call:incoming'),
    );
    const sid = await bob.page.evaluate(() => {
      const calls = (
        window as unknown as { __phone: { calls: { parameters: { CallSid: string } }[] } }
      ).__phone.calls;
      return calls[calls.length - 1]!.parameters.CallSid;
    });
    for (const type of ['answer', 'reject', 'hangup']) {
      const from = eve.frames.length;
      eve.send(type, { callsid: sid, sdp: 'v=0\r\n' });
      const err = await eve.next((f) => f.type === 'error', from);
      expect((err.payload.error as { code: number }).code).toBe(31100);
    }
    await onCall(bob, 'accept');
    await ann.waitForEvent('call:accept');
    await eventually(
      () => inboundAudio(bob),
      (s) => s.packets > 25 && s.level > 0.01,
    );
    await onCall(ann, 'disconnect');
    await eventually(
      () => lastCallEvent(bob, mark),
      (e) => e.includes('call:disconnect'),
    );
    eve.close();
  });

  it('takes 5,000 malformed frames and sequences without a crash or a malformed reply; calls still work', async () => {
    const { frames, sockets } = await fuzzSignalling(server.url, 5000);
    expect(frames).toBeGreaterThanOrEqual(5000);
    for (const s of sockets)
      for (const text of s.raw) {
        if (text === '\n') continue;
        const f = JSON.parse(text) as { type?: unknown; payload?: unknown };
        expect(typeof f.type).toBe('string');
        expect(typeof f.payload).toBe('object');
      }
    expect(server.output()).not.toMatch(/uncaught|unhandled/i);
    const mark = (await ann.events()).length;
    await dial(ann, 'Cat');
    await cat.waitForEvent('call:incoming');
    await onCall(cat, 'accept');
    await eventually(
      () => lastCallEvent(ann, mark),
      (e) => e.includes('call:accept'),
    );
    await eventually(
      () => inboundAudio(ann),
      (s) => s.packets > 25 && s.level > 0.01,
    );
    await onCall(cat, 'disconnect');
    await eventually(
      () => lastCallEvent(ann, mark),
      (e) => e.includes('call:disconnect'),
    );
  });
});
