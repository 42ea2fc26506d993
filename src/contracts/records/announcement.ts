/**
 * An announcement, an item of the `guidance` map (key = its id; the map keeps its first name):
 * text spoken by the server's text to speech in a language, or an uploaded audio file (an `audio`
 * key). Groups choose announcements by id for each of their slots. Admins write it.
 */
import * as v from 'valibot';
import { CONTROL_CHARACTERS, defineRecord } from '../record';

export const ANNOUNCEMENT_KINDS = ['tts', 'audio'] as const;
export type AnnouncementKind = (typeof ANNOUNCEMENT_KINDS)[number];

export const ANNOUNCEMENT_NAME_MAX = 80;
/** The server speaks at most this many characters. */
export const ANNOUNCEMENT_TEXT_MAX = 1000;
export const DEFAULT_LANGUAGE = 'en-us';

/** Control characters other than tab and line breaks, and bidi overrides: never spoken. */
export const UNSPEAKABLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const name = v.pipe(
  v.string(),
  v.check((s) => s.trim() !== '', 'Enter a name for the announcement.'),
  v.check(
    (s) => [...s].length <= ANNOUNCEMENT_NAME_MAX,
    `Use at most ${ANNOUNCEMENT_NAME_MAX} characters.`,
  ),
  v.check((s) => !CONTROL_CHARACTERS.test(s), 'Use letters, digits and punctuation.'),
);

export const AnnouncementSchema = v.object({
  name,
  kind: v.picklist(ANNOUNCEMENT_KINDS, 'Choose text to speech or an audio file.'),
  /** For `tts`: what is said, and the eSpeak NG voice code it is said in (`en-us`). */
  text: v.optional(
    v.pipe(
      v.string(),
      v.check(
        (t) => [...t.trim().normalize('NFC')].length <= ANNOUNCEMENT_TEXT_MAX,
        `Use at most ${ANNOUNCEMENT_TEXT_MAX} characters.`,
      ),
      v.check((t) => !UNSPEAKABLE.test(t), 'Remove the control characters from the text.'),
    ),
    '',
  ),
  language: v.optional(v.string(), DEFAULT_LANGUAGE),
  /** For `audio`: the key of the file in the `audio` map. */
  audioId: v.optional(v.string(), ''),
});
export type Announcement = v.InferOutput<typeof AnnouncementSchema>;

export const announcementRecord = defineRecord('announcement', AnnouncementSchema, {
  name: '',
  kind: 'tts',
  text: '',
  language: DEFAULT_LANGUAGE,
  audioId: '',
});
