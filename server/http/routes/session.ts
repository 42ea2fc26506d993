import type { ServerResponse } from 'node:http';
import type { Auth, AuthContext } from '../../auth/sessions';
import type { GoogleVerifier } from '../../auth/google';
import { createAttemptLimiter } from '../../auth/attempts';
import { passcodeMatches } from '../../auth/passcode';
import type { User } from '../../store/users';
import { readJsonBody } from '../body';
import { localSignInOffered, type AppConfig } from '../config';
import { errorBody, HttpError, sendJson } from '../errors';
import { clientAddress } from '../origin';
import type { RequestContext, Router } from '../router';
import type { ReturningPeople } from '../../auth/returning';
import { expectFields, parseEmail, parseName } from '../validate';

export interface SessionRouteDeps {
  config: AppConfig;
  auth: Auth;
  /** Proof that a local sign-in under an existing account's email is that person (returning.ts). */
  returning: ReturningPeople;
  userExists(identity: string): boolean;
  /** Null when GOOGLE_CLIENT_ID is not set. */
  google: GoogleVerifier | null;
}

/** The user as the browser sees it. */
export function publicUser(user: User): {
  identity: string;
  name: string;
  email: string;
  role: User['role'];
  picture: string | null;
  extension: string | null;
} {
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
export function configAnswer(config: AppConfig): Record<string, unknown> {
  return {
    googleClientId: config.google.clientId,
    googleScriptUrl: config.google.scriptUrl,
    localSignIn: localSignInOffered(config),
    passcodeRequired: config.passcode !== null,
    backend: config.backend.kind,
  };
}

/** The body of `GET /api/session`: who is signed in, or the HttpError that says they are not. */
function sessionAnswer(auth: Auth, ctx: AuthContext): { user: ReturnType<typeof publicUser> } {
  return { user: publicUser(auth.requireUser(ctx)) };
}

/**
 * What `GET /api/config` and `GET /api/session` would answer this request, for a page's HTML to
 * carry (server/http/static.ts): the same status and body as the routes, from the same code.
 */
export function firstAnswers(
  config: AppConfig,
  auth: Auth,
): (ctx: AuthContext) => Record<string, { status: number; body: unknown }> {
  // The config does not change while the server runs; who is signed in is read per request.
  const configBody = configAnswer(config);
  const session = (ctx: AuthContext): { status: number; body: unknown } => {
    try {
      return { status: 200, body: sessionAnswer(auth, ctx) };
    } catch (error) {
      if (error instanceof HttpError) return { status: error.status, body: errorBody(error) };
      throw error;
    }
  };
  return (ctx) => ({
    '/api/config': { status: 200, body: configBody },
    '/api/session': session(ctx),
  });
}

/** /api/config and /api/session/*: who may sign in how, and the session cookie's lifecycle. */
export function registerSessionRoutes(router: Router, deps: SessionRouteDeps): void {
  const { config, auth } = deps;
  const passcodeAttempts = createAttemptLimiter();

  const requireGoogle = (): GoogleVerifier => {
    if (!deps.google) {
      throw new HttpError(
        403,
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
    if (wait > 0 && code !== undefined) {
      throw new HttpError(
        429,
        'too_many_attempts',
        `Too many wrong codes; try again in ${Math.ceil(wait / 60)} minute(s)`,
        { 'Retry-After': String(wait) },
      );
    }
    const proof = deps.returning.check(ctx.req, identity, code, ctx.now);
    if (proof.ok) {
      if (code !== undefined) passcodeAttempts.recordSuccess(client);
      return;
    }
    const printed = proof.codeIssued
      ? 'A sign-in code has just been printed in the terminal where the Switchboard server runs'
      : 'The sign-in code was printed in the terminal where the Switchboard server runs';
    if (proof.reason === 'code_required') {
      throw new HttpError(
        401,
        'sign_in_code_required',
        `${identity} already has an account here and this browser has not signed in as them before. ${printed}; enter it to continue.`,
      );
    }
    passcodeAttempts.recordFailure(client, ctx.now);
    throw new HttpError(
      401,
      'bad_sign_in_code',
      `That sign-in code is wrong or has expired. ${printed}.`,
    );
  };

  router.on('GET', '/api/config', ({ res }) => {
    sendJson(res, 200, configAnswer(config));
  });

  router.on('GET', '/api/session', (ctx) => {
    sendJson(ctx.res, 200, sessionAnswer(auth, ctx));
  });

  router.on('POST', '/api/session/local', async (ctx) => {
    if (!localSignInOffered(config)) {
      throw new HttpError(
        403,
        'local_sign_in_disabled',
        'Local sign-in is only offered on a loopback address or with SWITCHBOARD_PASSCODE set',
      );
    }
    const body = expectFields(await readJsonBody(ctx.req), ['name', 'email'], ['passcode', 'code']);
    const name = parseName(body.name);
    const email = parseEmail(body.email);
    if (config.passcode !== null) {
      if (body.passcode === undefined || body.passcode === '') {
        throw new HttpError(400, 'bad_request', 'Missing field: passcode');
      }
      const client = clientAddress(ctx.req, config.trustProxy);
      const wait = passcodeAttempts.retryAfter(client, ctx.now);
      if (wait > 0) {
        throw new HttpError(
          429,
          'too_many_attempts',
          `Too many wrong passcodes; try again in ${Math.ceil(wait / 60)} minute(s)`,
          { 'Retry-After': String(wait) },
        );
      }
      if (!passcodeMatches(body.passcode, config.passcode)) {
        passcodeAttempts.recordFailure(client, ctx.now);
        throw new HttpError(401, 'bad_passcode', 'The passcode is wrong');
      }
      passcodeAttempts.recordSuccess(client);
    }
    if (deps.userExists(email)) proveReturning(ctx, email, body.code);
    const user = auth.signIn(ctx, { email, name });
    appendSetCookie(
      ctx.res,
      deps.returning.remember(ctx.req, user.identity, ctx.now, ctx.origin.protocol === 'https'),
    );
    sendJson(ctx.res, 200, { user: publicUser(user) });
  });

  router.on('POST', '/api/session/google', async (ctx) => {
    const google = requireGoogle();
    const { credential } = expectFields(await readJsonBody(ctx.req), ['credential']);
    const profile = await google.verifyIdToken(credential);
    const user = auth.signIn(ctx, profile);
    sendJson(ctx.res, 200, { user: publicUser(user) });
  });

  router.on('POST', '/api/session/google/code', async (ctx) => {
    const google = requireGoogle();
    const { code } = expectFields(await readJsonBody(ctx.req), ['code']);
    const profile = await google.exchangeCode(code);
    const user = auth.signIn(ctx, profile);
    sendJson(ctx.res, 200, { user: publicUser(user) });
  });

  router.on('POST', '/api/session/google/token', async (ctx) => {
    const google = requireGoogle();
    const { access_token } = expectFields(await readJsonBody(ctx.req), ['access_token']);
    const profile = await google.profileFromAccessToken(access_token);
    const user = auth.signIn(ctx, profile);
    sendJson(ctx.res, 200, { user: publicUser(user) });
  });

  router.on('POST', '/api/session/logout', (ctx) => {
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
