/**
 * The candidates a server leg offers (server/twins/voice/media.ts): its own addresses and loopback,
 * loopback with the lowest local preference, so a browser (which does not use loopback) checks the
 * machine's addresses first instead of waiting out a check to loopback that is never answered.
 */
import { networkInterfaces } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { loopbackLast, offerLeg, type MediaLeg } from '../../../../../server/twins/voice/media';

const legs: MediaLeg[] = [];
afterAll(async () => {
  for (const leg of legs) await leg.close();
});

const candidates = (sdp: string) =>
  sdp
    .split(/\r?\n/)
    .filter((l) => l.startsWith('a=candidate:'))
    .map((l) => {
      const [, , , priority, address] = l.split(' ');
      return { priority: Number(priority), address: address! };
    });

describe("a server leg's candidates", () => {
  it('offers loopback last: the lowest priority of its host candidates', async () => {
    const leg = await offerLeg();
    legs.push(leg);
    const offered = candidates(leg.localSdp);
    const loopback = offered.find((c) => c.address === '127.0.0.1');
    expect(loopback).toBeDefined();
    const others = offered.filter((c) => c.address !== '127.0.0.1');
    const external = Object.values(networkInterfaces())
      .flat()
      .some((i) => i && i.family === 'IPv4' && !i.internal);
    if (external) expect(others.length).toBeGreaterThan(0);
    for (const c of others) expect(loopback!.priority).toBeLessThan(c.priority);
    // Still a host candidate of component 1 (type preference 126, local preference 0).
    expect(loopback!.priority).toBe(126 * 2 ** 24 + 255);
  });

  it('changes nothing but the loopback candidate’s priority', () => {
    const sdp = [
      'a=candidate:1 1 udp 2116026367 127.0.0.1 5000 typ host',
      'a=candidate:2 1 udp 2116026367 192.0.2.2 5001 typ host',
      'a=candidate:3 1 udp 2116026367 127.0.0.10 5002 typ host',
    ].join('\r\n');
    expect(loopbackLast(sdp).split('\r\n')).toEqual([
      'a=candidate:1 1 udp 2113929471 127.0.0.1 5000 typ host',
      'a=candidate:2 1 udp 2116026367 192.0.2.2 5001 typ host',
      'a=candidate:3 1 udp 2116026367 127.0.0.10 5002 typ host',
    ]);
  });
});
