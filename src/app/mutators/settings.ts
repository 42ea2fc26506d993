/**
 * Writes to the person's own `settings:{identity}` document: do not disturb, the audio devices and
 * ringtone volume, the keyboard shortcuts, the voicemail heard. Each is a patch of the fields it names (so each screen
 * keeps what the others wrote), checked as the whole document it makes (a {@link WriteRefused}
 * names the field, and nothing is sent).
 */
import type { JsonObject } from '../../contracts/record';
import {
  HEARD_VOICEMAIL_LIMIT,
  settingsRecord,
  type Settings,
  type ShortcutAction,
} from '../../contracts/records/settings';
import { selectDocumentData } from '../../machines/syncDocument.selectors';
import { patchDocument, type DocumentActor } from './core';

export type AudioDeviceChoice = 'microphoneId' | 'speakerId' | 'ringtoneId';

/** Changes `patch`'s fields of the settings the document holds now. */
function change(settings: DocumentActor, patch: Partial<Settings> & JsonObject): Promise<void> {
  return patchDocument(settings, settingsRecord, selectDocumentData(settings.getSnapshot()), patch);
}

/** Do not disturb: the server turns callers away with "not taking calls" instead of ringing. */
export function setDoNotDisturb(settings: DocumentActor, on: boolean): Promise<void> {
  return change(settings, { doNotDisturb: on });
}

/** A microphone, speaker or ringtone device (null: the browser's default). */
export function chooseAudioDevice(
  settings: DocumentActor,
  which: AudioDeviceChoice,
  deviceId: string | null,
): Promise<void> {
  return change(settings, { [which]: deviceId });
}

/** The ringtone's volume, 0..100 percent of its own level. */
export function setRingtoneVolume(settings: DocumentActor, volume: number): Promise<void> {
  return change(settings, { ringtoneVolume: volume });
}

/** Every action's key combination (the whole set, so no stale one is kept). */
export function setShortcuts(
  settings: DocumentActor,
  shortcuts: Record<ShortcutAction, string>,
): Promise<void> {
  return change(settings, { shortcuts: { ...shortcuts } });
}

/** The voicemail message `id` was played: it is no longer unread for this person. */
export function markVoicemailHeard(settings: DocumentActor, id: string): Promise<void> {
  const heard = settingsRecord.read(
    selectDocumentData(settings.getSnapshot()) ?? {},
  ).voicemailHeard;
  if (heard.includes(id)) return Promise.resolve();
  return change(settings, {
    voicemailHeard: [...heard, id].slice(-HEARD_VOICEMAIL_LIMIT),
  });
}

/** Every message left until `at` (epoch ms) counts as heard; the list of heard ones starts again. */
export function markAllVoicemailHeard(settings: DocumentActor, at: number): Promise<void> {
  return change(settings, { voicemailHeardBefore: at, voicemailHeard: [] });
}
