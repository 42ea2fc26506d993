/** The signed-in person, as `GET /api/session` and the sign-in endpoints return it. */
export type { SessionUser } from '../contracts/api-session';

/** Which Google Identity Services flow produced `value`. */
export type GoogleFlow = 'idToken' | 'code' | 'accessToken';

export type SignInRequest =
  | { method: 'local'; name: string; email: string; passcode?: string; code?: string }
  | { method: 'google'; flow: GoogleFlow; value: string };
