/**
 * Twilio's AccessTokens as the twins check them: HS256 JWTs with `cty: twilio-fpa;v=1`, signed with
 * an API key's secret (https://www.twilio.com/docs/iam/access-tokens). The Sync and Voice twins each
 * judge their own grant and answer with their own error codes (server/twins/sync/token.ts,
 * server/twins/voice/token.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

function sign(secret: Buffer, signingInput: string): Buffer {
  return createHmac('sha256', secret).update(signingInput).digest();
}

export type DecodedToken =
  | {
      ok: true;
      grants: Record<string, unknown>;
      identity: string | null;
      iat: number | null;
      exp: number;
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
  const { exp, nbf, iat, grants } = payload;
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
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
