/**
 * A person's own settings, the `settings:{identity}` document: read and written by that person
 * only. The phone's devices and ringtone volume, do not disturb, and keyboard shortcuts. Writes
 * change the fields they name (a patch), so each screen keeps what the others wrote.
 */
import * as v from 'valibot';
import { defineRecord } from '../record';

export const SHORTCUT_ACTIONS = ['answer', 'hangUp', 'mute', 'hold', 'park', 'dial'] as const;
export type ShortcutAction = (typeof SHORTCUT_ACTIONS)[number];

export const DEFAULT_RINGTONE_VOLUME = 80;

/** A device id the browser gave (null: the browser's default). */
const deviceId = v.optional(v.nullable(v.pipe(v.string(), v.nonEmpty(), v.maxLength(512))), null);
/** A key combination as written ("Alt+M"). */
const combo = v.pipe(v.string(), v.nonEmpty(), v.maxLength(40));

export const SettingsSchema = v.object({
  doNotDisturb: v.optional(v.boolean(), false),
  microphoneId: deviceId,
  speakerId: deviceId,
  ringtoneId: deviceId,
  /** Percent of the ringtone's own level. */
  ringtoneVolume: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100)),
    DEFAULT_RINGTONE_VOLUME,
  ),
  /** Each action's combination; an action left out has its default. */
  shortcuts: v.optional(
    v.object({
      answer: v.optional(combo),
      hangUp: v.optional(combo),
      mute: v.optional(combo),
      hold: v.optional(combo),
      park: v.optional(combo),
      dial: v.optional(combo),
    }),
    {},
  ),
});
export type Settings = v.InferOutput<typeof SettingsSchema>;

export const settingsRecord = defineRecord('settings', SettingsSchema, {
  doNotDisturb: false,
  microphoneId: null,
  speakerId: null,
  ringtoneId: null,
  ringtoneVolume: DEFAULT_RINGTONE_VOLUME,
  shortcuts: {},
});
