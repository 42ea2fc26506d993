/**
 * G.711 μ-law audio made on the server: the tones a phone plays (ringback, busy, beeps) as 20 ms
 * PCMU frames for a media leg, and as WAV files for the Voice SDK's sounds (ringtone, DTMF).
 */

export const SAMPLE_RATE = 8000;
/** One RTP packet of PCMU: 20 ms at 8 kHz. */
export const FRAME_SAMPLES = 160;
/** μ-law's code for zero. */
export const PCMU_SILENCE = 0xff;

/** ITU-T G.711 μ-law encoding of one 16-bit linear sample. */
export function linearToMulaw(sample: number): number {
  const BIAS = 0x84;
  const CLIP = 32635;
  let s = Math.max(-32768, Math.min(32767, Math.round(sample)));
  const sign = s < 0 ? 0x80 : 0;
  if (s < 0) s = -s;
  if (s > CLIP) s = CLIP;
  s += BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** ITU-T G.711 μ-law decoding to a 16-bit linear sample. */
export function mulawToLinear(code: number): number {
  const u = ~code & 0xff;
  const sign = u & 0x80;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84;
  return sign ? -magnitude : magnitude;
}

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
const DTMF: Record<string, [number, number]> = {
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

/** The Voice SDK's sound names and what each one sounds like here. */
export const SDK_SOUNDS: Readonly<Record<string, Tone>> = {
  incoming: TONES.ring,
  outgoing: { frequencies: [440, 480], onMs: 200, offMs: 0, level: 0.15 },
  disconnect: { frequencies: [480, 620], onMs: 300, offMs: 0, level: 0.15 },
  ...Object.fromEntries(
    Object.entries(DTMF).map(([digit, frequencies]) => [
      digit === '*' ? 'dtmfs' : digit === '#' ? 'dtmfh' : `dtmf${digit}`,
      { frequencies, onMs: 120, offMs: 0, level: 0.2 },
    ]),
  ),
};

/**
 * The default hold music, made here rather than shipped as a file: a slow, soft arpeggio over four
 * chords (C, A minor, F, G), each note a sine with its first harmonic and a gentle decay, 16 s
 * long and made to loop without a click. PCMU, 8 kHz, ready to be cut into 20 ms frames.
 */
export function holdMusic(): Buffer {
  const BEAT = 0.5; // seconds per note
  const chords = [
    [261.63, 329.63, 392.0, 523.25],
    [220.0, 261.63, 329.63, 440.0],
    [174.61, 220.0, 261.63, 349.23],
    [196.0, 246.94, 293.66, 392.0],
  ];
  const notes = chords.flatMap((chord) => [
    ...chord,
    ...chord.slice(1, 3).reverse(),
    chord[0]!,
    chord[2]!,
  ]);
  const noteSamples = Math.round(BEAT * SAMPLE_RATE);
  const total = notes.length * noteSamples;
  const out = Buffer.alloc(total);
  for (let n = 0; n < notes.length; n++) {
    const f = notes[n]!;
    for (let i = 0; i < noteSamples; i++) {
      const t = i / SAMPLE_RATE;
      const attack = Math.min(1, i / 80);
      const release = Math.min(1, (noteSamples - i) / 200);
      const envelope = attack * release * Math.exp(-2.2 * t);
      const v = Math.sin(2 * Math.PI * f * t) * 0.8 + Math.sin(2 * Math.PI * 2 * f * t) * 0.2;
      out[n * noteSamples + i] = linearToMulaw(v * envelope * 0.3 * 32767);
    }
  }
  return out;
}
