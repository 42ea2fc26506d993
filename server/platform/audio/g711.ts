/**
 * G.711 μ-law (PCMU, 8 kHz), the telephone's own audio: one sample at a time and whole buffers.
 * A shared library (the app's announcements and the voice twin's media both speak it).
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

const MULAW_TABLE = Int16Array.from({ length: 256 }, (_, code) => mulawToLinear(code));

/** μ-law bytes to 16-bit PCM at the same rate. */
export function mulawToPcm(mulaw: Uint8Array): Int16Array {
  const out = new Int16Array(mulaw.length);
  for (let i = 0; i < mulaw.length; i++) out[i] = MULAW_TABLE[mulaw[i]!]!;
  return out;
}

/** 16-bit PCM to μ-law bytes at the same rate. */
export function pcmToMulaw(pcm: Int16Array): Buffer {
  const out = Buffer.allocUnsafe(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = linearToMulaw(pcm[i]!);
  return out;
}
