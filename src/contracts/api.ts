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
import { HoldSchema } from './records/hold';
import { ROLES } from './records/user';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySchema = v.GenericSchema<any, any>;

/** `:name` segments of a path, as a union of names. */
export type ParamsOf<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamsOf<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

export interface Route<
  M extends Method = Method,
  P extends string = string,
  B extends AnySchema | null = AnySchema | null,
  A extends AnySchema | null = AnySchema | null,
> {
  readonly method: M;
  readonly path: P;
  readonly body: B;
  readonly answer: A;
}

export type BodyOf<R extends Route> = R['body'] extends AnySchema ? v.InferInput<R['body']> : never;
export type AnswerOf<R extends Route> = R['answer'] extends AnySchema
  ? v.InferOutput<R['answer']>
  : undefined;

const route = <
  M extends Method,
  P extends string,
  B extends AnySchema | null,
  A extends AnySchema | null,
>(
  method: M,
  path: P,
  body: B,
  answer: A,
): Route<M, P, B, A> => ({ method, path, body, answer });

/** The path of `route` with its params filled in (each encoded as one segment). */
export function pathOf<P extends string>(
  route: Route<Method, P>,
  ...[params]: ParamsOf<P> extends never ? [] : [Record<ParamsOf<P>, string>]
): string {
  const values = (params ?? {}) as Record<string, string>;
  return route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${route.path}: no value for :${name}`);
    return encodeURIComponent(value);
  });
}

/** The params of `pathname` if it is this route's path, else null. */
export function matchPath(path: string, pathname: string): Record<string, string> | null {
  const pattern = path.split('/');
  const segments = pathname.split('/');
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i] ?? '';
    const actual = segments[i] ?? '';
    if (expected.startsWith(':')) {
      if (actual === '') return null;
      params[expected.slice(1)] = actual;
    } else if (expected !== actual) return null;
  }
  return params;
}

// Field messages match what the server has always said (tests/unit/server/bad-bodies.test.ts).
const text = (name: string) => v.string(`Field ${name} must be a string`);
const body = <E extends v.ObjectEntries>(entries: E) =>
  v.strictObject(entries, 'Request body must be a JSON object');

// ── Answers ───────────────────────────────────────────────────────────────────────────────────

export const UserAnswerSchema = v.object({
  identity: v.pipe(v.string(), v.nonEmpty()),
  name: v.string(),
  email: v.string(),
  role: v.picklist(ROLES),
  picture: v.optional(v.nullable(v.string()), null),
  extension: v.optional(v.nullable(v.string()), null),
});
export type SessionUser = v.InferOutput<typeof UserAnswerSchema>;
const UserAnswer = v.object({ user: UserAnswerSchema });

export const ConfigAnswer = v.object({
  googleClientId: v.nullable(v.pipe(v.string(), v.nonEmpty())),
  googleScriptUrl: v.string(),
  localSignIn: v.boolean(),
  passcodeRequired: v.boolean(),
  backend: v.picklist(['embedded', 'twilio']),
});
export type AppConfig = v.InferOutput<typeof ConfigAnswer>;

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

/** A parked call as the server reports it (the `holds` item with its key). */
const ParkAnswer = v.object({
  parked: v.object({ callId: v.string(), ...HoldSchema.entries }),
});

// ── Routes ────────────────────────────────────────────────────────────────────────────────────

export const API = {
  // Sign-in and the session (the login screen reads config and session before its first screen).
  config: route('GET', '/api/config', null, ConfigAnswer),
  session: route('GET', '/api/session', null, UserAnswer),
  signInLocal: route(
    'POST',
    '/api/session/local',
    body({
      name: text('name'),
      email: text('email'),
      passcode: v.optional(text('passcode')),
      code: v.optional(text('code')),
    }),
    UserAnswer,
  ),
  signInGoogle: route(
    'POST',
    '/api/session/google',
    body({ credential: text('credential') }),
    UserAnswer,
  ),
  signInGoogleCode: route(
    'POST',
    '/api/session/google/code',
    body({ code: text('code') }),
    UserAnswer,
  ),
  signInGoogleToken: route(
    'POST',
    '/api/session/google/token',
    body({ access_token: text('access_token') }),
    UserAnswer,
  ),
  signOut: route('POST', '/api/session/logout', null, null),

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

  // Calls: the browser's phone asks the server to change a call it is on.
  hold: route('POST', '/api/voice/calls/:sid/hold', null, null),
  resume: route('POST', '/api/voice/calls/:sid/resume', null, null),
  park: route('POST', '/api/voice/calls/:sid/park', null, ParkAnswer),
  transfer: route(
    'POST',
    '/api/voice/calls/:sid/transfer',
    body({
      to: v.pipe(
        v.string('Say who to transfer the call to.'),
        v.maxLength(200, 'Say who to transfer the call to.'),
      ),
      mode: v.picklist(['blind', 'consult'], 'mode must be "blind" or "consult".'),
    }),
    null,
  ),
  completeTransfer: route('POST', '/api/voice/calls/:sid/transfer/complete', null, null),
  cancelTransfer: route('POST', '/api/voice/calls/:sid/transfer/cancel', null, null),
  /** A WAV of one of the SDK's sounds; `?level=0..100`. */
  voiceSound: route('GET', '/api/voice/sounds/:file', null, null),
  /** A voicemail message's audio, for the group's members and admins (both backends). */
  voicemail: route('GET', '/api/voicemail/:id', null, null),

  // Admin: ring groups, announcements, audio.
  groupObjects: route(
    'POST',
    '/api/groups/:id/objects',
    body({ timeZone: text('timeZone') }),
    v.object({ created: v.boolean() }),
  ),
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
  voicemail: '/api/twilio/voicemail',
  recording: '/api/twilio/recording',
  leg: '/api/twilio/leg',
  status: '/api/twilio/status',
  audio: '/api/twilio/audio',
  recordings: '/api/twilio/recordings/:sid',
} as const;

/** Every error answer of the API: `{ error: { code, message } }`. */
export const ErrorAnswer = v.object({
  error: v.object({ code: v.string(), message: v.pipe(v.string(), v.nonEmpty()) }),
});

/**
 * The answers a page's first API requests would get, carried in its HTML by the server so the app
 * starts without asking: `GET /api/session` and `GET /api/config`, keyed by path, in a
 * `<script type="application/json">` element with this id.
 */
export const FIRST_ANSWERS_ID = 'first-answers';
export const FIRST_ANSWER_PATHS = [API.session.path, API.config.path] as const;
export interface FirstAnswer {
  status: number;
  body: unknown;
}
