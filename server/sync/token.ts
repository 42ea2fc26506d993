/**
 * Twilio-shaped AccessTokens (HS256 JWT, `cty: twilio-fpa;v=1`) with a `data_sync` grant, signed with a secret
 * created on first start in `<dataDir>/sync-secret` (mode 0600).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ACCOUNT_SID = 'AC00000000000000000000000000000000';
export const API_KEY_SID = 'SK00000000000000000000000000000000';
export const SERVICE_SID = 'IS00000000000000000000000000000000';

export function loadOrCreateSecret(dataDir: string): Buffer {
  const path = join(dataDir, 'sync-secret');
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
 * `sessionRef` (claim `sbs`) ties the token to the app session that asked for it, so that the token dies with
 * that session (sign-out, removal of the person); the service refuses tokens without one when it has a gate.
 */
export function mintAccessToken(
  secret: Buffer,
  identity: string,
  nowSeconds: number,
  ttlSeconds = 3600,
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
    grants: { identity, data_sync: { service_sid: SERVICE_SID } },
  };
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${b64(sign(secret, input))}`;
}

export type TokenCheck =
  | { ok: true; identity: string; exp: number; sessionRef: string | null }
  | { ok: false; errorCode: 20101 | 20104 | 20106 | 20107; description: string };

/** Verifies shape, signature, time window and grant, in that order, returning Twilio's error code on failure. */
export function verifyAccessToken(secret: Buffer, token: unknown, nowSeconds: number): TokenCheck {
  const malformed = (description: string): TokenCheck => ({
    ok: false,
    errorCode: 20101,
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
    return { ok: false, errorCode: 20107, description: 'Invalid Access Token signature' };
  }
  const { exp, nbf, grants, sbs } = payload;
  if (typeof exp !== 'number') return malformed('Invalid Access Token: exp missing');
  if (exp <= nowSeconds)
    return {
      ok: false,
      errorCode: 20104,
      description: 'Access Token expired or expiration date invalid',
    };
  if (typeof nbf === 'number' && nbf > nowSeconds + 60)
    return malformed('Access Token not yet valid');
  if (!isRecord(grants) || !isRecord(grants.data_sync)) {
    return {
      ok: false,
      errorCode: 20106,
      description: 'Invalid Access Token grants: no data_sync grant',
    };
  }
  const identity = grants.identity;
  if (typeof identity !== 'string' || identity.length === 0) {
    return {
      ok: false,
      errorCode: 20106,
      description: 'Invalid Access Token grants: identity missing',
    };
  }
  return { ok: true, identity, exp, sessionRef: typeof sbs === 'string' ? sbs : null };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
