/**
 * What an uploaded file really is, from its bytes (never its name or declared type), and how long it
 * plays. Three formats: WAV (PCM or μ-law in RIFF), MP3 (MPEG-1/2 layer III, with or without ID3v2),
 * Ogg Opus. A file cut off mid-upload fails the duration read and is refused.
 */
export type AudioKind = 'wav' | 'mp3' | 'ogg';

export const CONTENT_TYPES: Readonly<Record<AudioKind, string>> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
};

export function sniffAudio(head: Buffer): AudioKind | null {
  if (
    head.length >= 12 &&
    head.toString('latin1', 0, 4) === 'RIFF' &&
    head.toString('latin1', 8, 12) === 'WAVE'
  )
    return 'wav';
  if (
    head.length >= 36 &&
    head.toString('latin1', 0, 4) === 'OggS' &&
    head.indexOf('OpusHead', 0, 'latin1') >= 0
  )
    return 'ogg';
  const start = id3Length(head);
  if (start !== null && start + 4 <= head.length && mp3Frame(head, start) !== null) return 'mp3';
  return null;
}

/** Bytes taken by a leading ID3v2 tag (0 without one), or null when the tag is malformed. */
function id3Length(head: Buffer): number | null {
  if (head.length < 10 || head.toString('latin1', 0, 3) !== 'ID3') return 0;
  const size =
    ((head[6]! & 0x7f) << 21) |
    ((head[7]! & 0x7f) << 14) |
    ((head[8]! & 0x7f) << 7) |
    (head[9]! & 0x7f);
  if ((head[6]! | head[7]! | head[8]! | head[9]!) & 0x80) return null;
  return 10 + size + (head[5]! & 0x10 ? 10 : 0);
}

const BITRATES_V1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATES_V2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const RATES: Record<number, number[]> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
};

interface Mp3Frame {
  bitrate: number;
  sampleRate: number;
  samplesPerFrame: number;
  mpeg1: boolean;
  mono: boolean;
}

function mp3Frame(buf: Buffer, at: number): Mp3Frame | null {
  if (at + 4 > buf.length) return null;
  const b1 = buf[at]!,
    b2 = buf[at + 1]!,
    b3 = buf[at + 2]!,
    b4 = buf[at + 3]!;
  if (b1 !== 0xff || (b2 & 0xe0) !== 0xe0) return null;
  const version = (b2 >> 3) & 3; // 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5
  const layer = (b2 >> 1) & 3; // 1 = layer III
  if (version === 1 || layer !== 1) return null;
  const bitrateIndex = b3 >> 4;
  const rateIndex = (b3 >> 2) & 3;
  if (bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const mpeg1 = version === 3;
  return {
    bitrate: (mpeg1 ? BITRATES_V1 : BITRATES_V2)[bitrateIndex]! * 1000,
    sampleRate: RATES[version]![rateIndex]!,
    samplesPerFrame: mpeg1 ? 1152 : 576,
    mpeg1,
    mono: b4 >> 6 === 3,
  };
}

/**
 * Seconds of audio, from the file's head (first 64 KiB), tail (last 64 KiB) and size; null when the
 * bytes do not add up (a file cut off mid-upload, a header that lies).
 */
export function audioDuration(
  kind: AudioKind,
  head: Buffer,
  tail: Buffer,
  size: number,
): number | null {
  switch (kind) {
    case 'wav':
      return wavDuration(head, size);
    case 'mp3':
      return mp3Duration(head, size);
    case 'ogg':
      return oggDuration(head, tail);
  }
}

function wavDuration(head: Buffer, size: number): number | null {
  let at = 12;
  let byteRate = 0;
  while (at + 8 <= head.length) {
    const id = head.toString('latin1', at, at + 4);
    const length = head.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 16 <= head.length) byteRate = head.readUInt32LE(at + 16);
    if (id === 'data') {
      if (byteRate === 0) return null;
      // The data chunk must be all there: a shorter file was cut off.
      if (at + 8 + length > size) return null;
      return length / byteRate;
    }
    at += 8 + length + (length % 2);
  }
  return null;
}

function mp3Duration(head: Buffer, size: number): number | null {
  const start = id3Length(head);
  if (start === null) return null;
  const frame = mp3Frame(head, start);
  if (frame === null) return null;
  // A Xing/Info header (VBR files) says how many frames there are.
  const sideInfo = frame.mpeg1 ? (frame.mono ? 17 : 32) : frame.mono ? 9 : 17;
  const tagAt = start + 4 + sideInfo;
  const tag = head.toString('latin1', tagAt, tagAt + 4);
  if (
    (tag === 'Xing' || tag === 'Info') &&
    tagAt + 12 <= head.length &&
    head.readUInt32BE(tagAt + 4) & 1
  ) {
    const frames = head.readUInt32BE(tagAt + 8);
    return (frames * frame.samplesPerFrame) / frame.sampleRate;
  }
  return ((size - start) * 8) / frame.bitrate;
}

function oggDuration(head: Buffer, tail: Buffer): number | null {
  const opusHead = head.indexOf('OpusHead', 0, 'latin1');
  if (opusHead < 0 || opusHead + 12 > head.length) return null;
  const preSkip = head.readUInt16LE(opusHead + 10);
  // The last page's granule position counts 48 kHz samples; an unfinished stream has no end-of-stream page.
  const last = tail.lastIndexOf('OggS', tail.length - 1, 'latin1');
  if (last < 0 || last + 14 > tail.length) return null;
  const endOfStream = (tail[last + 5]! & 0x04) !== 0;
  if (!endOfStream) return null;
  const granule = Number(tail.readBigInt64LE(last + 6));
  if (granule < preSkip) return null;
  return (granule - preSkip) / 48000;
}
