import type { BrowserContext } from 'playwright-core';
import { rememberSignInKeys, signInKeyHeaders } from '../../support/sign-in-keys';

export interface ApiSession {
  cookie: string;
  user: { identity: string; name: string; email: string; role: string };
}

/** Signs in through the real API (as a script would) and returns the session cookie value. */
export async function apiSignIn(
  baseUrl: string,
  name: string,
  email: string,
  passcode?: string,
): Promise<ApiSession> {
  const res = await fetch(`${baseUrl}/api/session/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signInKeyHeaders(baseUrl, email) },
    body: JSON.stringify(passcode === undefined ? { name, email } : { name, email, passcode }),
  });
  rememberSignInKeys(baseUrl, email, res);
  if (!res.ok) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const match = /sb_session=([^;]+)/.exec(setCookie);
  if (!match?.[1]) throw new Error(`no session cookie in ${setCookie}`);
  const body = (await res.json()) as { user: ApiSession['user'] };
  return { cookie: match[1], user: body.user };
}

/** Ends a session server-side, as an expiry or a sign-out elsewhere would. */
export async function apiRevoke(baseUrl: string, cookie: string): Promise<void> {
  const res = await fetch(`${baseUrl}/api/session/logout`, {
    method: 'POST',
    headers: { cookie: `sb_session=${cookie}`, 'content-type': 'application/json' },
  });
  if (res.status !== 204) throw new Error(`logout answered ${res.status}`);
}

export async function addSessionCookie(
  context: BrowserContext,
  baseUrl: string,
  cookie: string,
): Promise<void> {
  await context.addCookies([
    { name: 'sb_session', value: cookie, url: baseUrl, httpOnly: true, sameSite: 'Lax' },
  ]);
}
