/** The signed-in person, as `GET /api/session` and the sign-in endpoints return it. */
export interface SessionUser {
  identity: string;
  name: string;
  email: string;
  role: 'admin' | 'agent';
  picture: string | null;
}

/** Which Google Identity Services flow produced `value`. */
export type GoogleFlow = 'idToken' | 'code' | 'accessToken';

export type SignInRequest =
  | { method: 'local'; name: string; email: string; passcode?: string; code?: string }
  | { method: 'google'; flow: GoogleFlow; value: string };
