/**
 * The twin's own hold music, what a held or waiting caller hears unless a `waitUrl` says otherwise.
 */
import { linearToMulaw, SAMPLE_RATE } from '../../platform/audio/g711';

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
