/**
 * A leg's RTCP reports on RFC 3550's schedule (server/twins/voice/rtcp.ts): one compound packet
 * (SR once media has been sent, RR with the report blocks, SDES) every 5 s × U[0.5, 1.5] instead of
 * werift's two packets a second, and report blocks that describe every packet the leg received,
 * the fast path's included. Real werift legs over loopback stand in for the browsers.
 */
import { describe, expect, it } from 'vitest';
import type { RTCPeerConnection } from 'werift';
import { legPairs } from './leg-pairs';
import { type MediaLeg } from '../../../../../server/twins/voice/media';
import { bridge } from '../../../../../server/twins/voice/bridge';
import { nextDelay, reportOnSchedule } from '../../../../../server/twins/voice/rtcp';
import { TONES } from '../../../../../server/platform/audio/tones';

/** A browser (`outside`) and the server's leg for it (`inside`), connected. */
const pair = legPairs();
const pcOf = (leg: MediaLeg) => (leg as unknown as { pc: RTCPeerConnection }).pc;

interface Arrival {
  at: number;
  types: number[];
  highest?: number;
}

/** The RTCP `leg` receives, grouped by the datagram each came in (one compound, one arrival). */
function rtcpAt(leg: MediaLeg): Arrival[] {
  const arrivals: Arrival[] = [];
  const dtls = pcOf(leg).getTransceivers()[0]!.dtlsTransport as unknown as {
    onRtcp: {
      subscribe(f: (p: { type: number; reports?: { highestSequence: number }[] }) => void): void;
    };
  };
  dtls.onRtcp.subscribe((packet) => {
    const now = performance.now();
    let last = arrivals.at(-1);
    // The packets of one compound are handed on in one synchronous run.
    if (!last || now - last.at > 5) arrivals.push((last = { at: now, types: [] }));
    last.types.push(packet.type);
    if (packet.type === 201 && packet.reports?.[0])
      last.highest = packet.reports[0].highestSequence;
  });
  return arrivals;
}

describe('RTCP reports on RFC 3550’s schedule', () => {
  it('waits 5 s × U[0.5, 1.5] between reports (RFC 3550 §6.3.1)', () => {
    expect(nextDelay(5000, () => 0)).toBe(2500);
    expect(nextDelay(5000, () => 0.5)).toBe(5000);
    expect(nextDelay(5000, () => 0.999)).toBeCloseTo(7495);
  });

  it('sends a leg’s reports as one compound packet, none in the first 1.2 s (werift sent two a second)', async () => {
    const { outside, inside } = await pair();
    const arrivals = rtcpAt(outside);
    inside.play(TONES.ringback);
    outside.play(TONES.busy);
    await new Promise((r) => setTimeout(r, 1200));
    // The first report comes after half the interval, randomized: 1.25 s at the earliest.
    expect(arrivals).toEqual([]);
    await expect.poll(() => arrivals.length, { timeout: 6000, interval: 100 }).toBe(1);
    expect(arrivals[0]!.types).toEqual([200, 201, 202]);
  }, 15_000);

  it('reports every packet received, the fast path’s too, and the far end measures the round trip from them', async () => {
    const caller = await pair();
    const callee = await pair();
    for (const leg of [caller.inside, caller.outside, callee.inside, callee.outside])
      reportOnSchedule(pcOf(leg), 300);
    const arrivals = rtcpAt(caller.outside);
    const stop = bridge(caller.inside, callee.inside);
    caller.outside.play(TONES.busy);
    callee.outside.play(TONES.ringback);
    await expect.poll(() => caller.inside.fastPackets, { timeout: 5000 }).toBeGreaterThan(20);
    const from = arrivals.length;
    await expect.poll(() => arrivals.length - from, { timeout: 5000 }).toBeGreaterThan(3);
    // Each report's highest sequence number moves on by the packets since the last (50 a second).
    const highest = arrivals.slice(from).map((a) => a.highest!);
    const steps = highest.slice(1).map((h, i) => (h - highest[i]!) & 0xffff);
    expect(Math.min(...steps)).toBeGreaterThan(3);
    expect(caller.inside.fastPackets).toBeGreaterThan(40);
    // The caller's own sender read the round trip from the server's RR (LSR and DLSR).
    const sender = pcOf(caller.outside).getSenders()[0] as unknown as { rtt?: number };
    expect(sender.rtt).toBeGreaterThanOrEqual(0);
    expect(sender.rtt).toBeLessThan(1);
    stop();
  }, 30_000);
});
