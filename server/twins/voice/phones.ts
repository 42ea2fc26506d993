/**
 * The twins' phone network: numbers in international form (E.164) that answer as scripted phones,
 * each deterministic, so a test (or a person rehearsing on `twilio-twins`) can call a customer and be
 * called by one. docs/twins-voice.md ("The phone network") has this table as a table; the two say
 * the same.
 *
 * The numbers are in +1 201 555 0100–0199, the range North America keeps for fiction (libphonenumber's
 * own example number, +1 201-555-0123, is in it). A number not listed here reaches no phone: a call to
 * it fails (`failed`), as a call to a number that does not exist does.
 *
 * Each phone is a line of its own: the twin's leg of the call (a media leg as a browser's is, so the
 * bridge, conferences, hold music and `<Record>` treat it as any other) and the phone's handset at
 * the far end of it, a second peer in this process speaking G.711 μ-law (PCMU), as the telephone
 * network does. What the handset says is the phone's tone (a steady sine, each phone its own
 * frequency) and, when asked, DTMF digits in-band (the two tones of each key, 100 ms on, 100 ms off,
 * as a phone's keypad sends them); what it hears is kept for a second at a time, so a test reads
 * its level and its loudest frequency (`PhoneLine.heard`).
 */
import { answerLeg, offerLeg, type MediaLeg, type MediaOptions } from './media';
import { rms } from './codec';
import { linearToMulaw, SAMPLE_RATE } from '../../platform/audio/g711';
import { DTMF } from '../../platform/audio/tones';

export type PhoneAnswer = 'person' | 'busy' | 'no-answer' | 'machine' | 'failed' | 'hangs-up';

export interface PhoneScript {
  number: string;
  /** What the phone is, in a word (the table's first column). */
  name: string;
  answer: PhoneAnswer;
  /** Seconds it rings before it answers (or before the line says busy). */
  ringSeconds: number;
  /** The frequency of the steady tone it talks with (Hz); 0 for none. */
  toneHz: number;
  /** An answering machine's greeting, spoken, then a beep. */
  greeting: string | null;
  /** Seconds after its answer that it hangs up by itself; null: it waits for the other side. */
  hangUpAfterSeconds: number | null;
  /** What it does, as the docs' table says it. */
  does: string;
}

/** The phones. A test names them by their `name` (`phoneNamed`), people by their number. */
export const PHONES: readonly PhoneScript[] = [
  {
    number: '+12015550100',
    name: 'person',
    answer: 'person',
    ringSeconds: 3,
    toneHz: 1004,
    greeting: null,
    hangUpAfterSeconds: null,
    does: 'Rings 3 s, answers and talks: a steady 1004 Hz tone (the telephone test tone) for as long as the call lasts; hears what it is sent.',
  },
  {
    number: '+12015550101',
    name: 'busy',
    answer: 'busy',
    ringSeconds: 1,
    toneHz: 0,
    greeting: null,
    hangUpAfterSeconds: null,
    does: 'Busy after 1 s: the call ends `busy` (`DialCallStatus=busy`).',
  },
  {
    number: '+12015550102',
    name: 'no-answer',
    answer: 'no-answer',
    ringSeconds: 0,
    toneHz: 0,
    greeting: null,
    hangUpAfterSeconds: null,
    does: "Rings until the caller gives up (`<Dial timeout>`, the call's `Timeout`): `no-answer`.",
  },
  {
    number: '+12015550103',
    name: 'machine',
    answer: 'machine',
    ringSeconds: 3,
    toneHz: 0,
    greeting: 'Hello, you have reached 555 0103. Please leave a message after the tone.',
    hangUpAfterSeconds: 20,
    does: 'An answering machine: rings 3 s, answers, says its greeting and beeps, then listens (records) in silence and hangs up 20 s after it answered.',
  },
  {
    number: '+12015550104',
    name: 'failed',
    answer: 'failed',
    ringSeconds: 0,
    toneHz: 0,
    greeting: null,
    hangUpAfterSeconds: null,
    does: 'Rejects the call at once: `failed`, as a number the network cannot complete.',
  },
  {
    number: '+12015550105',
    name: 'hangs-up',
    answer: 'hangs-up',
    ringSeconds: 3,
    toneHz: 852,
    greeting: null,
    hangUpAfterSeconds: 8,
    does: 'Rings 3 s, answers and talks (a steady 852 Hz tone), then hangs up 8 s after it answered.',
  },
  {
    number: '+12015550106',
    name: 'second person',
    answer: 'person',
    ringSeconds: 3,
    toneHz: 697,
    greeting: null,
    hangUpAfterSeconds: null,
    does: 'As +1 201 555 0100, with a 697 Hz tone: a second customer, told apart by what they say.',
  },
];

export const phoneAt = (number: string): PhoneScript | null =>
  PHONES.find((p) => p.number === number) ?? null;

export function phoneNamed(name: string): PhoneScript {
  const found = PHONES.find((p) => p.name === name);
  if (!found) throw new Error(`no phone named ${name}`);
  return found;
}

/** One second of a steady sine at `hz`, as μ-law (it loops without a click: whole periods per second). */
export function steadyTone(hz: number, level = 0.25): Buffer {
  const out = Buffer.alloc(SAMPLE_RATE);
  for (let i = 0; i < SAMPLE_RATE; i++)
    out[i] = linearToMulaw(
      Math.round(Math.sin((2 * Math.PI * hz * i) / SAMPLE_RATE) * level * 32767),
    );
  return out;
}

/** `digits` as a keypad sends them in-band: each key's two tones for 100 ms, then 100 ms of silence. */
export function dtmfAudio(digits: string): Buffer {
  const on = SAMPLE_RATE / 10;
  const parts: Buffer[] = [];
  for (const key of digits) {
    const pair = DTMF[key];
    if (!pair) continue;
    const tone = Buffer.alloc(on * 2, 0xff);
    for (let i = 0; i < on; i++) {
      const v =
        Math.sin((2 * Math.PI * pair[0] * i) / SAMPLE_RATE) +
        Math.sin((2 * Math.PI * pair[1] * i) / SAMPLE_RATE);
      tone[i] = linearToMulaw(Math.round(v * 0.2 * 32767));
    }
    parts.push(tone);
  }
  return Buffer.concat(parts);
}

/** The energy of `frequency` in `samples` (Goertzel), normalised to the samples' count. */
export function goertzel(samples: Int16Array, frequency: number): number {
  const k = 2 * Math.cos((2 * Math.PI * frequency) / SAMPLE_RATE);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]! + k * s1 - s2;
    s2 = s1;
    s1 = s;
  }
  const power = s1 * s1 + s2 * s2 - k * s1 * s2;
  return Math.sqrt(Math.max(0, power)) / Math.max(1, samples.length);
}

/**
 * The loudest frequency of `samples` between 200 and 3400 Hz, to the nearest 1 Hz; null in silence.
 *
 * Two passes. Goertzel over N samples answers only within fs/N of its frequency (2 Hz for half a
 * second at 8 kHz) and is zero at whole multiples of that away, so a 10 Hz scan of the whole window
 * misses a tone between its steps (1004 Hz, the phones' test tone, fell on the zeros either side and
 * a harmonic won). The scan is made on the loudest 50 ms (400 samples: each step sees ±20 Hz; a
 * short beep is found wherever it falls), then the best step is refined over every sample, 1 Hz at
 * a time.
 */
export function loudestFrequency(samples: Int16Array): number | null {
  if (rms(samples) < 100) return null;
  const piece = SAMPLE_RATE / 20;
  let head = samples.subarray(0, piece);
  let headLevel = rms(head);
  for (let at = piece; at + piece <= samples.length; at += piece) {
    const next = samples.subarray(at, at + piece);
    const level = rms(next);
    if (level > headLevel) [head, headLevel] = [next, level];
  }
  let best = 0;
  let bestAt = 0;
  for (let f = 200; f <= 3400; f += 10) {
    const e = goertzel(head, f);
    if (e > best) [best, bestAt] = [e, f];
  }
  const around = bestAt;
  best = 0;
  for (let f = around - 12; f <= around + 12; f++) {
    const e = goertzel(samples, f);
    if (e > best) [best, bestAt] = [e, f];
  }
  return bestAt;
}

/** The DTMF key whose two tones stand out in `samples` (at least 40 ms of audio), or null. */
export function dtmfKey(samples: Int16Array): string | null {
  if (samples.length < 320 || rms(samples) < 300) return null;
  const rows = [697, 770, 852, 941];
  const cols = [1209, 1336, 1477];
  const strongest = (fs: number[]): [number, number] => {
    const es = fs.map((f) => goertzel(samples, f));
    const top = Math.max(...es);
    const others = es.filter((e) => e !== top);
    return [fs[es.indexOf(top)]!, top / Math.max(1e-9, Math.max(...others))];
  };
  const [row, rowRatio] = strongest(rows);
  const [col, colRatio] = strongest(cols);
  if (rowRatio < 4 || colRatio < 4) return null;
  // Each of a key's two tones carries about half its level (a sine's Goertzel magnitude here is half
  // its amplitude): anything else (speech, a single tone near a key's) does not.
  const level = rms(samples);
  if (goertzel(samples, row) < 0.3 * level || goertzel(samples, col) < 0.3 * level) return null;
  return Object.entries(DTMF).find(([, [r, c]]) => r === row && c === col)?.[0] ?? null;
}

/** What the phone heard over the last second. */
export interface Heard {
  /** Root-mean-square level of the last second (0 to 32767). */
  level: number;
  /** Its loudest frequency (Hz), or null when it was silence. */
  toneHz: number | null;
  /** RTP packets the handset received so far. */
  packets: number;
}

/** A phone's line: the twin's leg of the call and the handset at its far end. */
export class PhoneLine {
  /** The last second the handset heard, as 8 kHz PCM. */
  private readonly last = new Int16Array(SAMPLE_RATE);
  private filled = 0;
  /** When the handset last heard a packet: a line gone quiet hears silence. */
  private heardAt = 0;
  private voice: Buffer | null = null;
  private closed = false;

  private constructor(
    /** The twin's end: what the call's TwiML, bridges and conferences use. */
    readonly leg: MediaLeg,
    private readonly handset: MediaLeg,
  ) {
    handset.onAudio((pcm) => {
      const n = Math.min(pcm.length, this.last.length);
      this.last.copyWithin(0, n);
      this.last.set(pcm.subarray(pcm.length - n), this.last.length - n);
      this.filled = Math.min(this.last.length, this.filled + n);
      this.heardAt = performance.now();
    });
  }

  /** A line up: the twin offers, the handset answers, both in G.711 μ-law as the phone network speaks. */
  static async open(media: MediaOptions = {}): Promise<PhoneLine> {
    const options: MediaOptions = {
      ...(media.portRange ? { portRange: media.portRange } : {}),
      ...(media.gatherTimeoutMs === undefined ? {} : { gatherTimeoutMs: media.gatherTimeoutMs }),
      ...(media.fastPath === undefined ? {} : { fastPath: media.fastPath }),
      codecs: ['pcmu'],
    };
    const leg = await offerLeg(options);
    let handset: MediaLeg | null = null;
    try {
      handset = await answerLeg(leg.localSdp, options);
      await leg.accept(handset.localSdp);
      return new PhoneLine(leg, handset);
    } catch (err) {
      await handset?.close();
      await leg.close();
      throw err;
    }
  }

  /** The handset says `sound` (μ-law, looped) from now on; null: it is quiet. */
  talk(sound: Buffer | null): void {
    this.voice = sound;
    if (!this.closed) this.handset.play(sound);
  }

  /** The handset says `sound` once, then goes back to what it said before; resolves when done. */
  async sayOnce(sound: Buffer): Promise<void> {
    if (this.closed || sound.length === 0) return;
    const whole = await this.handset.playOnce(sound);
    if (whole && !this.closed) this.handset.play(this.voice);
  }

  /** Keys pressed on the handset: in-band DTMF, then its voice again. */
  sendDigits(digits: string): Promise<void> {
    return this.sayOnce(dtmfAudio(digits));
  }

  heard(): Heard {
    // Nothing for half a second: the line is quiet, whatever it heard before.
    if (performance.now() - this.heardAt > 500) this.filled = 0;
    const samples = this.last.subarray(this.last.length - this.filled);
    return {
      level: Math.round(rms(samples)),
      toneHz: loudestFrequency(samples.subarray(Math.max(0, samples.length - 4000))),
      packets: this.handset.packetsIn,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handset.close();
    await this.leg.close();
  }
}
