/** The session routes: who is signed in, signing in (local or Google) and signing out. */
import { SESSION_ROUTES as API, type SessionUser } from '../../contracts/api-session';
import type { SignInRequest } from '../../machines/session.types';
import { ApiError, type ApiClient } from './client';

/** A malformed `{ user }` is an error, never a half user. */
const UNREADABLE_USER = 'The server sent an unreadable user. Please try again.';

/** `GET /api/session`: the user, or null when the server answers 401 (nobody signed in). */
export async function restoreSession(api: ApiClient): Promise<SessionUser | null> {
  try {
    return (await api.call(API.session, undefined, undefined, { unreadable: UNREADABLE_USER }))
      .user;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export async function signIn(api: ApiClient, request: SignInRequest): Promise<SessionUser> {
  const options = { unreadable: UNREADABLE_USER };
  if (request.method === 'local') {
    const { name, email, passcode, code } = request;
    const body = {
      name,
      email,
      ...(passcode === undefined ? {} : { passcode }),
      ...(code === undefined ? {} : { code }),
    };
    return (await api.call(API.signInLocal, undefined, body, options)).user;
  }
  const { value } = request;
  switch (request.flow) {
    case 'idToken':
      return (await api.call(API.signInGoogle, undefined, { credential: value }, options)).user;
    case 'code':
      return (await api.call(API.signInGoogleCode, undefined, { code: value }, options)).user;
    case 'accessToken':
      return (await api.call(API.signInGoogleToken, undefined, { access_token: value }, options))
        .user;
  }
}

/**
 * `POST /api/session/logout`. A 401 means the session is already gone, which is what we wanted.
 * `signal` abandons the request (the sign-out was given up).
 */
export async function signOut(api: ApiClient, signal?: AbortSignal): Promise<void> {
  try {
    await api.call(API.signOut, undefined, undefined, signal ? { signal } : undefined);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return;
    throw error;
  }
}
