/**
 * A browser keeps the `sb_keys` cookie that proves, at its next local sign-in, that it has signed in as that
 * person before (server/identity/returning.ts). Scripts and tests signing in through the API keep it here, per
 * server and person, the way each person's own browser would.
 */
const jars = new Map<string, string>();

const jarKey = (url: string, email: string): string =>
  `${new URL(url).origin} ${email.trim().toLowerCase()}`;

/** The Cookie header carrying the sign-in keys of `email`'s browser for the server at `url`, if any. */
export function signInKeyHeaders(url: string, email: string): Record<string, string> {
  const keys = jars.get(jarKey(url, email));
  return keys === undefined ? {} : { Cookie: `sb_keys=${keys}` };
}

/** Keeps the keys a sign-in answer set. */
export function rememberSignInKeys(url: string, email: string, res: Response): void {
  for (const cookie of res.headers.getSetCookie()) {
    const m = /^sb_keys=([^;]*)/.exec(cookie);
    if (m?.[1]) jars.set(jarKey(url, email), m[1]);
  }
}
