import type { ServerResponse } from 'node:http';
import { API } from '../../src/contracts/api';
import type { ServerConfig } from '../platform/config';
import { readBody } from '../platform/http/body';
import { errorBody, sendJson, toHttpError } from '../platform/http/errors';
import { clientAddress } from '../platform/http/origin';
import type { RequestContext, Router } from '../platform/http/router';
import { createAttemptLimiter } from './attempts';
import { localSignInOffered, type SignInConfig } from './config';
import { IdentityError, invalidField } from './errors';
import { parseEmail, parseName } from './fields';
import type { GoogleVerifier } from './google';
import { passcodeMatches } from './passcode';
import type { ReturningPeople } from './returning';
import type { Auth, AuthContext } from './sessions';
import type { SignInProfile, User } from './users';
import {
  FIRST_ANSWER_PATHS,
  type AppConfig as ConfigAnswer,
  type FirstAnswer,
  type SessionUser,
} from '../../src/contracts/api-session';

/**
 * What sign-in reads of the configuration: where the server listens and behind what, sign-in's own
 * settings (local sign-in is never offered on Twilio), and the backend the login screen is told.
 */
export type SessionConfig = Pick<ServerConfig, 'host' | 'trustProxy'> &
  SignInConfig & { backend: 'embedded' | 'twilio-twins' | 'twilio' };

export interface SessionRouteDeps {
  config: SessionConfig;
  auth: Auth;
  /** Proof that a local sign-in under an existing account's email is that person (returning.ts). */
  returning: ReturningPeople;
  userExists(identity: string): boolean;
  /**
   * Someone new is about to join the team: the ring groups' numbers are read first, so the extension
   * they are given is no group's number (a read that fails leaves the numbers last read).
   */
  beforeJoining(): Promise<void>;
  /** Null when GOOGLE_CLIENT_ID is not set. */
  google: GoogleVerifier | null;
}

/** The user as the browser sees it. */
export function publicUser(user: User): SessionUser {
  return {
    identity: user.identity,
    name: user.name,
    email: user.email,
    role: user.role,
    picture: user.picture,
    extension: user.extension,
  };
}

/** The body of `GET /api/config`: what the login screen may offer. */
export function configAnswer(config: SessionConfig): ConfigAnswer {
  return {
    googleClientId: config.google.clientId,
    googleScriptUrl: config.google.scriptUrl,
    localSignIn: localSignInOffered(config),
    passcodeRequired: config.passcode !== null,
    backend: config.backend,
  };
}

/** The body of `GET /api/session`: who is signed in, or the IdentityError that says they are not. */
function sessionAnswer(auth: Auth, ctx: AuthContext): { user: SessionUser } {
  return { user: publicUser(auth.requireUser(ctx)) };
}

/**
 * What `GET /api/config` and `GET /api/session` would answer this request, for a page's HTML to
 * carry (server/platform/http/static.ts): the same status and body as the routes, from the same code.
 */
export function firstAnswers(
  config: SessionConfig,
  auth: Auth,
): (ctx: AuthContext) => Record<(typeof FIRST_ANSWER_PATHS)[number], FirstAnswer> {
  // The config does not change while the server runs; who is signed in is read per request.
  const configBody = configAnswer(config);
  const session = (ctx: AuthContext): FirstAnswer => {
    try {
      return { status: 200, body: sessionAnswer(auth, ctx) };
    } catch (error) {
      const refusal = toHttpError(error);
      if (refusal) return { status: refusal.status, body: errorBody(refusal) };
      throw error;
    }
  };
  return (ctx) => ({
    [API.config.path]: { status: 200, body: configBody },
    [API.session.path]: session(ctx),
  });
}

const tooMany = (what: string, wait: number): IdentityError =>
  new IdentityError(
    'tooMany',
    'too_many_attempts',
    `Too many wrong ${what}; try again in ${Math.ceil(wait / 60)} minute(s)`,
    wait,
  );

/** /api/config and /api/session/*: who may sign in how, and the session cookie's lifecycle. */
export function registerSessionRoutes(router: Router, deps: SessionRouteDeps): void {
  const { config, auth } = deps;
  const passcodeAttempts = createAttemptLimiter();

  const requireGoogle = (): GoogleVerifier => {
    if (!deps.google) {
      throw new IdentityError(
        'forbidden',
        'google_sign_in_disabled',
        'Google sign-in is not configured on this server (GOOGLE_CLIENT_ID is not set)',
      );
    }
    return deps.google;
  };

  /** An existing account's email alone is not enough: this browser's key, or the code from the terminal. */
  const proveReturning = (
    ctx: RequestContext,
    identity: string,
    code: string | undefined,
  ): void => {
    const client = clientAddress(ctx.req, config.trustProxy);
    const wait = passcodeAttempts.retryAfter(client, ctx.now);
    if (wait > 0 && code !== undefined) throw tooMany('codes', wait);
    const proof = deps.returning.check(ctx.req, identity, code, ctx.now);
    if (proof.ok) {
      if (code !== undefined) passcodeAttempts.recordSuccess(client);
      return;
    }
    const where = proof.codeIssued
      ? 'ask an admin for a sign-in code (they issue one on the Users screen), or read the one just printed in the terminal where the Switchboard server runs'
      : 'ask an admin for a sign-in code (they issue one on the Users screen), or read the one printed in the terminal where the Switchboard server runs';
    if (proof.reason === 'code_required') {
      throw new IdentityError(
        'unauthenticated',
        'sign_in_code_required',
        `${identity} already has an account here and this browser has not signed in as them before: ${where}, and enter it to continue.`,
      );
    }
    passcodeAttempts.recordFailure(client, ctx.now);
    throw new IdentityError(
      'unauthenticated',
      'bad_sign_in_code',
      `That sign-in code is wrong or has expired: ${where}.`,
    );
  };

  router.route(API.config, ({ res }) => {
    sendJson(res, 200, configAnswer(config));
  });

  /** Signs the person in, reading the groups' numbers first when they are new to the team. */
  const signIn = async (ctx: AuthContext, profile: SignInProfile): Promise<User> => {
    if (!deps.userExists(profile.email)) await deps.beforeJoining();
    return auth.signIn(ctx, profile);
  };

  router.route(API.session, (ctx) => {
    sendJson(ctx.res, 200, sessionAnswer(auth, ctx));
  });

  router.route(API.signInLocal, async (ctx) => {
    if (!localSignInOffered(config)) {
      throw new IdentityError(
        'forbidden',
        'local_sign_in_disabled',
        'Local sign-in is only offered on a loopback address or with SWITCHBOARD_PASSCODE set',
      );
    }
    const body = await readBody(ctx.req, API.signInLocal);
    const name = parseName(body.name);
    const email = parseEmail(body.email);
    if (config.passcode !== null) {
      if (body.passcode === undefined || body.passcode === '') {
        throw invalidField('Missing field: passcode');
      }
      const client = clientAddress(ctx.req, config.trustProxy);
      const wait = passcodeAttempts.retryAfter(client, ctx.now);
      if (wait > 0) throw tooMany('passcodes', wait);
      if (!passcodeMatches(body.passcode, config.passcode)) {
        passcodeAttempts.recordFailure(client, ctx.now);
        throw new IdentityError('unauthenticated', 'bad_passcode', 'The passcode is wrong');
      }
      passcodeAttempts.recordSuccess(client);
    }
    if (deps.userExists(email)) proveReturning(ctx, email, body.code);
    const user = await signIn(ctx, { email, name });
    appendSetCookie(
      ctx.res,
      deps.returning.remember(ctx.req, user.identity, ctx.now, ctx.origin.protocol === 'https'),
    );
    sendJson(ctx.res, 200, { user: publicUser(user) });
  });

  router.route(API.signInGoogle, async (ctx) => {
    const google = requireGoogle();
    const { credential } = await readBody(ctx.req, API.signInGoogle);
    const profile = await google.verifyIdToken(credential);
    const user = await signIn(ctx, profile);
    sendJson(ctx.res, 200, { user: publicUser(user) });
  });

  router.route(API.signInGoogleCode, async (ctx) => {
    const google = requireGoogle();
    const { code } = await readBody(ctx.req, API.signInGoogleCode);
    const profile = await google.exchangeCode(code);
    const user = await signIn(ctx, profile);
    sendJson(ctx.res, 200, { user: publicUser(user) });
  });

  router.route(API.signInGoogleToken, async (ctx) => {
    const google = requireGoogle();
    const { access_token } = await readBody(ctx.req, API.signInGoogleToken);
    const profile = await google.profileFromAccessToken(access_token);
    const user = await signIn(ctx, profile);
    sendJson(ctx.res, 200, { user: publicUser(user) });
  });

  router.route(API.signOut, (ctx) => {
    auth.signOut(ctx);
    ctx.res.writeHead(204, { 'Cache-Control': 'no-store' });
    ctx.res.end();
  });
}

function appendSetCookie(res: ServerResponse, cookie: string): void {
  const previous = res.getHeader('Set-Cookie');
  const list = Array.isArray(previous) ? previous : previous ? [String(previous)] : [];
  res.setHeader('Set-Cookie', [...list, cookie]);
}
