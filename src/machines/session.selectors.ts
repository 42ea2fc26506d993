import type { SnapshotFrom } from 'xstate';
import type { sessionMachine } from './session.machine';
import type { SessionUser } from './session.types';

type SessionSnapshot = SnapshotFrom<typeof sessionMachine>;

export type SessionStatus = 'restoring' | 'signedOut' | 'signingIn' | 'signedIn' | 'signingOut';

export const selectSessionStatus = (s: SessionSnapshot): SessionStatus => s.value;
export const selectIsRestoring = (s: SessionSnapshot): boolean => s.matches('restoring');
/** True while the server is being asked something (restore, sign in, sign out). */
export const selectIsBusy = (s: SessionSnapshot): boolean => s.hasTag('busy');
/** The seed's "signed-in session value": a user is known (signing out still counts). */
export const selectHasSession = (s: SessionSnapshot): boolean => s.context.user !== null;
export const selectUser = (s: SessionSnapshot): SessionUser | null => s.context.user;
export const selectUserName = (s: SessionSnapshot): string | null => s.context.user?.name ?? null;
export const selectUserRole = (s: SessionSnapshot): SessionUser['role'] | null =>
  s.context.user?.role ?? null;
export const selectIsAdmin = (s: SessionSnapshot): boolean => s.context.user?.role === 'admin';
export const selectLastError = (s: SessionSnapshot): string | null => s.context.lastError;
/** The server's code for the last failure (`sign_in_code_required` asks the form for a sign-in code). */
export const selectLastErrorCode = (s: SessionSnapshot): string | null => s.context.lastErrorCode;
export const selectExpiredRedirect = (s: SessionSnapshot): string | null => s.context.redirect;
