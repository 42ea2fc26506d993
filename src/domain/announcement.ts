/**
 * Announcements' rules beyond their record (src/contracts/records/announcement.ts): the words for
 * their kinds, what an editor keeps and what is stored, the form's checks against the voices and
 * files there are, and which ring groups play one. Groups choose announcements by id for their
 * slots (src/contracts/records/group.ts `guidance`).
 */
import type { JsonObject } from '../contracts/record';
import {
  ANNOUNCEMENT_NAME_MAX,
  ANNOUNCEMENT_TEXT_MAX,
  DEFAULT_LANGUAGE,
  UNSPEAKABLE,
  type Announcement,
  type AnnouncementKind,
} from '../contracts/records/announcement';
import type { AudioFile } from '../contracts/records/audio';
import { GUIDANCE_SLOTS, type Group, type GuidanceSlot } from '../contracts/records/group';
import { GUIDANCE_SLOT_LABELS, newRouteId } from './group';

export const KIND_LABELS: Readonly<Record<AnnouncementKind, string>> = {
  tts: 'Text to speech',
  audio: 'Audio file',
};

/** What the announcement form needs to know of an audio file. */
export type AudioChoice = Pick<AudioFile, 'name' | 'kind'>;

export const emptyAnnouncement = (language = DEFAULT_LANGUAGE): Announcement => ({
  name: '',
  kind: 'tts',
  text: '',
  language,
  audioId: '',
});

/** Only the fields of its kind are stored: a text announcement keeps no file, and the other way round. */
export function announcementToData(a: Announcement): JsonObject {
  return a.kind === 'tts'
    ? { name: a.name.trim(), kind: 'tts', text: a.text.trim(), language: a.language }
    : { name: a.name.trim(), kind: 'audio', audioId: a.audioId };
}

/** Every field, whatever the kind: what an editor keeps, so switching kind back and forth loses nothing. */
export function announcementDraft(a: Announcement): JsonObject {
  return { name: a.name, kind: a.kind, text: a.text, language: a.language, audioId: a.audioId };
}

export type AnnouncementErrors = Partial<Record<keyof Announcement, string>>;

/**
 * The form's checks. `languages` are the voice codes the server speaks (null while unknown: not
 * checked then), `audio` the files of the `audio` map by id.
 */
export function validateAnnouncement(
  a: Announcement,
  languages: ReadonlySet<string> | null,
  audio: ReadonlyMap<string, AudioChoice>,
): AnnouncementErrors {
  const errors: AnnouncementErrors = {};
  const name = a.name.trim();
  if (name === '') errors.name = 'Enter a name for the announcement.';
  else if ([...name].length > ANNOUNCEMENT_NAME_MAX)
    errors.name = `Use at most ${ANNOUNCEMENT_NAME_MAX} characters.`;
  // eslint-disable-next-line no-control-regex
  else if (/[\u0000-\u001f\u007f]/.test(name)) errors.name = 'Use letters, digits and punctuation.';

  if (a.kind === 'tts') {
    const text = a.text.trim();
    const length = [...text.normalize('NFC')].length;
    if (text === '') errors.text = 'Enter what callers will hear.';
    else if (length > ANNOUNCEMENT_TEXT_MAX)
      errors.text = `Use at most ${ANNOUNCEMENT_TEXT_MAX} characters (this is ${length}).`;
    else if (UNSPEAKABLE.test(text)) errors.text = 'Remove the control characters from the text.';
    if (a.language === '') errors.language = 'Choose a language.';
    else if (languages !== null && !languages.has(a.language))
      errors.language = `There is no voice for ${a.language}; choose another language.`;
  } else if (a.kind === 'audio') {
    const file = audio.get(a.audioId);
    if (a.audioId === '') errors.audioId = 'Choose an audio file.';
    else if (!file) errors.audioId = 'This audio file was deleted; choose another.';
    else if (file.kind !== 'wav')
      errors.audioId = `${file.name} is ${file.kind.toUpperCase()}; only WAV files can be played to callers for now.`;
  } else {
    errors.kind = 'Choose text to speech or an audio file.';
  }
  return errors;
}

/** Ids are short, random and valid in a route. */
export const newAnnouncementId = (random?: () => number): string => newRouteId('gdn-', random);

/** The groups that play announcement `id`, each with where (e.g. "Sales (when closed)"), by name. */
export function groupsUsing(id: string, groups: ReadonlyMap<string, Group>): string[] {
  const uses: string[] = [];
  for (const group of groups.values()) {
    const slots = GUIDANCE_SLOTS.filter((s: GuidanceSlot) => group.guidance[s] === id);
    if (slots.length > 0) {
      uses.push(
        `${group.name} (${slots.map((s) => GUIDANCE_SLOT_LABELS[s].toLowerCase()).join(', ')})`,
      );
    }
  }
  return uses.sort((a, b) => a.localeCompare(b));
}
