/**
 * The Voice SDK's sounds (incoming ring, outgoing, disconnect, DTMF), made here from the phone's
 * tones, served by GET /api/voice/sounds/{name}.wav.
 */
import { DTMF, TONES, type Tone } from '../platform/audio/tones';

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
