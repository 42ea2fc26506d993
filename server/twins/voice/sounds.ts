/**
 * What the server plays into an Opus leg, encoded once: every sound arrives as μ-law at 8 kHz (hold
 * music, announcements, greetings) or as a {@link Tone} cadence; for Opus it is decoded, upsampled
 * to 48 kHz and encoded in 20 ms frames (960 samples). Encoded frames are kept (by the buffer
 * itself, and by its content for a sound loaded afresh each call), so hold music looping to many
 * callers is encoded once. Encoding is done as the frames are first played, not all at once, so a
 * long sound never stalls the event loop.
 */
import { createHash } from 'node:crypto';
import { OpusBusy, OpusEncoder, OPUS_SILENCE, Upsampler } from './codec';
import { FRAME_SAMPLES, PCMU_SILENCE, SAMPLE_RATE } from '../../platform/audio/g711';
import { toneFrame, type Tone } from '../../platform/audio/tones';
import { mulawToPcm } from '../../platform/audio/g711';

/** A μ-law sound's Opus frames, encoded in order as they are first asked for. */
export class EncodedSound {
  /** How many 20 ms frames the sound lasts (its last one padded with silence). */
  readonly frames: number;
  private readonly encoded: Buffer[] = [];
  private encoder: OpusEncoder | null = null;
  private up: Upsampler | null = null;

  constructor(private readonly mulaw: Buffer) {
    this.frames = Math.ceil(mulaw.length / FRAME_SAMPLES);
  }

  /** Frames encoded so far. */
  get ready(): number {
    return this.encoded.length;
  }

  /**
   * Frame `index` (0 ≤ index < frames) as an Opus packet; silence, kept for nothing, when no
   * encoder can be opened now (too many open: MAX_OPEN_OPUS).
   */
  frame(index: number): Buffer {
    try {
      while (this.encoded.length <= index) this.encodeNext();
    } catch (err) {
      if (err instanceof OpusBusy) return OPUS_SILENCE;
      throw err;
    }
    return this.encoded[index]!;
  }

  private encodeNext(): void {
    this.encoder ??= new OpusEncoder();
    this.up ??= new Upsampler();
    const at = this.encoded.length * FRAME_SAMPLES;
    let slice = this.mulaw.subarray(at, at + FRAME_SAMPLES);
    if (slice.length < FRAME_SAMPLES) {
      const padded = Buffer.alloc(FRAME_SAMPLES, PCMU_SILENCE);
      slice.copy(padded);
      slice = padded;
    }
    this.encoded.push(this.encoder.encode(this.up.process(mulawToPcm(slice))));
    if (this.encoded.length >= this.frames) this.release();
  }

  /** Frees the encoder (frames already encoded stay; later ones are encoded afresh). */
  release(): void {
    this.encoder?.close();
    this.encoder = null;
    this.up = null;
  }
}

/** Sounds kept by content, newest use last; the oldest go past this many. */
const MAX_KEPT = 32;
const byContent = new Map<string, EncodedSound>();
const byBuffer = new WeakMap<Buffer, EncodedSound>();
const stats = { hits: 0, misses: 0 };

/** The Opus frames of a μ-law sound, from the cache when it was played before. */
export function encodedSound(mulaw: Buffer): EncodedSound {
  const same = byBuffer.get(mulaw);
  if (same) {
    stats.hits++;
    return same;
  }
  const key = createHash('sha1').update(mulaw).digest('hex');
  let sound = byContent.get(key);
  if (sound) {
    stats.hits++;
    byContent.delete(key);
  } else {
    stats.misses++;
    sound = new EncodedSound(mulaw);
  }
  byContent.set(key, sound);
  byBuffer.set(mulaw, sound);
  while (byContent.size > MAX_KEPT) {
    const [oldest, gone] = byContent.entries().next().value as [string, EncodedSound];
    byContent.delete(oldest);
    gone.release();
  }
  return sound;
}

/** Cache lookups so far (tests). */
export function soundCacheStats(): { hits: number; misses: number; kept: number } {
  return { ...stats, kept: byContent.size };
}

const toneLoops = new WeakMap<Tone, Buffer>();

/**
 * A tone's cadence as one loop of μ-law (whole 20 ms frames, so it repeats seamlessly): its period
 * when that is a whole number of frames, else enough periods to make one (at most 10 s).
 */
export function toneLoop(tone: Tone): Buffer {
  const kept = toneLoops.get(tone);
  if (kept) return kept;
  const periodSamples = Math.max(1, Math.round(((tone.onMs + tone.offMs) * SAMPLE_RATE) / 1000));
  let samples = periodSamples;
  while (samples % FRAME_SAMPLES !== 0 && samples < SAMPLE_RATE * 10) samples += periodSamples;
  const frames = Math.max(1, Math.round(samples / FRAME_SAMPLES));
  const loop = Buffer.concat(Array.from({ length: frames }, (_, i) => toneFrame(tone, i)));
  toneLoops.set(tone, loop);
  return loop;
}

/** One 20 ms Opus frame of silence (the same packet each time). */
export const opusSilence = (): Buffer => OPUS_SILENCE;

/** What a leg plays, frame by frame: `frames` long (0: a tone or silence, endless). */
export interface FrameSource {
  frames: number;
  frame(index: number): Buffer;
  silence(): Buffer;
}

export function pcmuSource(sound: Tone | Buffer | null): FrameSource {
  const silence = Buffer.alloc(FRAME_SAMPLES, PCMU_SILENCE);
  const frames = Buffer.isBuffer(sound) ? Math.ceil(sound.length / FRAME_SAMPLES) : 0;
  return {
    frames,
    silence: () => silence,
    frame: (frame) => {
      if (sound === null) return silence;
      if (!Buffer.isBuffer(sound)) return toneFrame(sound, frame);
      if (frames === 0) return silence;
      const at = (frame % frames) * FRAME_SAMPLES;
      const payload = sound.subarray(at, at + FRAME_SAMPLES);
      // The last frame of a recording that does not fill it is padded with silence.
      return payload.length < FRAME_SAMPLES
        ? Buffer.concat([payload, silence.subarray(payload.length)])
        : payload;
    },
  };
}

export function opusSource(sound: Tone | Buffer | null): FrameSource {
  const silence = opusSilence();
  if (sound === null || (Buffer.isBuffer(sound) && sound.length === 0))
    return { frames: 0, silence: () => silence, frame: () => silence };
  const encoded = encodedSound(Buffer.isBuffer(sound) ? sound : toneLoop(sound));
  return {
    frames: Buffer.isBuffer(sound) ? encoded.frames : 0,
    silence: () => silence,
    frame: (frame) => encoded.frame(frame % encoded.frames),
  };
}
