/**
 * The voice service as the unmodified Voice SDK meets it: two people's Devices in Chromium pages
 * against the real server, calls placed and answered through the SDK's own API, and the audio each
 * side receives read from WebRTC statistics.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import { dial, eventually, inboundAudio, onCall, openPhone, type Phone } from './support/phone';

let server: RunningServer;
let browser: Browser;
let ann: Phone;
let bob: Phone;

beforeAll(async () => {
  server = await startServer({ env: { SWITCHBOARD_VOICE_RING_SECONDS: '6' } });
  browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  ann = await openPhone(browser, server.url, 'Ann');
  bob = await openPhone(browser, server.url, 'Bob');
  await ann.waitForEvent('device:registered');
  await bob.waitForEvent('device:registered');
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

describe('a call between two people', () => {
  it('rings the callee, connects audio both ways when answered, and ends from either side', async () => {
    await dial(ann, 'client:bob@example.com'.replace('client:', ''));
    await bob.waitForEvent('call:incoming');
    await ann.waitForEvent('call:ringing');
    await onCall(bob, 'accept');
    await ann.waitForEvent('call:accept');
    await bob.waitForEvent('call:accept');
    const a = await eventually(
      () => inboundAudio(ann),
      (s) => s.packets > 50 && s.level > 0,
    );
    const b = await eventually(
      () => inboundAudio(bob),
      (s) => s.packets > 50 && s.level > 0,
    );
    expect(a.packets).toBeGreaterThan(50);
    expect(b.packets).toBeGreaterThan(50);
    await onCall(bob, 'disconnect');
    await ann.waitForEvent('call:disconnect');
    console.log(await ann.events(), await bob.events());
  });
});
