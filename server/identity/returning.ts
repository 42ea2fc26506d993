/**
 * Local sign-in under an email that already has an account needs more than the email: either a key this
 * browser was given when that person last signed in here (the `sb_keys` cookie, HttpOnly, sent only to
 * /api/session), or a one-time code: one an admin issued from /users and passed on, or (the fallback)
 * one the server prints in its own terminal, which only the operator of the machine can read. See docs/operations.md ("Who may sign in as whom").
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { readCookie } from '../platform/http/cookies';
import type { AppDatabase } from './database';

export const KEYS_COOKIE = 'sb_keys';
const KEYS_PER_BROWSER = 5;
const KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const KEY_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;
export const CODE_TTL_MS = 10 * 60 * 1000;
/** Wrong codes before the code is withdrawn (a new one is printed on the next try). */
export const CODE_MAX_FAILURES = 5;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export type ReturningProof =
  { ok: true } | { ok: false; reason: 'code_required' | 'bad_code'; codeIssued: boolean };

export interface ReturningPeople {
  /**
   * Whether this request proves it may act as `identity`: a key on this browser, or the printed code. Without
   * either, a code is printed (once per 10 minutes per person) and the caller asks for it.
   */
  check(
    req: IncomingMessage,
    identity: string,
    code: string | undefined,
    now: number,
  ): ReturningProof;
  /**
   * A fresh code for `identity`, handed to an admin to pass on (not printed: the terminal says only
   * that one was issued, and by whom). It replaces any code waiting for them.
   */
  issue(identity: string, by: string, now: number): { code: string; expiresAt: number };
  /** A new key for `identity` on this browser: the Set-Cookie value carrying it with the browser's others. */
  remember(req: IncomingMessage, identity: string, now: number, secure: boolean): string;
}

export function createReturningPeople(
  db: AppDatabase,
  announce: (line: string) => void,
): ReturningPeople {
  const insert = db.prepare<[string, string, number]>(
    'INSERT INTO sign_in_keys (hash, identity, created_at) VALUES (?, ?, ?)',
  );
  const find = db.prepare<[string, string], { one: number }>(
    'SELECT 1 AS one FROM sign_in_keys WHERE hash = ? AND identity = ?',
  );
  const codes = new Map<string, { hash: Buffer; expiresAt: number; failures: number }>();

  const keysOf = (req: IncomingMessage): string[] =>
    (readCookie(req, KEYS_COOKIE) ?? '')
      .split('.')
      .filter((k) => KEY_PATTERN.test(k))
      .slice(-KEYS_PER_BROWSER);

  const newCode = (identity: string, now: number): string => {
    const code = String(randomInt(0, 100_000_000)).padStart(8, '0');
    codes.set(identity, {
      hash: Buffer.from(sha256(code), 'hex'),
      expiresAt: now + CODE_TTL_MS,
      failures: 0,
    });
    return code;
  };
  const issueCode = (identity: string, now: number): void => {
    const code = newCode(identity, now);
    announce(
      `switchboard: sign-in code for ${identity}: ${code} (valid 10 minutes; give it only to that person)`,
    );
  };

  return {
    check(req, identity, code, now) {
      if (keysOf(req).some((key) => find.get(sha256(key), identity) !== undefined))
        return { ok: true };
      const pending = codes.get(identity);
      const live = pending !== undefined && pending.expiresAt > now ? pending : undefined;
      if (code === undefined || code === '') {
        if (!live) issueCode(identity, now);
        return { ok: false, reason: 'code_required', codeIssued: !live };
      }
      if (live) {
        const given = Buffer.from(sha256(code.trim()), 'hex');
        if (timingSafeEqual(given, live.hash)) {
          codes.delete(identity);
          return { ok: true };
        }
        live.failures += 1;
        if (live.failures < CODE_MAX_FAILURES)
          return { ok: false, reason: 'bad_code', codeIssued: false };
      }
      // No live code, or too many wrong ones: a fresh code replaces it.
      issueCode(identity, now);
      return { ok: false, reason: 'bad_code', codeIssued: true };
    },
    issue(identity, by, now) {
      const code = newCode(identity, now);
      announce(
        `switchboard: ${by} issued a sign-in code for ${identity} (valid 10 minutes); any earlier one is void`,
      );
      return { code, expiresAt: now + CODE_TTL_MS };
    },
    remember(req, identity, now, secure) {
      const key = randomBytes(32).toString('base64url');
      insert.run(sha256(key), identity, now);
      const keys = [...keysOf(req), key].slice(-KEYS_PER_BROWSER);
      const parts = [
        `${KEYS_COOKIE}=${keys.join('.')}`,
        'Path=/api/session',
        `Max-Age=${KEY_MAX_AGE_SECONDS}`,
        'HttpOnly',
        'SameSite=Strict',
      ];
      if (secure) parts.push('Secure');
      return parts.join('; ');
    },
  };
}
