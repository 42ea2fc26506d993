/**
 * The audio an app page receives, read from its own peer connections: an init script records every
 * RTCPeerConnection the page makes, and `inbound` reads the newest one's inbound audio statistics.
 */
import type { Browser, Page } from 'playwright-core';
import { signedInPage, type Person } from './live';

/** Add with `page.addInitScript` before the app starts. */
export const TRACK_PCS = `(() => {
  const Native = window.RTCPeerConnection;
  window.__pcs = [];
  window.RTCPeerConnection = class extends Native {
    constructor(...args) { super(...args); window.__pcs.push(this); }
  };
})();`;

/** The newest peer connection's inbound audio: packets so far and the current level (0..1). */
export async function inbound(page: Page): Promise<{ packets: number; level: number }> {
  return page.evaluate(async () => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
    const pc = pcs[pcs.length - 1];
    if (!pc) return { packets: 0, level: 0 };
    let packets = 0;
    let level = 0;
    (await pc.getStats()).forEach(
      (s: { type: string; kind?: string; packetsReceived?: number; audioLevel?: number }) => {
        if (s.type === 'inbound-rtp' && s.kind === 'audio') {
          packets = s.packetsReceived ?? 0;
          level = s.audioLevel ?? 0;
        }
      },
    );
    return { packets, level };
  });
}

/**
 * The codec of the newest peer connection's audio, each way (getStats `codec` mimeType, e.g.
 * `audio/opus`), or '' where there is none yet.
 */
export async function audioCodecs(page: Page): Promise<{ inbound: string; outbound: string }> {
  return page.evaluate(async () => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
    const pc = pcs[pcs.length - 1];
    const found = { inbound: '', outbound: '' };
    if (!pc) return found;
    type Stat = { type: string; kind?: string; codecId?: string; mimeType?: string; id: string };
    const stats = new Map<string, Stat>();
    (await pc.getStats()).forEach((s: Stat) => stats.set(s.id, s));
    for (const s of stats.values()) {
      const mime = s.codecId ? (stats.get(s.codecId)?.mimeType ?? '') : '';
      if (s.type === 'inbound-rtp' && s.kind === 'audio') found.inbound = mime;
      if (s.type === 'outbound-rtp' && s.kind === 'audio') found.outbound = mime;
    }
    return found;
  });
}

/**
 * `name` (email `<name>@example.com` unless given) signed in, at `path`, with the page's peer connections
 * recorded (for {@link inbound}) and their phone registered.
 */
export async function phonePerson(
  browser: Browser,
  baseUrl: string,
  name: string,
  path: string,
  email = `${name.toLowerCase()}@example.com`,
): Promise<Person> {
  const person = await signedInPage(browser, baseUrl, name, email, path, TRACK_PCS);
  await person.page
    .getByTestId('phone-status')
    .and(person.page.locator('[data-status="registered"]'))
    .waitFor();
  return person;
}
