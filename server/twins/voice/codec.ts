/**
 * The audio codecs a media leg speaks, as plain functions and small stateful pieces: G.711 μ-law
 * (PCMU, 8 kHz) to and from 16-bit PCM, resampling between 8 and 48 kHz (a windowed-sinc
 * low-pass, polyphase, keeping its history across frames), and Opus (libopus compiled to
 * WebAssembly, `opusscript`) at 48 kHz mono in 20 ms frames. Transcoders chain them for a bridge
 * between an Opus leg and a PCMU leg.
 */
import OpusScript from 'opusscript';
import { mulawToPcm, pcmToMulaw } from '../../platform/audio/g711';

export type Codec = 'opus' | 'pcmu';

/** Samples per second of each codec's RTP clock (Opus is always 48 kHz on the wire). */
export const CLOCK_RATE: Readonly<Record<Codec, number>> = { opus: 48_000, pcmu: 8_000 };
/** One Opus frame: 20 ms at 48 kHz. */
export const OPUS_FRAME = 960;
/** 48 kHz over 8 kHz. */
const FACTOR = 6;

/** Root-mean-square level of PCM samples (0 for none). */
export function rms(pcm: Int16Array): number {
  if (pcm.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < pcm.length; i++) sum += pcm[i]! * pcm[i]!;
  return Math.sqrt(sum / pcm.length);
}

/** Taps of the shared low-pass at 48 kHz: cut at 3.7 kHz, below 8 kHz's Nyquist. */
const TAPS_PER_PHASE = 8;
const TAPS = FACTOR * TAPS_PER_PHASE;
const LOW_PASS = ((): Float64Array => {
  const h = new Float64Array(TAPS);
  const cutoff = 3700 / 48_000;
  const mid = (TAPS - 1) / 2;
  let sum = 0;
  for (let n = 0; n < TAPS; n++) {
    const x = n - mid;
    const sinc = x === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * x) / (Math.PI * x);
    const window = 0.54 - 0.46 * Math.cos((2 * Math.PI * n) / (TAPS - 1)); // Hamming
    h[n] = sinc * window;
    sum += h[n]!;
  }
  for (let n = 0; n < TAPS; n++) h[n]! /= sum;
  return h;
})();

const clip = (v: number): number => (v > 32767 ? 32767 : v < -32768 ? -32768 : Math.round(v));

/** 8 kHz to 48 kHz, six samples out for each in; keeps the last inputs for the next call. */
export class Upsampler {
  private readonly history = new Float64Array(TAPS_PER_PHASE);

  process(input: Int16Array): Int16Array {
    const out = new Int16Array(input.length * FACTOR);
    const hist = this.history;
    for (let i = 0; i < input.length; i++) {
      hist.copyWithin(1, 0, TAPS_PER_PHASE - 1);
      hist[0] = input[i]!;
      for (let phase = 0; phase < FACTOR; phase++) {
        let acc = 0;
        for (let k = 0; k < TAPS_PER_PHASE; k++) acc += LOW_PASS[phase + FACTOR * k]! * hist[k]!;
        out[i * FACTOR + phase] = clip(acc * FACTOR);
      }
    }
    return out;
  }
}

/** 48 kHz to 8 kHz (low-pass, then one sample in six); keeps its history across calls. */
export class Downsampler {
  private readonly history = new Float64Array(TAPS);
  private at = 0;
  /** Inputs seen modulo six, so frames of any length keep the decimation phase. */
  private phase = 0;

  process(input: Int16Array): Int16Array {
    const out = new Int16Array(Math.floor((input.length + this.phase) / FACTOR));
    let n = 0;
    const hist = this.history;
    for (let i = 0; i < input.length; i++) {
      this.at = (this.at + 1) % TAPS;
      hist[this.at] = input[i]!;
      this.phase = (this.phase + 1) % FACTOR;
      if (this.phase !== 0) continue;
      let acc = 0;
      for (let k = 0; k < TAPS; k++) acc += LOW_PASS[k]! * hist[(this.at - k + TAPS) % TAPS]!;
      out[n++] = clip(acc);
    }
    return n === out.length ? out : out.subarray(0, n);
  }
}

/**
 * How many Opus encoders and decoders may be open at once. The binding (opusscript 0.1.1) keeps
 * views of its WebAssembly heap made when each one is opened, at twice their address: once the
 * instances outgrow the first heap (about 140 here), the views of every open one break (detached
 * or out of bounds) and a write could land in another's memory. 60 open instances were measured to
 * encode and decode exactly as one alone; past this limit a new one is refused ({@link OpusBusy})
 * and its caller does without (silence, a message not decoded).
 */
export const MAX_OPEN_OPUS = 48;
let opened = 0;

/** Too many Opus encoders and decoders are open ({@link MAX_OPEN_OPUS}). */
export class OpusBusy extends Error {
  override readonly name = 'OpusBusy';
}

function openOpus(): OpusScript {
  if (opened >= MAX_OPEN_OPUS) throw new OpusBusy(`${opened} Opus coders are open already`);
  const opus = new OpusScript(48_000, 1, OpusScript.Application.VOIP);
  opened++;
  return opus;
}

function closeOpus(opus: OpusScript | null): null {
  if (opus) {
    opus.delete();
    opened--;
  }
  return null;
}

/** Opus encoders and decoders open now (tests). */
export const openOpusCount = (): number => opened;

/**
 * One 20 ms Opus frame of silence (CELT, fullband, mono: the packet other servers send for it), so
 * silence needs no encoder.
 */
export const OPUS_SILENCE: Buffer = Buffer.from([0xf8, 0xff, 0xfe]);

/** Opus encoder: 48 kHz mono PCM in 20 ms frames to packets. Call `close` to free it. */
export class OpusEncoder {
  private opus: OpusScript | null = openOpus();

  /** One frame of {@link OPUS_FRAME} samples (shorter input is padded with silence). */
  encode(pcm48: Int16Array): Buffer {
    if (!this.opus) throw new Error('The Opus encoder is closed');
    let frame = pcm48;
    if (frame.length !== OPUS_FRAME) {
      frame = new Int16Array(OPUS_FRAME);
      frame.set(pcm48.subarray(0, OPUS_FRAME));
    }
    try {
      return this.opus.encode(
        Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength),
        OPUS_FRAME,
      );
    } catch {
      // The binding failed (see MAX_OPEN_OPUS): silence rather than an exception in a media timer.
      return OPUS_SILENCE;
    }
  }

  close(): void {
    this.opus = closeOpus(this.opus);
  }
}

/** Opus decoder to 48 kHz mono PCM (a stereo stream is mixed down). Call `close` to free it. */
export class OpusDecoder {
  private opus: OpusScript | null = openOpus();

  /** The packet's samples; none for a packet the decoder refuses. */
  decode(packet: Uint8Array): Int16Array {
    if (!this.opus || packet.length === 0) return new Int16Array(0);
    try {
      const pcm = this.opus.decode(Buffer.from(packet.buffer, packet.byteOffset, packet.length));
      // Copied out: the binding's buffer is reused by the next call.
      return new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length));
    } catch {
      return new Int16Array(0);
    }
  }

  close(): void {
    this.opus = closeOpus(this.opus);
  }
}

/** A codec's payloads to 8 kHz PCM: what the server hears of a leg (voicemail). */
export interface AudioReader {
  read(payload: Uint8Array): Int16Array;
  close(): void;
}

export function audioReader(codec: Codec): AudioReader {
  if (codec === 'pcmu') return { read: mulawToPcm, close: () => {} };
  const decoder = new OpusDecoder();
  const down = new Downsampler();
  return {
    read: (payload) => down.process(decoder.decode(payload)),
    close: () => decoder.close(),
  };
}

/**
 * One direction of a bridge between legs of different codecs: payloads of `from` in, payloads of
 * `to` out (zero, one or more: Opus takes 20 ms frames, so odd PCMU packet sizes are gathered).
 */
export interface Transcoder {
  readonly from: Codec;
  readonly to: Codec;
  convert(payload: Uint8Array): Buffer[];
  close(): void;
}

export function transcoder(from: Codec, to: Codec): Transcoder {
  if (from === to) throw new Error(`No transcoding from ${from} to itself`);
  if (from === 'opus') {
    const reader = audioReader('opus');
    return {
      from,
      to,
      convert: (payload) => {
        const pcm = reader.read(payload);
        return pcm.length === 0 ? [] : [pcmToMulaw(pcm)];
      },
      close: () => reader.close(),
    };
  }
  const up = new Upsampler();
  const encoder = new OpusEncoder();
  let pending = new Int16Array(0);
  return {
    from,
    to,
    convert: (payload) => {
      const pcm48 = up.process(mulawToPcm(payload));
      const all = new Int16Array(pending.length + pcm48.length);
      all.set(pending);
      all.set(pcm48, pending.length);
      const out: Buffer[] = [];
      let at = 0;
      for (; at + OPUS_FRAME <= all.length; at += OPUS_FRAME)
        out.push(encoder.encode(all.subarray(at, at + OPUS_FRAME)));
      pending = all.slice(at);
      return out;
    },
    close: () => encoder.close(),
  };
}
