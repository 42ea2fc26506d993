/**
 * An announcement as stored in the `guidance` map (key = its id): text spoken by the server's text to
 * speech in a language, or an uploaded audio file (`audio` map). Groups choose them by id for open,
 * closed, holiday and hold (group.ts `guidance`). The server reads `name` and `audioId` to refuse
 * deleting a file in use, and renders what callers hear from the rest (server/guidance).
 */
import type { JsonObject } from '../../../../machines/syncPorts';
import { GUIDANCE_SLOT_LABELS } from '../../../../domain/group';
import { GUIDANCE_SLOTS, type Group, type GuidanceSlot } from '../../../../contracts/records/group';

export type GuidanceKind = 'tts' | 'audio';

export interface Guidance {
  name: string;
  kind: GuidanceKind;
  /** For `tts`: what is said, and the eSpeak NG voice code it is said in (`en-us`). */
  text: string;
  language: string;
  /** For `audio`: the key of the file in the `audio` map. */
  audioId: string;
}

export const GUIDANCE_MAP = 'guidance';
export const KIND_LABELS: Readonly<Record<GuidanceKind, string>> = {
  tts: 'Text to speech',
  audio: 'Audio file',
};
export const NAME_MAX = 80;
/** The server speaks at most this many characters (server/guidance/announcements.ts TEXT_MAX). */
export const TEXT_MAX = 1000;
export const DEFAULT_LANGUAGE = 'en-us';

/** What the form needs to know of an audio file. */
export interface AudioFile {
  name: string;
  kind: string;
}

export const emptyGuidance = (language = DEFAULT_LANGUAGE): Guidance => ({
  name: '',
  kind: 'tts',
  text: '',
  language,
  audioId: '',
});

/** Reads a stored announcement, tolerating missing or malformed fields. */
export function guidanceFromData(data: JsonObject): Guidance {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    name: str(data.name),
    kind: data.kind === 'audio' ? 'audio' : 'tts',
    text: str(data.text),
    language: str(data.language) || DEFAULT_LANGUAGE,
    audioId: str(data.audioId),
  };
}

/** Only the fields of its kind are stored: a text announcement keeps no file, and the other way round. */
export function guidanceToData(g: Guidance): JsonObject {
  return g.kind === 'tts'
    ? { name: g.name.trim(), kind: 'tts', text: g.text.trim(), language: g.language }
    : { name: g.name.trim(), kind: 'audio', audioId: g.audioId };
}

/** Control characters other than tab and line breaks, and bidi overrides (as the server refuses). */
const UNSPEAKABLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Every field, whatever the kind: what an editor keeps, so switching kind back and forth loses nothing. */
export function guidanceDraft(g: Guidance): JsonObject {
  return { name: g.name, kind: g.kind, text: g.text, language: g.language, audioId: g.audioId };
}

export type GuidanceErrors = Partial<Record<keyof Guidance, string>>;

/**
 * The form's checks. `languages` are the voice codes the server speaks (null while unknown: not
 * checked then), `audio` the files of the `audio` map by id.
 */
export function validateGuidance(
  g: Guidance,
  languages: ReadonlySet<string> | null,
  audio: ReadonlyMap<string, AudioFile>,
): GuidanceErrors {
  const errors: GuidanceErrors = {};
  const name = g.name.trim();
  if (name === '') errors.name = 'Enter a name for the announcement.';
  else if ([...name].length > NAME_MAX) errors.name = `Use at most ${NAME_MAX} characters.`;
  // eslint-disable-next-line no-control-regex
  else if (/[\u0000-\u001f\u007f]/.test(name)) errors.name = 'Use letters, digits and punctuation.';

  if (g.kind === 'tts') {
    const text = g.text.trim();
    const length = [...text.normalize('NFC')].length;
    if (text === '') errors.text = 'Enter what callers will hear.';
    else if (length > TEXT_MAX)
      errors.text = `Use at most ${TEXT_MAX} characters (this is ${length}).`;
    else if (UNSPEAKABLE.test(text)) errors.text = 'Remove the control characters from the text.';
    if (g.language === '') errors.language = 'Choose a language.';
    else if (languages !== null && !languages.has(g.language))
      errors.language = `There is no voice for ${g.language}; choose another language.`;
  } else if (g.kind === 'audio') {
    const file = audio.get(g.audioId);
    if (g.audioId === '') errors.audioId = 'Choose an audio file.';
    else if (!file) errors.audioId = 'This audio file was deleted; choose another.';
    else if (file.kind !== 'wav')
      errors.audioId = `${file.name} is ${file.kind.toUpperCase()}; only WAV files can be played to callers for now.`;
  } else {
    errors.kind = 'Choose text to speech or an audio file.';
  }
  return errors;
}

/** Ids are short, random and valid in a route (`paths.isValidRouteId`). */
export function newGuidanceId(random: () => number = Math.random): string {
  let id = 'gdn-';
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  for (let i = 0; i < 10; i++) id += alphabet[Math.floor(random() * alphabet.length)];
  return id;
}

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
