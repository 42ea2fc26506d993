/**
 * The routes a page needs before anyone is signed in (the login screen's options, the session,
 * signing in and out), and the answers a page carries for its first requests. Kept apart from the
 * rest of src/contracts/api.ts, which lists them too, so the page's first script holds only these.
 */
import * as v from 'valibot';
import { body, route, text } from './api-route';
import { ROLES } from './roles';

export const UserAnswerSchema = v.object({
  identity: v.pipe(v.string(), v.nonEmpty()),
  name: v.string(),
  email: v.string(),
  role: v.picklist(ROLES),
  picture: v.optional(v.nullable(v.string()), null),
  extension: v.optional(v.nullable(v.string()), null),
});
export type SessionUser = v.InferOutput<typeof UserAnswerSchema>;
export const UserAnswer = v.object({ user: UserAnswerSchema });

export const ConfigAnswer = v.object({
  googleClientId: v.nullable(v.pipe(v.string(), v.nonEmpty())),
  googleScriptUrl: v.string(),
  localSignIn: v.boolean(),
  passcodeRequired: v.boolean(),
  /** SWITCHBOARD_BACKEND: where Twilio is (its twins in the server, or Twilio). */
  backend: v.picklist(['embedded', 'twilio-twins', 'twilio']),
});
export type AppConfig = v.InferOutput<typeof ConfigAnswer>;

/** Signing in and out, the session and the login screen's options. */
export const SESSION_ROUTES = {
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
} as const;

/**
 * The answers a page's first API requests would get, carried in its HTML by the server so the app
 * starts without asking: `GET /api/session` and `GET /api/config`, keyed by path, in a
 * `<script type="application/json">` element with this id.
 */
export const FIRST_ANSWERS_ID = 'first-answers';
export const FIRST_ANSWER_PATHS = [
  SESSION_ROUTES.session.path,
  SESSION_ROUTES.config.path,
] as const;
export interface FirstAnswer {
  status: number;
  body: unknown;
}
