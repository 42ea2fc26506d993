/**
 * The voice twin's codec pieces: μ-law to and from PCM, resampling between 8 and 48 kHz (the tone
 * kept, images and aliases removed), Opus round trips that keep a tone's energy, the transcoders a
 * bridge between an Opus leg and a PCMU leg uses (payloads and timestamps), the payload-type
 * rewrite of a forwarded packet, and the cache of encoded sounds (hold music encoded once).
 */
import { RtpHeader, RtpPacket } from 'werift';
import { describe, expect, it } from 'vitest';
import { holdMusic } from '../../../../../server/twins/voice/audio';
import { RtpTranscoder } from '../../../../../server/twins/voice/bridge';
import { forwarded } from '../../../../../server/twins/voice/media';
import {
  audioReader,
  Downsampler,
  MAX_OPEN_OPUS,
  OpusBusy,
  OpusDecoder,
  OpusEncoder,
  OPUS_FRAME,
  OPUS_SILENCE,
  openOpusCount,
  rms,
  transcoder,
  Upsampler,
} from '../../../../../server/twins/voice/codec';
import {
  encodedSound,
  opusSource,
  soundCacheStats,
  toneLoop,
} from '../../../../../server/twins/voice/sounds';
import { linearToMulaw } from '../../../../../server/platform/audio/g711';
import { TONES } from '../../../../../server/platform/audio/tones';
import { mulawToPcm, pcmToMulaw } from '../../../../../server/platform/audio/g711';

/** `count` samples of a sine at `hz` sampled at `rate`, peak `level` of full scale. */
function sine(hz: number, rate: number, count: number, level = 0.3, start = 0): Int16Array {
  return Int16Array.from({ length: count }, (_, i) =>
    Math.round(level * 32767 * Math.sin((2 * Math.PI * hz * (start + i)) / rate)),
  );
}

/** Level of the `hz` component of `pcm` (sampled at `rate`), as the amplitude of a sine. */
function tone(pcm: Int16Array, hz: number, rate: number): number {
  let re = 0;
  let im = 0;
  for (let i = 0; i < pcm.length; i++) {
    re += pcm[i]! * Math.cos((2 * Math.PI * hz * i) / rate);
    im += pcm[i]! * Math.sin((2 * Math.PI * hz * i) / rate);
  }
  return (2 * Math.hypot(re, im)) / pcm.length;
}

/** Runs `pcm` through `step` in 20 ms pieces of `frame` samples, joined. */
function inFrames(pcm: Int16Array, frame: number, step: (f: Int16Array) => Int16Array): Int16Array {
  const parts: Int16Array[] = [];
  for (let at = 0; at + frame <= pcm.length; at += frame)
    parts.push(step(pcm.subarray(at, at + frame)));
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('μ-law', () => {
  it('decodes and encodes back to the same bytes, and PCM within its step', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const back = pcmToMulaw(mulawToPcm(all));
    // 0x7f and 0xff are both zero: zero encodes as 0xff.
    for (let i = 0; i < 256; i++) if (i !== 0x7f) expect(back[i]).toBe(i);
    const pcm = sine(440, 8000, 800);
    const round = mulawToPcm(pcmToMulaw(pcm));
    for (let i = 0; i < pcm.length; i++)
      expect(Math.abs(round[i]! - pcm[i]!)).toBeLessThanOrEqual(Math.abs(pcm[i]!) / 16 + 8);
    expect(pcmToMulaw(Int16Array.of(1234))[0]).toBe(linearToMulaw(1234));
  });
});

describe('resampling', () => {
  it('8 to 48 kHz keeps a 1 kHz tone and its level, and leaves almost nothing at its images', () => {
    const up = new Upsampler();
    const out = inFrames(sine(1000, 8000, 8000), 160, (f) => up.process(f));
    expect(out.length).toBe(48_000);
    const settled = out.subarray(960);
    expect(tone(settled, 1000, 48_000) / (0.3 * 32767)).toBeGreaterThan(0.9);
    expect(tone(settled, 1000, 48_000) / (0.3 * 32767)).toBeLessThan(1.1);
    // Zero-stuffing would leave copies at 7, 9, 15 and 17 kHz as loud as the tone.
    for (const image of [7000, 9000, 15_000, 17_000])
      expect(tone(settled, image, 48_000)).toBeLessThan(0.03 * tone(settled, 1000, 48_000));
  });

  it('48 to 8 kHz keeps a 1 kHz tone and removes what would alias (a 10 kHz tone)', () => {
    const down = new Downsampler();
    const out = inFrames(sine(1000, 48_000, 48_000), 960, (f) => down.process(f));
    expect(out.length).toBe(8000);
    expect(tone(out.subarray(160), 1000, 8000) / (0.3 * 32767)).toBeGreaterThan(0.9);
    const high = new Downsampler();
    const aliased = inFrames(sine(10_000, 48_000, 48_000), 960, (f) => high.process(f));
    expect(rms(aliased.subarray(160))).toBeLessThan(0.03 * rms(sine(10_000, 48_000, 960)));
  });

  it('keeps the decimation phase over pieces of any length', () => {
    const whole = new Downsampler().process(sine(500, 48_000, 960));
    const split = new Downsampler();
    const parts = [
      split.process(sine(500, 48_000, 500)),
      split.process(sine(500, 48_000, 460, 0.3, 500)),
    ];
    expect(parts[0]!.length + parts[1]!.length).toBe(160);
    expect(Int16Array.from([...parts[0]!, ...parts[1]!])).toEqual(whole);
  });
});

describe('Opus', () => {
  it('a tone encoded and decoded keeps its energy, in packets far smaller than PCM', () => {
    const encoder = new OpusEncoder();
    const decoder = new OpusDecoder();
    const pcm = sine(600, 48_000, 50 * OPUS_FRAME);
    const sizes: number[] = [];
    const out = inFrames(pcm, OPUS_FRAME, (f) => {
      const packet = encoder.encode(f);
      sizes.push(packet.length);
      return decoder.decode(packet);
    });
    encoder.close();
    decoder.close();
    expect(out.length).toBe(pcm.length);
    const ratio = rms(out.subarray(OPUS_FRAME * 5)) / rms(pcm);
    expect(ratio).toBeGreaterThan(0.8);
    expect(ratio).toBeLessThan(1.2);
    expect(tone(out.subarray(OPUS_FRAME * 5), 600, 48_000) / (0.3 * 32767)).toBeGreaterThan(0.8);
    expect(Math.max(...sizes)).toBeLessThan(400);
  });

  it('silence stays silent, and a packet the decoder refuses gives no samples', () => {
    const encoder = new OpusEncoder();
    const decoder = new OpusDecoder();
    for (let i = 0; i < 5; i++)
      expect(rms(decoder.decode(encoder.encode(new Int16Array(OPUS_FRAME))))).toBeLessThan(2);
    expect(decoder.decode(new Uint8Array(0)).length).toBe(0);
    // The silence packet sent without an encoder is 20 ms of nothing.
    const quiet = decoder.decode(OPUS_SILENCE);
    expect(quiet.length).toBe(OPUS_FRAME);
    expect(rms(quiet)).toBeLessThan(2);
    encoder.close();
    decoder.close();
  });

  it('refuses to open more coders than the binding carries safely, and frees them on close', () => {
    const before = openOpusCount();
    const opened: { close(): void }[] = [];
    while (openOpusCount() < MAX_OPEN_OPUS)
      opened.push(opened.length % 2 ? new OpusDecoder() : new OpusEncoder());
    expect(() => new OpusEncoder()).toThrow(OpusBusy);
    // A sound still plays (silence) rather than failing when no encoder can be had.
    const sound = encodedSound(pcmToMulaw(sine(350, 8000, 1600)));
    expect(sound.frame(0)).toBe(OPUS_SILENCE);
    expect(sound.ready).toBe(0);
    // Every open one still encodes and decodes as one alone.
    const [encoder, decoder] = [opened[0] as OpusEncoder, opened[1] as OpusDecoder];
    const out = decoder.decode(encoder.encode(sine(600, 48_000, OPUS_FRAME)));
    expect(out.length).toBe(OPUS_FRAME);
    for (const c of opened) c.close();
    expect(openOpusCount()).toBe(before);
    expect(sound.frame(0)).not.toBe(OPUS_SILENCE);
  });

  it('the reader of an Opus leg hands on 8 kHz PCM, 160 samples a frame', () => {
    const encoder = new OpusEncoder();
    const reader = audioReader('opus');
    const pcm = inFrames(sine(440, 48_000, 20 * OPUS_FRAME), OPUS_FRAME, (f) =>
      reader.read(encoder.encode(f)),
    );
    expect(pcm.length).toBe(20 * 160);
    expect(tone(pcm.subarray(800), 440, 8000) / (0.3 * 32767)).toBeGreaterThan(0.8);
    encoder.close();
    reader.close();
  });
});

describe('transcoding between an Opus leg and a PCMU leg', () => {
  it('PCMU to Opus and back keeps a tone', () => {
    const toOpus = transcoder('pcmu', 'opus');
    const toPcmu = transcoder('opus', 'pcmu');
    const input = pcmToMulaw(sine(800, 8000, 8000));
    const back: number[] = [];
    for (let at = 0; at < input.length; at += 160)
      for (const opus of toOpus.convert(input.subarray(at, at + 160)))
        for (const mulaw of toPcmu.convert(opus)) back.push(...mulawToPcm(mulaw));
    toOpus.close();
    toPcmu.close();
    expect(back.length).toBe(8000);
    expect(tone(Int16Array.from(back.slice(800)), 800, 8000) / (0.3 * 32767)).toBeGreaterThan(0.8);
  });

  it('gathers odd PCMU packet sizes into whole 20 ms Opus frames', () => {
    const toOpus = transcoder('pcmu', 'opus');
    const mulaw = pcmToMulaw(sine(800, 8000, 240));
    expect(toOpus.convert(mulaw)).toHaveLength(1); // 30 ms: one frame, 10 ms kept
    expect(toOpus.convert(mulaw)).toHaveLength(2); // 10 + 30 ms: two frames
    toOpus.close();
  });

  it("moves timestamps to the other codec's clock from the first packet on", () => {
    const packet = (seq: number, ts: number, payload: Buffer) =>
      new RtpPacket(
        new RtpHeader({ payloadType: 0, sequenceNumber: seq, timestamp: ts, ssrc: 7 }),
        payload,
      );
    const up = new RtpTranscoder('pcmu', 'opus');
    const frame = pcmToMulaw(sine(800, 8000, 160));
    const near = 0xffffffff - 100; // the input timestamp wraps between the packets
    const [a] = up.convert(packet(1, near, frame));
    const [b] = up.convert(packet(2, (near + 160) >>> 0, frame));
    expect((b!.header.timestamp - a!.header.timestamp) >>> 0).toBe(960);
    expect((b!.header.sequenceNumber - a!.header.sequenceNumber) & 0xffff).toBe(1);
    up.close();
    const down = new RtpTranscoder('opus', 'pcmu');
    const encoder = new OpusEncoder();
    const [c] = down.convert(packet(9, 1000, encoder.encode(sine(800, 48_000, 960))));
    const [d] = down.convert(packet(10, 1960, encoder.encode(sine(800, 48_000, 960, 0.3, 960))));
    expect((d!.header.timestamp - c!.header.timestamp) >>> 0).toBe(160);
    expect(d!.payload.length).toBe(160);
    encoder.close();
    down.close();
  });
});

describe('forwarding', () => {
  it("rewrites only the payload type to the receiving leg's own", () => {
    const header = new RtpHeader({
      payloadType: 111,
      sequenceNumber: 65535,
      timestamp: 123_456,
      ssrc: 42,
      marker: true,
    });
    const out = forwarded(new RtpPacket(header, Buffer.from([1, 2, 3])), 109);
    expect(out.header).toMatchObject({
      payloadType: 109,
      sequenceNumber: 65535,
      timestamp: 123_456,
      ssrc: 42,
      marker: true,
    });
    expect([...out.payload]).toEqual([1, 2, 3]);
  });
});

describe('encoded sounds', () => {
  it('hold music is encoded once: the same buffer, or the same bytes loaded again, reuse the frames', () => {
    const music = holdMusic().subarray(0, 8000); // one second is enough here
    const first = encodedSound(music);
    expect(first.frames).toBe(50);
    const packets = Array.from({ length: 50 }, (_, i) => first.frame(i));
    expect(first.ready).toBe(50);
    const before = soundCacheStats();
    expect(encodedSound(music)).toBe(first);
    expect(encodedSound(Buffer.from(music))).toBe(first);
    expect(soundCacheStats().hits).toBe(before.hits + 2);
    expect(soundCacheStats().misses).toBe(before.misses);
    // A second caller's loop gets the very same packets.
    const source = opusSource(music);
    expect(source.frame(3)).toBe(packets[3]);
    expect(source.frame(53)).toBe(packets[3]);
  });

  it('frames are encoded as they are first played, not all at once', () => {
    const sound = encodedSound(pcmToMulaw(sine(300, 8000, 16_000, 0.2)));
    expect(sound.ready).toBe(0);
    sound.frame(9);
    expect(sound.ready).toBe(10);
  });

  it('a tone loops in whole frames and plays endlessly on an Opus leg', () => {
    expect(toneLoop(TONES.ringback).length).toBe(6 * 8000);
    expect(toneLoop(TONES.beep).length % 160).toBe(0);
    expect(toneLoop(TONES.ringback)).toBe(toneLoop(TONES.ringback));
    const source = opusSource(TONES.busy);
    expect(source.frames).toBe(0);
    const decoder = new OpusDecoder();
    const heard = Array.from({ length: 20 }, (_, i) => rms(decoder.decode(source.frame(i))));
    decoder.close();
    expect(Math.max(...heard)).toBeGreaterThan(1000);
  });
});
