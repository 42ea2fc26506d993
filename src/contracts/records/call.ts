/**
 * One finished call, an item of the `calls` list. Only the server writes it (browsers cannot forge
 * history), from Twilio's status callbacks, on every backend (server/calls/call-log.ts).
 */
import * as v from 'valibot';
import { defineRecord, timestamp } from '../record';
import { CallQualitySchema, RelayLegSchema } from './call-quality';

export const DIRECTIONS = ['inbound', 'outbound'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/**
 * How a call ended (PRODUCT.md, "Data"); `unknown` when the server did not follow the call from its
 * start (on Twilio, another server had its first webhooks), so who took it is not known;
 * `doNotDisturb` when the colleague called directly was in do not disturb (added after the others:
 * a reader that does not know it reads it as unknown); `dropped` when the call was cut off with
 * nobody hanging up: while the voice twin runs in the server (embedded, `twilio-twins`), a call in
 * progress when the server died, written at its next start with what was known (reason
 * {@link DROPPED_REASON}).
 */
export const OUTCOMES = [
  'answered',
  'missed',
  'rejected',
  'busy',
  'voicemail',
  'forwarded',
  'abandoned',
  'dropped',
  'failed',
  'unknown',
  'doNotDisturb',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The reason of a `dropped` row written for a call the server was carrying when it died. */
export const DROPPED_REASON = 'The server restarted.';

/** What happened to a call after it was answered, in order. */
export const TRAIL_ACTIONS = [
  'held',
  'resumed',
  'parked',
  'pickedUp',
  'rangBack',
  'transferred',
] as const;
export type TrailAction = (typeof TRAIL_ACTIONS)[number];

export const TrailStepSchema = v.object({
  action: v.picklist(TRAIL_ACTIONS),
  /** Who did it (for `rangBack`, who the call rang back to). */
  by: v.string(),
  /** For `transferred`: who took the call. */
  to: v.optional(v.string()),
  /** When, epoch ms (rows from before it was kept have none). */
  at: v.optional(timestamp),
});
export type TrailStep = v.InferOutput<typeof TrailStepSchema>;

/** The kinds of routing decision a group call records, in the order they were made. */
export const ROUTING_KINDS = [
  'situation',
  'announce',
  'ring',
  'forward',
  'noAnswer',
  'busy',
  'answered',
  'voicemail',
  'recording',
  'problem',
] as const;
export type RoutingKind = (typeof ROUTING_KINDS)[number];

export const RoutingStepSchema = v.object({
  kind: v.picklist(ROUTING_KINDS),
  text: v.string(),
  at: timestamp,
});
export type RoutingStep = v.InferOutput<typeof RoutingStepSchema>;

/**
 * A voicemail message's id: a Recording SID, which `GET /api/voicemail/{id}` serves on every
 * backend. Older rows may hold an id of the former voice service's own (`vm-` and 16 letters or
 * digits): read, no longer served.
 */
export const VOICEMAIL_ID = /^(vm-[a-z0-9]{16}|RE[0-9a-f]{32})$/;

export const VoicemailSchema = v.object({
  id: v.pipe(v.string(), v.regex(VOICEMAIL_ID, 'Not a voicemail id')),
  seconds: v.pipe(v.number(), v.finite(), v.minValue(0)),
});
export type Voicemail = v.InferOutput<typeof VoicemailSchema>;

const nullableText = v.optional(v.nullable(v.string()), null);

export const CallSchema = v.object({
  /** The call's id: its parent call's SID. */
  callSid: v.optional(v.string(), ''),
  /**
   * The placing browser's own id for the call (its `Attempt` parameter, call-parameters.ts), or ''
   * (a call from outside, rows from before).
   */
  attempt: v.optional(v.string(), ''),
  /** As the team sees it: a call from outside is inbound, one placed from a browser outbound. */
  direction: v.picklist(DIRECTIONS),
  from: v.string(),
  to: v.string(),
  /** Who placed it (a call from a browser), or ''. */
  user: v.optional(v.string(), ''),
  /** The colleague called directly, or null. */
  callee: nullableText,
  /** The ring group dialled: its id, and its name when the call was made. */
  group: nullableText,
  groupName: nullableText,
  /** Who had the call last (a picker after a park), or null when nobody answered. */
  handledBy: nullableText,
  trail: v.optional(v.array(TrailStepSchema), []),
  startedAt: timestamp,
  answeredAt: v.optional(v.nullable(timestamp), null),
  endedAt: timestamp,
  /** Talk time in seconds (0 when nobody answered). */
  duration: v.pipe(v.number(), v.finite(), v.minValue(0)),
  outcome: v.picklist(OUTCOMES),
  /** Why it ended as it did, in a sentence (routing's last word), or ''. */
  reason: v.optional(v.string(), ''),
  /** A group call's routing decisions, in order. */
  routing: v.optional(v.array(RoutingStepSchema), []),
  /** The message the caller left, if any. */
  voicemail: v.optional(v.nullable(VoicemailSchema), null),
  /** Where a forwarding rule sent it last, if one did. */
  forwardedTo: nullableText,
  /** An admin's Test this group call. */
  test: v.optional(v.boolean(), false),
  /**
   * How the call sounded to each browser on it that reported (call-quality.ts), at most one per
   * person; empty when none did (a phone-network leg, a tab closed mid-call, rows from before).
   */
  quality: v.optional(v.pipe(v.array(CallQualitySchema), v.maxLength(10)), []),
  /**
   * The media server's count per side (call-quality.ts), from Voice Insights' summaries
   * (server/calls/relay.ts); empty when the account lacks Voice Insights Advanced Features, and in
   * older rows.
   */
  relay: v.optional(v.pipe(v.array(RelayLegSchema), v.maxLength(2)), []),
});
export type CallRecord = v.InferOutput<typeof CallSchema>;

export const callRecord = defineRecord('call', CallSchema, {
  callSid: '',
  attempt: '',
  direction: 'outbound',
  from: '',
  to: '',
  user: '',
  callee: null,
  group: null,
  groupName: null,
  handledBy: null,
  trail: [],
  startedAt: 0,
  answeredAt: null,
  endedAt: 0,
  duration: 0,
  outcome: 'failed',
  reason: '',
  routing: [],
  voicemail: null,
  forwardedTo: null,
  test: false,
  quality: [],
  relay: [],
});
