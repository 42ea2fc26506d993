/**
 * What the voice twin's scripted phones and the media tests hear: `loudestFrequency` reads a steady
 * tone from half a second of 8 kHz audio, whatever its frequency falls between, and `dtmfKey` a key.
 */
import { describe, expect, it } from 'vitest';
import { mulawToPcm } from '../../../../../server/platform/audio/g711';
import {
  dtmfAudio,
  dtmfKey,
  loudestFrequency,
  phoneNamed,
  steadyTone,
} from '../../../../../server/twins/voice/phones';

/** `n` samples of a tone at `hz` and `phase`, with a quieter third harmonic (as a codec leaves). */
function tone(hz: number, phase: number, n = 4000): Int16Array {
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++)
    out[i] = Math.round(
      8000 * Math.sin((2 * Math.PI * hz * i) / 8000 + phase) +
        300 * Math.sin((2 * Math.PI * 3 * hz * i) / 8000),
    );
  return out;
}

describe('loudestFrequency', () => {
  // 1004 Hz and 852 Hz were read as 2180 to 2820 Hz: a 10 Hz scan of 4000 samples lands on the
  // zeros of the Goertzel response either side of them (every 2 Hz), and the harmonic won.
  it.each([1004, 1003, 997, 852, 697, 440, 660, 350, 3011])(
    'reads a steady %i Hz to the hertz, at any phase',
    (hz) => {
      for (const phase of [0, 0.7, 1.9, 3]) expect(loudestFrequency(tone(hz, phase))).toBe(hz);
    },
  );

  it('reads a short piece too (60 ms)', () => {
    expect(loudestFrequency(tone(1004, 0.3, 480))).toBeGreaterThanOrEqual(1000);
    expect(loudestFrequency(tone(1004, 0.3, 480))).toBeLessThanOrEqual(1008);
  });

  it('finds a short beep at the end of half a second of silence', () => {
    const pcm = new Int16Array(4000);
    pcm.set(tone(1000, 0.2, 1200), 2800);
    expect(loudestFrequency(pcm)).toBe(1000);
  });

  it('hears silence as null', () => {
    expect(loudestFrequency(new Int16Array(4000))).toBeNull();
  });

  it("reads each scripted phone's own tone through G.711, from any half second", () => {
    const { toneHz } = phoneNamed('person');
    const pcm = mulawToPcm(steadyTone(toneHz));
    for (const from of [0, 1234, 3999])
      expect(loudestFrequency(pcm.subarray(from, from + 4000))).toBe(toneHz);
  });
});

describe('dtmfKey', () => {
  it('reads each key of a keypad from its in-band tones', () => {
    for (const key of '0123456789*#') {
      const pcm = mulawToPcm(dtmfAudio(key).subarray(0, 800));
      expect(dtmfKey(pcm)).toBe(key);
    }
  });
});
