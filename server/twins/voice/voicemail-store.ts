/**
 * Voicemail messages: what a caller said after the tone, kept as a WAV file under the data folder
 * (`voicemail/<id>.wav`) beside a small JSON file naming the ring group it was left for (only its
 * members and admins may hear it). A message lives as long as its call's history row: both are
 * kept for the history retention ({@link VoicemailStore.sweep} removes older files).
 *
 * The embedded backend names its messages `vm-…`. The TwiML application mode keeps each
 * `<Record>`ing under its Recording SID (`RE…`), so the Recordings resource finds it after a
 * restart as Twilio does, until it is deleted ({@link VoicemailStore.remove}).
 */
import { randomBytes } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { serveRange } from '../../audio/routes';
import type { VoicemailMessages } from '../../calls/voicemail';
import { HttpError } from '../../platform/http/errors';
import { pcmuWav } from '../../guidance/pcm';
import { SAMPLE_RATE } from './audio';

export interface VoicemailMeta {
  groupId: string;
  callId: string;
  at: number;
  seconds: number;
}

export interface VoicemailStore {
  /**
   * Keeps a message (μ-law at 8 kHz) under a new `vm-` id, or under `id` when given (a Recording
   * SID); returns its id. Messages shorter than a second are not kept.
   */
  save(
    pcmu: Buffer,
    meta: Omit<VoicemailMeta, 'seconds'>,
    id?: string,
  ): { id: string; seconds: number } | null;
  /** Where the message's WAV file is and whose it is, or null when there is no such message. */
  find(id: string): { path: string; meta: VoicemailMeta } | null;
  /** Deletes a message's files; false when there was no such message. */
  remove(id: string): boolean;
  /** Removes messages kept longer than `maxAgeMs`; returns how many went. */
  sweep(now: number, maxAgeMs: number): number;
}

/** A message's id: the embedded backend's `vm-…`, or a Recording SID. */
const ID = /^(vm-[a-z0-9]{16}|RE[0-9a-f]{32})$/;
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
    save(pcmu, meta, given) {
      if (given !== undefined && !ID.test(given)) throw new Error(`Not a message id: ${given}`);
      if (pcmu.length < MIN_BYTES) return null;
      const id = given ?? `vm-${randomBytes(8).toString('hex')}`;
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
    sweep(now, maxAgeMs) {
      let removed = 0;
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        try {
          if (now - statSync(path).mtimeMs <= maxAgeMs && !name.endsWith('.tmp')) continue;
          rmSync(path, { force: true });
          if (name.endsWith('.wav')) removed++;
        } catch {
          // Gone meanwhile: nothing to remove.
        }
      }
      return removed;
    },
  };
}

/**
 * The embedded backend's messages as GET /api/voicemail/{id} serves them (server/calls/voicemail.ts):
 * the WAV under the data folder, with ranges for the history's player.
 */
export function storedMessages(store: VoicemailStore): VoicemailMessages {
  return {
    find(id) {
      const found = store.find(id);
      if (!found) return Promise.resolve(null);
      return Promise.resolve({
        groupId: found.meta.groupId,
        async send(ctx) {
          const { size } = await stat(found.path).catch(() => {
            throw new HttpError(404, 'not_found', 'No such voicemail message');
          });
          ctx.res.setHeader('Cache-Control', 'private, no-store');
          serveRange(ctx, found.path, size, 'audio/wav');
        },
      });
    },
  };
}
