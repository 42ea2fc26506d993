/**
 * A browser keeps the `sb_keys` cookie that proves, at its next local sign-in, that it has signed in as that
 * person before (server/auth/returning.ts). Scripts and tests signing in through the API keep it here, per
 * server origin, the way one browser would.
 */
const jars = new Map<string, string>();

const originOf = (url: string): string => new URL(url).origin;

/** The Cookie header carrying this "browser's" sign-in keys for the server at `url`, if it has any. */
export function signInKeyHeaders(url: string): Record<string, string> {
  const keys = jars.get(originOf(url));
  return keys === undefined ? {} : { Cookie: `sb_keys=${keys}` };
}

/** Keeps the keys a sign-in answer set. */
export function rememberSignInKeys(url: string, res: Response): void {
  for (const cookie of res.headers.getSetCookie()) {
    const m = /^sb_keys=([^;]*)/.exec(cookie);
    if (m?.[1]) jars.set(originOf(url), m[1]);
  }
}
