/**
 * The voice twin's recordings: what a caller said after `<Record>`'s tone, kept as a WAV file under
 * the twin's data folder (`voicemail/<RecordingSid>.wav`) beside a small JSON file about it, so the
 * Recordings resource finds it after a restart as Twilio does, until it is deleted
 * ({@link VoicemailStore.remove}: the app deletes a recording with its history row).
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pcmuWav } from '../../platform/audio/pcm';
import { SAMPLE_RATE } from '../../platform/audio/g711';

export interface VoicemailMeta {
  callId: string;
  at: number;
  seconds: number;
}

export interface VoicemailStore {
  /**
   * Keeps a message (μ-law at 8 kHz) under its Recording SID; returns how long it is. Messages
   * shorter than a second are not kept.
   */
  save(
    pcmu: Buffer,
    meta: Omit<VoicemailMeta, 'seconds'>,
    id: string,
  ): { id: string; seconds: number } | null;
  /** Where the message's WAV file is and whose it is, or null when there is no such message. */
  find(id: string): { path: string; meta: VoicemailMeta } | null;
  /** Deletes a message's files; false when there was no such message. */
  remove(id: string): boolean;
}

/** A message's id: its Recording SID. */
const ID = /^RE[0-9a-f]{32}$/;
const MIN_BYTES = SAMPLE_RATE; // one second

export function createVoicemailStore(dataDir: string): VoicemailStore {
  const dir = join(dataDir, 'voicemail');
  mkdirSync(dir, { recursive: true });
  const file = (id: string, ext: string) => join(dir, `${id}.${ext}`);
  const find = (id: string): { path: string; meta: VoicemailMeta } | null => {
    if (!ID.test(id)) return null;
    try {
      const meta = JSON.parse(readFileSync(file(id, 'json'), 'utf8')) as VoicemailMeta;
      statSync(file(id, 'wav'));
      return { path: file(id, 'wav'), meta };
    } catch {
      return null;
    }
  };

  return {
    save(pcmu, meta, id) {
      if (!ID.test(id)) throw new Error(`Not a Recording SID: ${id}`);
      if (pcmu.length < MIN_BYTES) return null;
      const seconds = Math.round(pcmu.length / SAMPLE_RATE);
      const full: VoicemailMeta = { ...meta, seconds };
      // Written aside then renamed, so a crash never leaves half a message under its name.
      const temp = file(id, 'wav.tmp');
      writeFileSync(temp, pcmuWav(pcmu));
      writeFileSync(file(id, 'json'), JSON.stringify(full));
      renameSync(temp, file(id, 'wav'));
      return { id, seconds };
    },
    find,
    remove(id) {
      if (!find(id)) return false;
      // The audio first: a message without its WAV file is no message (find), whatever is left.
      rmSync(file(id, 'wav'), { force: true });
      rmSync(file(id, 'json'), { force: true });
      return true;
    },
  };
}
