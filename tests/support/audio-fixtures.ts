/** Small real audio files made in code: a PCM WAV, a CBR MP3 frame sequence, an Ogg Opus stream. */

/** 16-bit mono PCM WAV of `seconds` of a 440 Hz tone at `rate` Hz. */
export function wavFile(seconds: number, rate = 8000): Buffer {
  const samples = Math.round(seconds * rate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28); // byte rate
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** MPEG-1 layer III, 128 kbit/s, 44.1 kHz, stereo: `frames` frames of silence (417 bytes each). */
export function mp3File(frames: number, withId3 = true): Buffer {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x00]);
  const id3 = Buffer.from([
    0x49,
    0x44,
    0x33,
    3,
    0,
    0,
    0,
    0,
    0,
    10,
    ...new Array<number>(10).fill(0),
  ]);
  return Buffer.concat([...(withId3 ? [id3] : []), ...Array.from({ length: frames }, () => frame)]);
}

function crc32Ogg(buf: Buffer): number {
  let crc = 0;
  for (const byte of buf) {
    crc ^= byte << 24;
    for (let k = 0; k < 8; k++)
      crc = crc & 0x80000000 ? ((crc << 1) ^ 0x04c11db7) >>> 0 : (crc << 1) >>> 0;
  }
  return crc >>> 0;
}

function oggPage(payload: Buffer, granule: bigint, sequence: number, flags: number): Buffer {
  const segments: number[] = [];
  let left = payload.length;
  while (left >= 255) {
    segments.push(255);
    left -= 255;
  }
  segments.push(left);
  const header = Buffer.alloc(27 + segments.length);
  header.write('OggS', 0, 'latin1');
  header[5] = flags;
  header.writeBigInt64LE(granule, 6);
  header.writeUInt32LE(0x5357, 14);
  header.writeUInt32LE(sequence, 18);
  header[26] = segments.length;
  header.set(segments, 27);
  const page = Buffer.concat([header, payload]);
  page.writeUInt32LE(crc32Ogg(page), 22);
  return page;
}

/** Ogg Opus with `seconds` of audio (as the granule positions say); `finished` false drops the end page. */
export function oggOpusFile(seconds: number, finished = true): Buffer {
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'latin1');
  head[8] = 1;
  head[9] = 1;
  head.writeUInt16LE(312, 10); // pre-skip
  head.writeUInt32LE(48000, 12);
  const tags = Buffer.concat([Buffer.from('OpusTags', 'latin1'), Buffer.alloc(8)]);
  const packet = Buffer.from([0xf8, 0xff, 0xfe]); // a silent 20 ms frame
  const total = BigInt(Math.round(seconds * 48000) + 312);
  const pages = [
    oggPage(head, 0n, 0, 0x02),
    oggPage(tags, 0n, 1, 0),
    oggPage(packet, total / 2n, 2, 0),
  ];
  if (finished) pages.push(oggPage(packet, total, 3, 0x04));
  return Buffer.concat(pages);
}
