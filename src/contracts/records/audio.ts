/**
 * An uploaded audio file, an item of the `audio` map (key = its id): described by the server once
 * the upload is checked and stored (admins upload through `POST /api/audio`, and delete through the
 * API too, so the file and its item go together).
 */
import * as v from 'valibot';
import { defineRecord } from '../record';

export const AUDIO_KINDS = ['wav', 'mp3', 'ogg'] as const;
export type AudioKind = (typeof AUDIO_KINDS)[number];

/** An audio file's id. */
export const AUDIO_ID = /^aud-[a-z0-9]{12}$/;

export const AudioSchema = v.object({
  /** The name the admin gave the file (a label only). */
  name: v.pipe(v.string(), v.nonEmpty(), v.maxLength(120)),
  kind: v.picklist(AUDIO_KINDS),
  contentType: v.string(),
  /** Bytes. */
  size: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** Seconds. */
  duration: v.pipe(v.number(), v.finite(), v.minValue(0)),
  uploadedBy: v.optional(v.string(), ''),
  /** ISO 8601. */
  uploadedAt: v.optional(v.string(), ''),
});
export type AudioFile = v.InferOutput<typeof AudioSchema>;

/** An item that names no kind the server plays is no file. */
export const audioRecord = defineRecord(
  'audio',
  AudioSchema,
  { name: '', kind: 'wav', contentType: '', size: 0, duration: 0, uploadedBy: '', uploadedAt: '' },
  ['kind'],
);
