/**
 * Twilio-shaped AccessTokens: HS256 JWTs with `cty: twilio-fpa;v=1`, signed with a secret the server
 * creates on first start in its data folder (mode 0600). The Sync and Voice services each add their
 * own grant and error codes on top (server/sync/token.ts, server/twins/voice/token.ts).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ACCOUNT_SID = 'AC00000000000000000000000000000000';
export const API_KEY_SID = 'SK00000000000000000000000000000000';

/** `<dataDir>/<fileName>`: 32 random bytes as hex, created once, refused when corrupt. */
export function loadOrCreateSecret(dataDir: string, fileName = 'sync-secret'): Buffer {
  const path = join(dataDir, fileName);
  if (existsSync(path)) {
    const text = readFileSync(path, 'utf8').trim();
    if (/^[0-9a-f]{64}$/.test(text)) return Buffer.from(text, 'hex');
    throw new Error(`${path} is corrupt: expected 64 hex characters`);
  }
  const secret = randomBytes(32);
  writeFileSync(path, secret.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  return secret;
}

const b64 = (value: object | Buffer): string =>
  (Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value))).toString('base64url');

function sign(secret: Buffer, signingInput: string): Buffer {
  return createHmac('sha256', secret).update(signingInput).digest();
}

/**
 * Signs `grants` for `ttlSeconds` from `nowSeconds`. `sessionRef` (claim `sbs`) ties the token to the
 * app session that asked for it, so that it dies with that session.
 */
export function signAccessToken(
  secret: Buffer,
  grants: Record<string, unknown>,
  nowSeconds: number,
  ttlSeconds: number,
  sessionRef?: string,
): string {
  const header = { typ: 'JWT', alg: 'HS256', cty: 'twilio-fpa;v=1' };
  const payload = {
    jti: `${API_KEY_SID}-${nowSeconds}-${randomBytes(4).toString('hex')}`,
    iss: API_KEY_SID,
    sub: ACCOUNT_SID,
    iat: nowSeconds,
    nbf: nowSeconds,
    exp: nowSeconds + ttlSeconds,
    ...(sessionRef === undefined ? {} : { sbs: sessionRef }),
    grants,
  };
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${b64(sign(secret, input))}`;
}

export type DecodedToken =
  | {
      ok: true;
      grants: Record<string, unknown>;
      identity: string | null;
      iat: number | null;
      exp: number;
      sessionRef: string | null;
    }
  | { ok: false; problem: 'malformed' | 'signature' | 'expired'; description: string };

/** Checks shape, signature and time window, in that order; the grants are the caller's to judge. */
export function decodeAccessToken(
  secret: Buffer,
  token: unknown,
  nowSeconds: number,
): DecodedToken {
  const malformed = (description: string): DecodedToken => ({
    ok: false,
    problem: 'malformed',
    description,
  });
  if (typeof token !== 'string' || token.length === 0) return malformed('Access Token is missing');
  if (token.length > 16_384) return malformed('Access Token is too long');
  const parts = token.split('.');
  if (parts.length !== 3) return malformed('Invalid Access Token');
  const [h, p, s] = parts as [string, string, string];
  let header: unknown;
  let payload: unknown;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
    payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
  } catch {
    return malformed('Invalid Access Token');
  }
  if (!isRecord(header) || header.alg !== 'HS256' || !isRecord(payload))
    return malformed('Invalid Access Token');
  const expected = sign(secret, `${h}.${p}`);
  const given = Buffer.from(s, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, problem: 'signature', description: 'Invalid Access Token signature' };
  }
  const { exp, nbf, iat, grants, sbs } = payload;
  if (typeof exp !== 'number') return malformed('Invalid Access Token: exp missing');
  if (exp <= nowSeconds)
    return {
      ok: false,
      problem: 'expired',
      description: 'Access Token expired or expiration date invalid',
    };
  if (typeof nbf === 'number' && nbf > nowSeconds + 60)
    return malformed('Access Token not yet valid');
  const record = isRecord(grants) ? grants : {};
  const identity = record.identity;
  return {
    ok: true,
    grants: record,
    identity: typeof identity === 'string' && identity.length > 0 ? identity : null,
    iat: typeof iat === 'number' ? iat : null,
    exp,
    sessionRef: typeof sbs === 'string' ? sbs : null,
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
