/**
 * Announcements ("guidance" map items) as callers hear them: 8 kHz μ-law audio, from text to speech
 * or from an uploaded WAV file resampled. The voice service plays these bytes into a leg (20 ms, 160
 * bytes a frame); the admin screens preview the same bytes decoded into a WAV (pcm.ts `pcmuWav`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MediaMaps } from '../audio/stored';
import { AUDIO_ID } from '../../src/contracts/records/audio';
import { decodeWav, resample, toPcmu, WavError } from '../platform/audio/pcm';
import type { Speech } from './speech';
import { SAMPLE_RATE } from '../platform/audio/g711';

/** At most this many characters of text are spoken. */
export const TEXT_MAX = 1000;

export type AnnouncementErrorKind = 'bad_text' | 'not_found' | 'unplayable';

export class AnnouncementError extends Error {
  override readonly name = 'AnnouncementError';
  constructor(
    readonly kind: AnnouncementErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** Control characters other than tab and line breaks, and bidi overrides, are not spoken text. */
const UNSPEAKABLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** The text to speak: trimmed, NFC, 1..TEXT_MAX characters, no control characters. */
export function parseSpokenText(raw: string): string {
  const text = raw.trim().normalize('NFC');
  if (text === '') throw new AnnouncementError('bad_text', 'Enter the text to speak');
  if ([...text].length > TEXT_MAX) {
    throw new AnnouncementError('bad_text', `The text may be at most ${TEXT_MAX} characters`);
  }
  if (UNSPEAKABLE.test(text)) {
    throw new AnnouncementError('bad_text', 'The text must not contain control characters');
  }
  return text;
}

export interface Announcements {
  /** The μ-law audio of the announcement stored under `id` in the `guidance` map. */
  pcmu(id: string): Promise<Buffer>;
  /** The μ-law audio of an announcement item that may not be stored yet (the editor's preview). */
  pcmuOf(item: Readonly<Record<string, unknown>>): Promise<Buffer>;
}

export interface AnnouncementDeps {
  /** The `audio` and `guidance` maps, on either backend. */
  maps: MediaMaps;
  speech: Speech;
  dataDir: string;
}

export function createAnnouncements(deps: AnnouncementDeps): Announcements {
  const cacheDir = join(deps.dataDir, 'speech');

  /** An uploaded file, resampled once (files never change under an id) and cached beside the speech. */
  async function fileAudio(audioId: string): Promise<Buffer> {
    const item = AUDIO_ID.test(audioId) ? await deps.maps.audio(audioId) : null;
    if (!item) {
      throw new AnnouncementError('not_found', 'The audio file of this announcement was deleted');
    }
    const name = typeof item.name === 'string' ? item.name : audioId;
    if (item.kind !== 'wav') {
      throw new AnnouncementError(
        'unplayable',
        `${name} is ${String(item.kind).toUpperCase()}; only WAV files can be played to callers for now`,
      );
    }
    const key = createHash('sha256')
      .update(JSON.stringify([deps.speech.engine, 'file', audioId]))
      .digest('hex');
    const cached = join(cacheDir, `${key}.pcmu`);
    const hit = await readFile(cached).catch(() => null);
    if (hit !== null && hit.length > 0) return hit;
    const bytes = await readFile(join(deps.dataDir, 'audio', `${audioId}.wav`)).catch(() => {
      throw new AnnouncementError('not_found', `The file of ${name} is missing on the server`);
    });
    let pcmu: Buffer;
    try {
      pcmu = toPcmu(resample(decodeWav(bytes), SAMPLE_RATE));
    } catch (err) {
      if (err instanceof WavError)
        throw new AnnouncementError('unplayable', `${name}: ${err.message}`);
      throw err;
    }
    const temp = `${cached}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temp, pcmu);
      await rename(temp, cached);
    } catch {
      await rm(temp, { force: true });
    }
    return pcmu;
  }

  async function pcmuOf(item: Readonly<Record<string, unknown>>): Promise<Buffer> {
    if (item.kind === 'audio') {
      if (typeof item.audioId !== 'string' || item.audioId === '') {
        throw new AnnouncementError('not_found', 'This announcement has no audio file chosen');
      }
      return fileAudio(item.audioId);
    }
    if (item.kind === 'tts') {
      const text = parseSpokenText(typeof item.text === 'string' ? item.text : '');
      const language = typeof item.language === 'string' ? item.language : '';
      return deps.speech.render(text, language);
    }
    throw new AnnouncementError(
      'unplayable',
      'This announcement is neither text nor an audio file',
    );
  }

  return {
    pcmuOf,
    async pcmu(id) {
      const item = await deps.maps.announcement(id);
      if (!item) throw new AnnouncementError('not_found', 'No such announcement');
      return pcmuOf(item);
    },
  };
}
