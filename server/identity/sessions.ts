import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  clearedSessionCookie,
  readCookie,
  SESSION_COOKIE,
  sessionCookie,
} from '../platform/http/cookies';
import type { RequestOrigin } from '../platform/http/origin';
import { SESSION_TTL_MS, type SessionStore } from './session-store';
import { notAdmin, notSignedIn } from './errors';
import type { SignInProfile, User, Users } from './users';

/** The slice of a request the session layer needs; every API RequestContext is one. */
export interface AuthContext {
  req: IncomingMessage;
  res: ServerResponse;
  now: number;
  /** Over https the cookie is Secure. */
  origin: RequestOrigin;
}

const isSecure = (ctx: AuthContext): boolean => ctx.origin.protocol === 'https';

export interface Auth {
  /** The signed-in user, or null. Renews a session past half its life (sliding expiry). */
  currentUser(ctx: AuthContext): User | null;
  /** The signed-in user, or an IdentityError `unauthenticated`. */
  requireUser(ctx: AuthContext): User;
  /** The signed-in admin: `unauthenticated` when signed out, `forbidden` for agents. */
  requireAdmin(ctx: AuthContext): User;
  /** Creates or refreshes the user, opens a session and sets its cookie. */
  signIn(ctx: AuthContext, profile: SignInProfile): User;
  /** Ends the current session, if any, and clears the cookie. */
  signOut(ctx: AuthContext): void;
  /**
   * The signed-in user and the reference of their session, which access tokens carry so that they end with
   * it; or an IdentityError `unauthenticated`.
   */
  requireSession(ctx: AuthContext): { user: User; sessionRef: string };
  /** Whether tokens carrying this session reference may still be used by `identity`. */
  sessionLive(sessionRef: string | null, identity: string, now: number): boolean;
  /**
   * Called with a session's reference and person when it ends by sign-out (or a new sign-in on the same
   * browser); `lastOne` tells whether the person has no other live session left.
   */
  onSessionEnded(
    listener: (ended: { sessionRef: string; identity: string; lastOne: boolean }) => void,
  ): void;
}

const TTL_SECONDS = SESSION_TTL_MS / 1000;

export function createAuth(
  users: Pick<Users, 'get' | 'upsertOnSignIn'>,
  sessions: SessionStore,
): Auth {
  const endedListeners: ((ended: {
    sessionRef: string;
    identity: string;
    lastOne: boolean;
  }) => void)[] = [];
  const endSession = (token: string, now: number): void => {
    const session = sessions.find(token, now);
    const sessionRef = sessions.refOf(token, now);
    sessions.delete(token);
    if (session === null || sessionRef === null) return;
    const ended = {
      sessionRef,
      identity: session.identity,
      lastOne: !sessions.anyLive(session.identity, now),
    };
    for (const listener of endedListeners) listener(ended);
  };

  const appendCookie = (res: ServerResponse, cookie: string): void => {
    const previous = res.getHeader('Set-Cookie');
    const list = Array.isArray(previous) ? previous : previous ? [String(previous)] : [];
    res.setHeader('Set-Cookie', [...list, cookie]);
  };

  function currentUser(ctx: AuthContext): User | null {
    const token = readCookie(ctx.req, SESSION_COOKIE);
    if (!token) return null;
    const session = sessions.find(token, ctx.now);
    if (!session) return null;
    const user = users.get(session.identity);
    if (!user) return null;
    if (session.expiresAt - ctx.now < SESSION_TTL_MS / 2) {
      sessions.extend(token, ctx.now);
      appendCookie(
        ctx.res,
        sessionCookie(token, { maxAgeSeconds: TTL_SECONDS, secure: isSecure(ctx) }),
      );
    }
    return user;
  }

  function requireUser(ctx: AuthContext): User {
    const user = currentUser(ctx);
    if (!user) throw notSignedIn();
    return user;
  }

  return {
    currentUser,
    requireUser,
    requireAdmin(ctx) {
      const user = requireUser(ctx);
      if (user.role !== 'admin') throw notAdmin();
      return user;
    },
    signIn(ctx, profile) {
      const user = users.upsertOnSignIn(profile, ctx.now);
      // A fresh session per sign-in; any session already on this browser ends with it.
      const previous = readCookie(ctx.req, SESSION_COOKIE);
      if (previous) endSession(previous, ctx.now);
      const { token } = sessions.create(user.identity, ctx.now);
      appendCookie(
        ctx.res,
        sessionCookie(token, { maxAgeSeconds: TTL_SECONDS, secure: isSecure(ctx) }),
      );
      return user;
    },
    signOut(ctx) {
      const token = readCookie(ctx.req, SESSION_COOKIE);
      if (token) endSession(token, ctx.now);
      appendCookie(ctx.res, clearedSessionCookie(isSecure(ctx)));
    },
    requireSession(ctx) {
      const user = requireUser(ctx);
      const sessionRef = sessions.refOf(readCookie(ctx.req, SESSION_COOKIE) ?? '', ctx.now);
      if (sessionRef === null) throw notSignedIn();
      return { user, sessionRef };
    },
    sessionLive(sessionRef, identity, now) {
      return (
        sessionRef !== null &&
        users.get(identity) !== null &&
        sessions.isLive(sessionRef, identity, now)
      );
    },
    onSessionEnded(listener) {
      endedListeners.push(listener);
    },
  };
}
