import type { SessionUser, SignInRequest } from '../../machines/session.types';
import { ApiError, type ApiClient } from './client';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const BAD_USER = new ApiError(
  502,
  'bad_response',
  'The server sent an unreadable user. Please try again.',
);

/** Validates `{ user }` from the server so a malformed answer is an error, never a half user. */
export function parseUserResponse(body: unknown): SessionUser {
  const user = isRecord(body) ? body.user : undefined;
  if (!isRecord(user)) throw BAD_USER;
  const { identity, name, email, role, picture } = user;
  if (typeof identity !== 'string' || identity === '') throw BAD_USER;
  if (typeof name !== 'string' || typeof email !== 'string') throw BAD_USER;
  if (role !== 'admin' && role !== 'agent') throw BAD_USER;
  if (picture !== null && picture !== undefined && typeof picture !== 'string') throw BAD_USER;
  return { identity, name, email, role, picture: picture ?? null };
}

/** `GET /api/session`: the user, or null when the server answers 401 (nobody signed in). */
export async function restoreSession(api: ApiClient): Promise<SessionUser | null> {
  try {
    return parseUserResponse(await api.request('GET', '/api/session'));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

const GOOGLE_ENDPOINTS = {
  idToken: { path: '/api/session/google', field: 'credential' },
  code: { path: '/api/session/google/code', field: 'code' },
  accessToken: { path: '/api/session/google/token', field: 'access_token' },
} as const;

export async function signIn(api: ApiClient, request: SignInRequest): Promise<SessionUser> {
  if (request.method === 'local') {
    const body: Record<string, string> = { name: request.name, email: request.email };
    if (request.passcode !== undefined) body.passcode = request.passcode;
    if (request.code !== undefined) body.code = request.code;
    return parseUserResponse(await api.request('POST', '/api/session/local', body));
  }
  const endpoint = GOOGLE_ENDPOINTS[request.flow];
  return parseUserResponse(
    await api.request('POST', endpoint.path, { [endpoint.field]: request.value }),
  );
}

/**
 * `POST /api/session/logout`. A 401 means the session is already gone, which is what we wanted.
 * `signal` abandons the request (the sign-out was given up).
 */
export async function signOut(api: ApiClient, signal?: AbortSignal): Promise<void> {
  try {
    await api.request('POST', '/api/session/logout', undefined, signal ? { signal } : undefined);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return;
    throw error;
  }
}
