/**
 * The tones a phone plays (ringback, busy, ring, beeps, DTMF) as linear samples, as 20 ms PCMU frames
 * for a media leg, and as WAV files. A shared library: the voice twin plays them on its legs, the app
 * serves the Voice SDK's sounds made of them.
 */
import { FRAME_SAMPLES, linearToMulaw, SAMPLE_RATE } from './g711';

/** A cadence: sum of sine tones (Hz) on for `onMs`, then silent for `offMs`, repeated. */
export interface Tone {
  frequencies: readonly number[];
  onMs: number;
  offMs: number;
  /** Peak level of each tone, 0..1 of full scale. */
  level?: number;
}

/** North American ringback, busy and a short beep. */
export const TONES = {
  ringback: { frequencies: [440, 480], onMs: 2000, offMs: 4000, level: 0.2 },
  busy: { frequencies: [480, 620], onMs: 500, offMs: 500, level: 0.2 },
  ring: { frequencies: [440, 480], onMs: 2000, offMs: 4000, level: 0.3 },
  beep: { frequencies: [1000], onMs: 150, offMs: 0, level: 0.25 },
} as const satisfies Record<string, Tone>;

/** DTMF row and column frequencies. */
export const DTMF: Record<string, [number, number]> = {
  '1': [697, 1209],
  '2': [697, 1336],
  '3': [697, 1477],
  '4': [770, 1209],
  '5': [770, 1336],
  '6': [770, 1477],
  '7': [852, 1209],
  '8': [852, 1336],
  '9': [852, 1477],
  '*': [941, 1209],
  '0': [941, 1336],
  '#': [941, 1477],
};

/** Linear samples of `tone` from sample `start` for `count` samples (the cadence continues across calls). */
export function toneSamples(tone: Tone, start: number, count: number): Int16Array {
  const out = new Int16Array(count);
  const period = ((tone.onMs + tone.offMs) * SAMPLE_RATE) / 1000;
  const on = (tone.onMs * SAMPLE_RATE) / 1000;
  const level = (tone.level ?? 0.2) * 32767;
  for (let i = 0; i < count; i++) {
    const n = start + i;
    if (period > 0 && n % period >= on) continue;
    let v = 0;
    for (const f of tone.frequencies) v += Math.sin((2 * Math.PI * f * n) / SAMPLE_RATE);
    out[i] = Math.round(v * level);
  }
  return out;
}

/** The PCMU payload for one 20 ms frame of `tone`, frame number `frame` of the cadence. */
export function toneFrame(tone: Tone, frame: number): Buffer {
  const samples = toneSamples(tone, frame * FRAME_SAMPLES, FRAME_SAMPLES);
  const out = Buffer.alloc(FRAME_SAMPLES);
  for (let i = 0; i < FRAME_SAMPLES; i++) out[i] = linearToMulaw(samples[i]!);
  return out;
}

/** A 16-bit mono PCM WAV file of `ms` milliseconds of `tone` (one cadence when `ms` is omitted). */
export function toneWav(tone: Tone, ms = tone.onMs + tone.offMs): Buffer {
  const count = Math.round((ms * SAMPLE_RATE) / 1000);
  const samples = toneSamples(tone, 0, count);
  const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(SAMPLE_RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
