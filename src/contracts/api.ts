/**
 * Every `/api` route, defined once: its method, its path (with `:params`), what its body must be
 * and what it answers. The browser's API client builds URLs and reads answers from these; the
 * server registers its handlers under the same definitions and parses bodies with them.
 *
 * A route that answers no JSON (204, or a file) has `answer: null`. Bodies are strict objects:
 * an unknown field is refused, so a typo never silently does nothing.
 */
import * as v from 'valibot';
import { AudioSchema } from './records/audio';
import { CALL_CONTROLS } from './call-controls';
import { PRESENCE_STATUSES } from './records/presence';
import { QualityReportSchema } from './records/call-quality';
import { body, route, text } from './api-route';
import { SESSION_ROUTES, UserAnswer } from './api-session';
import { ROLES } from './roles';

// ── Answers ───────────────────────────────────────────────────────────────────────────────────

const SyncTokenAnswer = v.object({
  identity: v.optional(v.string(), ''),
  token: v.pipe(v.string(), v.nonEmpty('The server did not hand out a sync token')),
  /** The twilio-sync client options that point the SDK at the service. */
  sync: v.record(v.string(), v.unknown(), 'The server did not say where the sync service is'),
});

export const VoiceCredentialsAnswer = v.object({
  identity: v.string(),
  token: v.pipe(v.string(), v.nonEmpty()),
  ttlSeconds: v.number(),
  /** The Voice SDK Device's options (its sounds, codecs, edge). */
  device: v.record(v.string(), v.unknown()),
  signalling: v.object({ url: v.string() }),
});
export type VoiceCredentials = v.InferOutput<typeof VoiceCredentialsAnswer>;

const positiveInt = v.pipe(v.number(), v.integer(), v.minValue(1));
const PresenceSettingsAnswer = v.pipe(
  v.object({ ttlSeconds: positiveInt, heartbeatSeconds: positiveInt }),
  v.check((s) => s.heartbeatSeconds < s.ttlSeconds, 'The server sent unusable presence settings'),
);
export type PresenceSettings = v.InferOutput<typeof PresenceSettingsAnswer>;

const LanguagesAnswer = v.object({
  languages: v.array(v.object({ code: v.string(), name: v.string() })),
  default: v.string(),
  engine: v.optional(v.string(), ''),
});

/** A one-time sign-in code an admin issued for a colleague, and when it lapses (ms since epoch). */
const SignInCodeAnswer = v.object({
  identity: v.string(),
  code: v.pipe(v.string(), v.regex(/^\d{8}$/)),
  expiresAt: v.number(),
});
export type SignInCode = v.InferOutput<typeof SignInCodeAnswer>;

/** A stored item or document's data, as sent whole (its record checks it on the server). */
const StoredData = v.record(v.string(), v.unknown(), 'The data must be a JSON object');

/**
 * A conditional save's answer: saved, or not because someone else saved first, with what is stored
 * now (null: it is gone).
 */
export const SaveAnswerSchema = v.union([
  v.object({ ok: v.literal(true) }),
  v.object({ ok: v.literal(false), current: v.nullable(StoredData) }),
]);
export type SaveAnswer = v.InferOutput<typeof SaveAnswerSchema>;

// ── Routes ────────────────────────────────────────────────────────────────────────────────────

export const API = {
  ...SESSION_ROUTES,

  // Tokens.
  syncToken: route('GET', '/api/token', null, SyncTokenAnswer),
  voiceToken: route('GET', '/api/voice/token', null, VoiceCredentialsAnswer),
  voiceRegistration: route(
    'GET',
    '/api/voice/registration',
    null,
    v.object({ registered: v.boolean() }),
  ),

  // People.
  presenceSettings: route('GET', '/api/presence/settings', null, PresenceSettingsAnswer),
  /**
   * The signed-in person's presence item, written by the server (nobody writes another's): their
   * status and whether colleagues see do not disturb; the server keeps "on a call" and the ttl.
   */
  setPresence: route(
    'PUT',
    '/api/presence',
    body({
      status: v.picklist(PRESENCE_STATUSES, 'Field status must be "available" or "away"'),
      doNotDisturb: v.optional(v.boolean('Field doNotDisturb must be true or false')),
    }),
    null,
  ),
  /** Keeps the presence item alive another ttl, changing nothing; 404 `no_presence` once it lapsed. */
  renewPresence: route('POST', '/api/presence/renew', null, null),
  /** Removes the presence item: the person shows Offline at once. */
  withdrawPresence: route('DELETE', '/api/presence', null, null),
  renameMe: route('PUT', '/api/me/name', body({ name: text('name') }), UserAnswer),
  setRole: route(
    'PUT',
    '/api/users/:identity/role',
    body({
      role: v.pipe(text('role'), v.picklist(ROLES, 'Field role must be "admin" or "agent"')),
    }),
    UserAnswer,
  ),
  setExtension: route(
    'PUT',
    '/api/users/:identity/extension',
    body({ extension: text('extension') }),
    UserAnswer,
  ),
  removeUser: route('DELETE', '/api/users/:identity', null, null),
  /**
   * Admins only: a one-time sign-in code for a colleague to sign in with on a new browser (it
   * replaces any code waiting for them; the server's terminal stays the fallback).
   */
  issueSignInCode: route('POST', '/api/users/:identity/sign-in-code', null, SignInCodeAnswer),

  // Calls: the browser's phone asks the server to change a call it is on.
  ...CALL_CONTROLS,
  /**
   * How a finished call sounded to this browser (the SDK's samples summarised), for its history
   * row; only a person who was on the call may report it.
   */
  callQuality: route('POST', '/api/calls/:sid/quality', QualityReportSchema, null),
  /** A WAV of one of the SDK's sounds; `?level=0..100`. */
  voiceSound: route('GET', '/api/voice/sounds/:file', null, null),
  /** A voicemail message's audio, for the group's members and admins. */
  voicemail: route('GET', '/api/voicemail/:id', null, null),

  // Admin: ring groups, announcements, audio. Their records are checked on the server, and their
  // rules (a group's number is nobody else's, an announcement a group plays stays) hold there.
  /** A new ring group with its schedule (its hours), calendar and forwarding list; 409 when taken. */
  createGroup: route(
    'POST',
    '/api/groups/:id',
    body({ group: StoredData, schedule: StoredData }),
    null,
  ),
  /** Saves a ring group only if it is still `base` (what the edit started from). */
  updateGroup: route(
    'PUT',
    '/api/groups/:id',
    body({ base: StoredData, group: StoredData }),
    SaveAnswerSchema,
  ),
  /** Removes a ring group (it stops ringing), then its schedule, calendar and forwarding list. */
  deleteGroup: route('DELETE', '/api/groups/:id', null, null),
  createAnnouncement: route(
    'POST',
    '/api/announcements/:id',
    body({ announcement: StoredData }),
    null,
  ),
  /** Saves an announcement only if it is still `base`. */
  updateAnnouncement: route(
    'PUT',
    '/api/announcements/:id',
    body({ base: StoredData, announcement: StoredData }),
    SaveAnswerSchema,
  ),
  /** Refused (409 `announcement_in_use`, naming the groups) while a ring group plays it. */
  deleteAnnouncement: route('DELETE', '/api/announcements/:id', null, null),
  /** The file is the body (any type); `?name=` gives its name. */
  uploadAudio: route(
    'POST',
    '/api/audio',
    null,
    v.object({ id: v.string(), ...AudioSchema.entries }),
  ),
  audioFile: route('GET', '/api/audio/:id', null, null),
  deleteAudio: route('DELETE', '/api/audio/:id', null, null),
  languages: route('GET', '/api/guidance/languages', null, LanguagesAnswer),
  /** A WAV of what callers would hear: `{ text, language }` or `{ audioId }`. */
  preview: route(
    'POST',
    '/api/guidance/preview',
    body({
      text: v.optional(text('text')),
      language: v.optional(text('language')),
      audioId: v.optional(text('audioId')),
    }),
    null,
  ),
  announcementAudio: route('GET', '/api/guidance/:id/audio', null, null),
} as const;

/**
 * Twilio's requests to this server (form-encoded, answered with TwiML or nothing) and the media
 * it fetches: Twilio's contract, not the browser's, named here so their paths are written once.
 */
export const TWILIO_PATHS = {
  voice: '/api/twilio/voice',
  next: '/api/twilio/voice/next',
  /** The rest of a routing plan after an announcement (`<Redirect>`, server/calls/twiml.ts). */
  continue: '/api/twilio/voice/continue',
  /** The action of a ring-back's or a transfer's `<Dial>` (server/calls/control.ts). */
  after: '/api/twilio/voice/after',
  /**
   * The TwiML of a ring-back's or a transfer's `<Dial>`, which a call update's `Url` asks for rather
   * than carrying it as inline `Twiml` (at most 4,000 characters; server/calls/control.ts).
   */
  ring: '/api/twilio/voice/ring',
  /** The status callback of an attended transfer's call to its target (server/calls/consult.ts). */
  consult: '/api/twilio/voice/consult',
  voicemail: '/api/twilio/voicemail',
  recording: '/api/twilio/recording',
  leg: '/api/twilio/leg',
  status: '/api/twilio/status',
  /** The Voice Fallback URL of the numbers and the TwiML app: voicemail, reading nothing. */
  fallback: '/api/twilio/fallback',
  audio: '/api/twilio/audio',
  recordings: '/api/twilio/recordings/:sid',
  /**
   * The Sync service's webhook URL: presence and do not disturb as they change
   * (server/routing/sync-events.ts).
   */
  syncEvents: '/api/twilio/sync-events',
} as const;

/** Every error answer of the API: `{ error: { code, message } }`. */
export const ErrorAnswer = v.object({
  error: v.object({ code: v.string(), message: v.pipe(v.string(), v.nonEmpty()) }),
});
