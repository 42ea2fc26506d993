/**
 * Turning any announcement's audio into what a caller's leg carries: 8 kHz mono G.711 μ-law (PCMU),
 * and back into a 16-bit WAV of exactly that audio for the browser's preview. Pure functions.
 */
import { mulawToLinear, mulawToPcm, pcmToMulaw, SAMPLE_RATE } from './g711';

/** Linear 16-bit mono samples at a sample rate. */
export interface Pcm {
  rate: number;
  samples: Int16Array;
}

/**
 * Band-limited resampling to `to` Hz (a Hann-windowed sinc, cut off just below the lower Nyquist
 * frequency), so speech made at 22.05 kHz does not alias when it becomes telephone audio.
 */
export function resample(pcm: Pcm, to: number = SAMPLE_RATE): Int16Array {
  const { rate: from, samples } = pcm;
  if (from === to) return samples.slice();
  const ratio = to / from;
  // Cut-off as a fraction of the input rate's Nyquist frequency.
  const cutoff = Math.min(1, ratio) * 0.9;
  const half = Math.ceil(8 / cutoff);
  const outLength = Math.floor((samples.length * to) / from);
  const out = new Int16Array(outLength);
  // The kernel, tabulated at 1/STEPS of an input sample, so the loop below is multiplies and adds.
  const STEPS = 256;
  const table = new Float64Array(half * STEPS + 2);
  for (let i = 0; i < table.length; i++) {
    const d = i / STEPS;
    const x = Math.PI * cutoff * d;
    const sinc = x === 0 ? 1 : Math.sin(x) / x;
    table[i] = d >= half ? 0 : sinc * (0.5 + 0.5 * Math.cos((Math.PI * d) / half));
  }
  const step = from / to;
  for (let n = 0; n < outLength; n++) {
    const t = n * step;
    const centre = Math.floor(t);
    let sum = 0;
    let weight = 0;
    const first = Math.max(0, centre - half + 1);
    const last = Math.min(samples.length - 1, centre + half);
    for (let k = first; k <= last; k++) {
      const h = table[Math.round(Math.abs(t - k) * STEPS)]!;
      sum += samples[k]! * h;
      weight += h;
    }
    out[n] = Math.max(-32768, Math.min(32767, Math.round(weight === 0 ? 0 : sum / weight)));
  }
  return out;
}

/** μ-law bytes of linear samples (one byte a sample): the voice twin's codec (codec.ts). */
export const toPcmu: (samples: Int16Array) => Buffer = pcmToMulaw;

/** Linear samples of μ-law bytes: what the far end of a PCMU leg decodes. */
export const fromPcmu: (pcmu: Buffer) => Int16Array = mulawToPcm;

/** A 16-bit mono PCM WAV file of `samples` at `rate` Hz. */
export function pcmWav(samples: Int16Array, rate: number): Buffer {
  const data = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) data.writeInt16LE(samples[i]!, i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** The WAV a browser plays to preview PCMU: the μ-law decoded, at 8 kHz, nothing added. */
export function pcmuWav(pcmu: Buffer): Buffer {
  return pcmWav(fromPcmu(pcmu), SAMPLE_RATE);
}

/** Why a WAV file cannot be decoded (a message for the admin). */
export class WavError extends Error {
  override readonly name = 'WavError';
}

/**
 * The samples of a WAV file, mixed down to mono: integer PCM of 8, 16, 24 or 32 bits, 32-bit float,
 * μ-law and A-law (WAVE_FORMAT_EXTENSIBLE included). Anything else is a {@link WavError}.
 */
export function decodeWav(file: Buffer): Pcm {
  if (
    file.length < 12 ||
    file.toString('latin1', 0, 4) !== 'RIFF' ||
    file.toString('latin1', 8, 12) !== 'WAVE'
  ) {
    throw new WavError('This is not a WAV file');
  }
  let format: { tag: number; channels: number; rate: number; bits: number } | null = null;
  let at = 12;
  while (at + 8 <= file.length) {
    const id = file.toString('latin1', at, at + 4);
    const size = file.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ' && size >= 16 && body + 16 <= file.length) {
      let tag = file.readUInt16LE(body);
      if (tag === 0xfffe && size >= 26 && body + 26 <= file.length)
        tag = file.readUInt16LE(body + 24);
      format = {
        tag,
        channels: file.readUInt16LE(body + 2),
        rate: file.readUInt32LE(body + 4),
        bits: file.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!format) throw new WavError('This WAV file has no format chunk before its audio');
      const end = Math.min(file.length, body + size);
      return { rate: format.rate, samples: mixDown(file.subarray(body, end), format) };
    }
    at = body + size + (size % 2);
  }
  throw new WavError('This WAV file has no audio data');
}

function mixDown(
  data: Buffer,
  f: { tag: number; channels: number; rate: number; bits: number },
): Int16Array {
  if (f.channels < 1 || f.channels > 8 || f.rate < 1000 || f.rate > 384000) {
    throw new WavError('This WAV file has an unusual channel count or sample rate');
  }
  const read = sampleReader(f.tag, f.bits);
  if (!read) throw new WavError('This WAV file uses an encoding that cannot be played to callers');
  const width = f.bits / 8;
  const frames = Math.floor(data.length / (width * f.channels));
  const out = new Int16Array(frames);
  for (let i = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < f.channels; c++) sum += read(data, (i * f.channels + c) * width);
    out[i] = Math.max(-32768, Math.min(32767, Math.round(sum / f.channels)));
  }
  return out;
}

type Reader = (data: Buffer, at: number) => number;

function sampleReader(tag: number, bits: number): Reader | null {
  if (tag === 1 && bits === 8) return (d, i) => (d[i]! - 128) << 8;
  if (tag === 1 && bits === 16) return (d, i) => d.readInt16LE(i);
  if (tag === 1 && bits === 24) return (d, i) => d.readIntLE(i, 3) >> 8;
  if (tag === 1 && bits === 32) return (d, i) => d.readInt32LE(i) / 65536;
  if (tag === 3 && bits === 32) return (d, i) => d.readFloatLE(i) * 32767;
  if (tag === 7 && bits === 8) return (d, i) => mulawToLinear(d[i]!);
  if (tag === 6 && bits === 8) return (d, i) => alawToLinear(d[i]!);
  return null;
}

/** ITU-T G.711 A-law decoding to a 16-bit linear sample. */
function alawToLinear(code: number): number {
  const a = code ^ 0x55;
  const exponent = (a >> 4) & 0x07;
  const mantissa = a & 0x0f;
  let magnitude =
    exponent === 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1);
  if (!(a & 0x80)) magnitude = -magnitude;
  return magnitude;
}
