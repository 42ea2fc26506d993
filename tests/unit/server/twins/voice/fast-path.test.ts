/**
 * The bridge's fast path (server/twins/voice/fast-path.ts): between two legs of one codec a packet
 * is decrypted, given the other leg's header and encrypted and sent straight from the socket,
 * instead of through werift's pipeline. Real werift peer connections over loopback stand in for the
 * two browsers: each end must read what the fast path sends (werift's own SRTP decrypts it), the
 * stream must run on without a gap when its source changes (a sound, then the bridge, then
 * werift's path again when something else listens), and a packet that is not authentic is dropped.
 */
import { describe, expect, it } from 'vitest';
import { legPairs } from './leg-pairs';
import { headerLength, isRtp } from '../../../../../server/twins/voice/fast-path';
import { type MediaLeg } from '../../../../../server/twins/voice/media';
import { bridge } from '../../../../../server/twins/voice/bridge';
import { TONES } from '../../../../../server/platform/audio/tones';

/** A browser (`outside`) and the server's leg for it (`inside`), connected. */
const pair = legPairs();

/** The sequence numbers `leg` receives from now on, and how many carried sound. */
function received(leg: MediaLeg) {
  const seqs: number[] = [];
  let sounding = 0;
  leg.onRtp((p) => seqs.push(p.header.sequenceNumber));
  leg.onAudio((pcm) => {
    if (pcm.some((v) => Math.abs(v) > 64)) sounding++;
  });
  return {
    seqs,
    sounding: () => sounding,
    /** Waits until `n` more packets have come. */
    async more(n: number) {
      const from = seqs.length;
      await expect.poll(() => seqs.length - from, { timeout: 5000 }).toBeGreaterThan(n);
    },
  };
}

/** Steps between consecutive sequence numbers other than 1 (a gap or a jump in the stream). */
const breaks = (seqs: number[]) =>
  seqs.slice(1).filter((s, i) => ((s - seqs[i]!) & 0xffff) !== 1).length;

describe('the bridge’s fast path', () => {
  it('tells RTP from RTCP, STUN and DTLS, and measures a header with CSRCs and an extension', () => {
    const rtp = Buffer.alloc(40);
    rtp[0] = 0x80;
    rtp[1] = 111;
    expect(isRtp(rtp)).toBe(true);
    rtp[1] = 0x80 | 111; // marker
    expect(isRtp(rtp)).toBe(true);
    rtp[1] = 200; // sender report
    expect(isRtp(rtp)).toBe(false);
    expect(isRtp(Buffer.concat([Buffer.from([0x00, 0x01]), Buffer.alloc(38)]))).toBe(false); // STUN
    expect(isRtp(Buffer.concat([Buffer.from([22, 254]), Buffer.alloc(38)]))).toBe(false); // DTLS
    expect(isRtp(Buffer.from([0x80, 111, 0, 1]))).toBe(false); // too short for SRTP
    const withMore = Buffer.alloc(60);
    withMore[0] = 0x80 | 0x10 | 2; // extension, two CSRCs
    withMore.writeUInt16BE(2, 12 + 8 + 2); // an extension of two words
    expect(headerLength(withMore, 60)).toBe(12 + 8 + 4 + 8);
    expect(headerLength(withMore, 20)).toBe(-1);
  });

  it('forwards between two legs of one codec, each end hears the other, and the stream runs on across every change of source', async () => {
    const caller = await pair();
    const callee = await pair();
    expect([caller.inside.codec, callee.inside.codec]).toEqual(['opus', 'opus']);
    const atCallee = received(callee.outside);
    const atCaller = received(caller.outside);
    // Ringback from the server (werift's path), then the bridge (the fast path).
    callee.inside.play(TONES.ringback);
    await expect.poll(() => atCallee.seqs.length, { timeout: 5000 }).toBeGreaterThan(10);
    const stop = bridge(caller.inside, callee.inside);
    caller.outside.play(TONES.busy);
    callee.outside.play(TONES.ringback);
    await expect
      .poll(() => [caller.inside.fastPackets > 20, callee.inside.fastPackets > 20], {
        timeout: 5000,
      })
      .toEqual([true, true]);
    expect(atCallee.sounding()).toBeGreaterThan(20);
    expect(atCaller.sounding()).toBeGreaterThan(10);
    // Something else listens to the caller (a recorder): its packets take werift's path again.
    const fastBefore = caller.inside.fastPackets;
    const off = caller.inside.onAudio(() => {});
    await atCallee.more(20);
    expect(caller.inside.fastPackets - fastBefore).toBeLessThan(3);
    off();
    await atCallee.more(20);
    expect(caller.inside.fastPackets - fastBefore).toBeGreaterThan(10);
    stop();
    callee.inside.play(TONES.busy);
    await atCallee.more(10);
    // One stream from the callee's point of view: no gap, no jump, at any change.
    expect(breaks(atCallee.seqs)).toBe(0);
    expect(breaks(atCaller.seqs)).toBe(0);
  }, 30_000);

  it('stays on werift’s path when the server runs with SWITCHBOARD_VOICE_FAST_PATH=0', async () => {
    const caller = await pair(false);
    const callee = await pair(false);
    const atCallee = received(callee.outside);
    const stop = bridge(caller.inside, callee.inside);
    caller.outside.play(TONES.busy);
    await expect.poll(() => atCallee.sounding(), { timeout: 5000 }).toBeGreaterThan(20);
    expect(caller.inside.fastPackets).toBe(0);
    expect(breaks(atCallee.seqs)).toBe(0);
    stop();
  }, 20_000);
});
