/**
 * The phone part of a person's `settings:{identity}` document, read defensively (a field of the
 * wrong type reads as its default, never a crash), and the checks a save must pass.
 */
import type { JsonObject } from '../../machines/syncPorts';
import type { AudioPreferences } from '../../io/voice/client';

export interface PhoneSettings extends AudioPreferences {
  doNotDisturb: boolean;
}

export const DEFAULT_RINGTONE_VOLUME = 80;

const idOrNull = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' && v.length <= 512 ? v : null;

export function phoneSettingsFrom(data: JsonObject | null | undefined): PhoneSettings {
  const volume = data?.ringtoneVolume;
  return {
    doNotDisturb: data?.doNotDisturb === true,
    microphoneId: idOrNull(data?.microphoneId),
    speakerId: idOrNull(data?.speakerId),
    ringtoneId: idOrNull(data?.ringtoneId),
    ringtoneVolume:
      typeof volume === 'number' && Number.isInteger(volume) && volume >= 0 && volume <= 100
        ? volume
        : DEFAULT_RINGTONE_VOLUME,
  };
}

/** The audio choices alone, as the phone applies them. */
export function audioPreferences(s: PhoneSettings): AudioPreferences {
  return {
    microphoneId: s.microphoneId,
    speakerId: s.speakerId,
    ringtoneId: s.ringtoneId,
    ringtoneVolume: s.ringtoneVolume,
  };
}
