/**
 * A person's own settings, the `settings:{identity}` document: read and written by that person
 * only. The phone's devices and ringtone volume, do not disturb, keyboard shortcuts, and which voicemail messages they have heard. Writes
 * change the fields they name (a patch), so each screen keeps what the others wrote.
 */
import * as v from 'valibot';
import { defineRecord, timestamp } from '../record';
import { VOICEMAIL_ID } from './call';

export const SHORTCUT_ACTIONS = ['answer', 'hangUp', 'mute', 'hold', 'park', 'dial'] as const;
export type ShortcutAction = (typeof SHORTCUT_ACTIONS)[number];

export const DEFAULT_RINGTONE_VOLUME = 80;

/** How many heard voicemails a person's settings remember (the oldest are dropped first). */
export const HEARD_VOICEMAIL_LIMIT = 500;

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
  /**
   * The voicemail messages this person has played (ids, oldest first, at most
   * {@link HEARD_VOICEMAIL_LIMIT}): any other message they may hear is unread for them.
   */
  voicemailHeard: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.regex(VOICEMAIL_ID, 'Not a voicemail id'))),
      v.maxLength(HEARD_VOICEMAIL_LIMIT),
    ),
    [],
  ),
  /** Every message left before this time (epoch ms) counts as heard: "Mark all as heard". */
  voicemailHeardBefore: v.optional(timestamp, 0),
});
export type Settings = v.InferOutput<typeof SettingsSchema>;

export const settingsRecord = defineRecord('settings', SettingsSchema, {
  doNotDisturb: false,
  microphoneId: null,
  speakerId: null,
  ringtoneId: null,
  ringtoneVolume: DEFAULT_RINGTONE_VOLUME,
  shortcuts: {},
  voicemailHeard: [],
  voicemailHeardBefore: 0,
});
