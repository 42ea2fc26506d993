/**
 * Call quality as a person meets it, in Chromium against the real server, with the relay losing 10%
 * of the audio it sends to every caller's leg (the test hook SWITCHBOARD_TEST_DROP_PERCENT): Ann
 * calls Bob; Ann's card shows the SDK's own warning in words ("Your network is losing audio") while
 * Bob's, whose audio arrives whole, shows none; when the call ends both pages report what they
 * measured and /history marks the call Poor, saying why and at whose end. How long the SDK took to
 * warn is printed.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLS } from '../../src/contracts/objects';
import type { CallRecord } from '../../src/contracts/records/call';
import { client, shutdownClients } from '../integration/sync/support';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import type { Person } from './support/live';
import { phonePerson } from './support/page-audio';
import { eventually } from './support/phone';

let server: RunningServer;
let browser: Browser;
let ann: Person;
let bob: Person;

const DROP_PERCENT = 10;

beforeAll(async () => {
  server = await startServer({
    env: {
      SWITCHBOARD_TEST_DROP_PERCENT: String(DROP_PERCENT),
      SWITCHBOARD_TEST_DROP_LEG: 'caller',
    },
  });
  browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  ann = await phonePerson(browser, server.url, 'Ann', '/contacts');
  bob = await phonePerson(browser, server.url, 'Bob', '/contacts');
}, 90_000);

afterAll(async () => {
  await shutdownClients();
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

const openCard = (p: Person) => p.page.locator('[data-testid="call-card"][data-status="open"]');

/**
 * The newest peer connection's inbound audio (packets received and lost so far) and the round trip
 * the browser measures to the relay (ms, from the relay's receiver reports; null without one).
 */
async function inboundLoss(
  page: Page,
): Promise<{ received: number; lost: number; rttMs: number | null }> {
  return page.evaluate(async () => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
    const pc = pcs[pcs.length - 1];
    let received = 0;
    let lost = 0;
    let rttMs: number | null = null;
    type Stat = {
      type: string;
      kind?: string;
      packetsReceived?: number;
      packetsLost?: number;
      roundTripTime?: number;
    };
    if (pc)
      (await pc.getStats()).forEach((s: Stat) => {
        if (s.type === 'inbound-rtp' && s.kind === 'audio') {
          received = s.packetsReceived ?? 0;
          lost = s.packetsLost ?? 0;
        }
        if (s.type === 'remote-inbound-rtp' && typeof s.roundTripTime === 'number')
          rttMs = Math.round(s.roundTripTime * 1000);
      });
    return { received, lost, rttMs };
  });
}

describe('call quality', () => {
  it(`with ${DROP_PERCENT}% of Ann's audio lost, her card warns and history marks the call poor`, async () => {
    await ann.page.getByTestId('dial-input').fill('Bob');
    await ann.page.getByRole('button', { name: 'Call', exact: true }).click();
    await bob.page
      .locator('[data-testid="call-card"][data-status="incoming"]')
      .getByRole('button', { name: 'Accept' })
      .click();
    await openCard(ann).waitFor();
    await openCard(bob).waitFor();
    const opened = Date.now();

    // The loss is real at Ann's end (the browser's own count), and only there. Counted from the
    // answer on: the ringback the server played her before it is not bridged audio, so not dropped.
    const start = await inboundLoss(ann.page);
    const seen = await eventually(
      () => inboundLoss(ann.page),
      (s) => s.received - start.received > 200,
      30_000,
    );
    const lost = seen.lost - start.lost;
    const share = lost / (lost + seen.received - start.received);
    expect(share).toBeGreaterThan(0.07);
    expect(share).toBeLessThan(0.13);
    expect((await inboundLoss(bob.page)).lost).toBe(0);

    // The SDK's warning, in words, on Ann's card; a live status region.
    const warning = openCard(ann)
      .getByRole('status')
      .filter({ hasText: 'Your network is losing audio' });
    await warning.waitFor({ timeout: 60_000 });
    const warnedAfter = (Date.now() - opened) / 1000;
    const names = await openCard(ann).getByTestId('call-quality').getAttribute('data-warnings');
    console.log(
      `[quality] Ann's card warned ${warnedAfter.toFixed(1)} s after the call opened ` +
        `(SDK warnings: ${names}); her browser counted ${seen.lost} lost of ${seen.lost + seen.received}`,
    );
    const bobNames = await openCard(bob).getByTestId('call-quality').getAttribute('data-warnings');
    console.log(
      `[quality] round trip the browsers measure to the relay: Ann ${(await inboundLoss(ann.page)).rttMs} ms, ` +
        `Bob ${(await inboundLoss(bob.page)).rttMs} ms; Bob's SDK warnings: ${bobNames ?? 'none'}`,
    );
    expect(names).toMatch(/high-packet/);
    // Bob's audio arrives whole: no loss warning on his card.
    expect(await openCard(bob).getByTestId('call-quality').textContent()).not.toContain(
      'losing audio',
    );

    await ann.page.getByRole('button', { name: 'Hang up' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
    await bob.page.getByTestId('call-ended').waitFor();

    // History: the call is marked Poor, with the loss and at whose end it was measured.
    await ann.page.getByRole('link', { name: 'History' }).click();
    const mark = ann.page.getByTestId('call-row').first().getByTestId('call-quality-mark');
    await mark.waitFor();
    expect(await mark.getAttribute('data-grade')).toBe('poor');
    const why = (await mark.getAttribute('title')) ?? '';
    console.log(`[quality] Ann's history row: ${why}`);
    // Ann's end made the grade (the loss); the relay's own jitter may make Bob's end fair too.
    expect(why).toMatch(/^Poor: /);
    expect(why).toMatch(/(: |; )\d+(\.\d)?% of audio lost[^;]*\(at your end\)/);
    expect(await mark.textContent()).toContain('Poor');
    // Bob sees the same call poor because of Ann's end; his own report is in the row too.
    await bob.page.getByRole('link', { name: 'History' }).click();
    const bobMark = bob.page.getByTestId('call-row').first().getByTestId('call-quality-mark');
    await bobMark.waitFor();
    expect(await bobMark.getAttribute('title')).toContain("(at Ann's end)");
    // The row as stored: both browsers' reports. Each browser reports as its call ends, so Bob's
    // may come after the row is first shown.
    const history = await (await client(server.url, 'ann@example.com')).list(CALLS.name);
    const lastRow = async () =>
      (await history.getItems({ order: 'desc', pageSize: 1 })).items[0]!.data as CallRecord;
    await expect
      .poll(async () => (await lastRow()).quality.map((q) => q.by).sort(), { timeout: 15_000 })
      .toEqual(['ann@example.com', 'bob@example.com']);
    // The media server's own view of each side comes from each leg's Call Summary (Voice
    // Insights), read after the row is written.
    await expect
      .poll(async () => (await lastRow()).relay.map((r) => `${r.side} ${r.identity}`), {
        timeout: 15_000,
      })
      .toEqual(['caller ann@example.com', 'callee bob@example.com']);
    const row = await lastRow();
    // Both browsers spoke Opus, and their reports say so, as does the relay for each leg.
    expect(row.quality.map((q) => q.codec)).toEqual(['opus', 'opus']);
    expect(row.relay.map((r) => r.codec)).toEqual(['opus', 'opus']);
    for (const side of row.relay) {
      expect(side.received).toBeGreaterThan(0);
      expect(side.sent).toBeGreaterThan(0);
    }
  });
});
