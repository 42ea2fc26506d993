/**
 * A ring group, an item of the `groups` map (key = group id): who rings, how, and for how long, and
 * the announcements it plays. Its hours (`schedule:{id}`), holidays (`calendar:{id}`) and forwarding
 * rules (`forwarding:{id}`) live in objects of their own, made and removed with it. Admins write it.
 */
import * as v from 'valibot';
import { CONTROL_CHARACTERS, defineRecord } from '../record';

export const STRATEGIES = ['simultaneous', 'sequential'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/**
 * When a group plays an announcement: open (the greeting), closed, on a holiday, to a caller on
 * hold, and before a voicemail's tone.
 */
export const GUIDANCE_SLOTS = ['open', 'closed', 'holiday', 'hold', 'voicemail'] as const;
export type GuidanceSlot = (typeof GUIDANCE_SLOTS)[number];

export const GROUP_NAME_MAX = 80;
export const RING_TIMEOUT_MIN = 5;
export const RING_TIMEOUT_MAX = 120;
export const DEFAULT_RING_TIMEOUT = 20;
export const NO_ANSWER_TIMEOUT_MIN = 5;
export const NO_ANSWER_TIMEOUT_MAX = 300;
export const DEFAULT_NO_ANSWER_TIMEOUT = 30;

const seconds = (min: number, max: number) => {
  const message = `Use a whole number of seconds from ${min} to ${max}.`;
  return v.pipe(
    v.number(message),
    v.integer(message),
    v.minValue(min, message),
    v.maxValue(max, message),
  );
};

/** An extension (2 to 6 digits) or a phone number in international form (+ and 8 to 15 digits). */
export const GROUP_NUMBER = /^(\d{2,6}|\+\d{8,15})$/;

/** Spaces, dashes, dots and brackets people type in numbers are dropped. */
export function normaliseNumber(number: string): string {
  return number.trim().replace(/[\s().-]/g, '');
}

/** An announcement's id in a slot; '' (as some forms send it) is no announcement. */
const slot = v.optional(
  v.pipe(
    v.string(),
    v.transform((id) => (id === '' ? undefined : id)),
  ),
);

/** The announcement (an announcements map key) chosen for each slot; a slot left out plays nothing. */
export const GroupGuidanceSchema = v.object({
  open: slot,
  closed: slot,
  holiday: slot,
  hold: slot,
  voicemail: slot,
});
export type GroupGuidance = v.InferOutput<typeof GroupGuidanceSchema>;

export const GroupSchema = v.object({
  name: v.pipe(
    v.string(),
    v.check((s) => s.trim() !== '', 'Enter a name for the group.'),
    v.maxLength(GROUP_NAME_MAX, `Use at most ${GROUP_NAME_MAX} characters.`),
    v.check((s) => !CONTROL_CHARACTERS.test(s), 'Use letters, digits and punctuation.'),
  ),
  number: v.pipe(
    v.string(),
    v.nonEmpty('Enter an extension or a phone number.'),
    v.regex(GROUP_NUMBER, 'Use an extension of 2 to 6 digits, or a number like +442079460000.'),
  ),
  /** Identities, in ringing order. */
  members: v.pipe(
    v.array(v.string()),
    v.check((m) => new Set(m).size === m.length, 'Each person can be in the group once.'),
  ),
  strategy: v.picklist(STRATEGIES, 'Choose how members ring.'),
  /**
   * Seconds each member rings: in order, each member's turn; all at once, the members together
   * (FreePBX's ring time).
   */
  ringTimeout: seconds(RING_TIMEOUT_MIN, RING_TIMEOUT_MAX),
  /**
   * Seconds of ringing before the no-answer rule (or voicemail) applies, and never before every
   * member who can take the call has rung (FreePBX's "destination if no answer"). Absent in groups
   * stored before it existed: their no-answer rule's delay, or else the members' turns, decide
   * (src/domain/routing/engine.ts).
   */
  noAnswerTimeout: v.optional(seconds(NO_ANSWER_TIMEOUT_MIN, NO_ANSWER_TIMEOUT_MAX)),
  /** The announcements it plays (stored only when one is chosen). */
  guidance: v.optional(GroupGuidanceSchema, {}),
});
export type Group = v.InferOutput<typeof GroupSchema>;

/** A group with nothing set: what a new one starts from, and what a decode falls back to. */
export const emptyGroup = (): Group => ({
  name: '',
  number: '',
  members: [],
  strategy: 'simultaneous',
  ringTimeout: DEFAULT_RING_TIMEOUT,
  noAnswerTimeout: DEFAULT_NO_ANSWER_TIMEOUT,
  guidance: {},
});

export const groupRecord = defineRecord('group', GroupSchema, emptyGroup());
