/**
 * Sync AccessTokens: the shared Twilio token layout (server/platform/lib/access-token.ts) with a `data_sync` grant,
 * and Twilio's Sync error codes for bad ones.
 */
import {
  ACCOUNT_SID,
  API_KEY_SID,
  decodeAccessToken,
  loadOrCreateSecret,
  signAccessToken,
} from '../platform/lib/access-token';

export { ACCOUNT_SID, API_KEY_SID, loadOrCreateSecret };
export const SERVICE_SID = 'IS00000000000000000000000000000000';

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
  return signAccessToken(
    secret,
    { identity, data_sync: { service_sid: SERVICE_SID } },
    nowSeconds,
    ttlSeconds,
    sessionRef,
  );
}

export type TokenCheck =
  | { ok: true; identity: string; exp: number; sessionRef: string | null }
  | { ok: false; errorCode: 20101 | 20104 | 20106 | 20107; description: string };

const CODES = { malformed: 20101, signature: 20107, expired: 20104 } as const;

/** Verifies shape, signature, time window and grant, in that order, returning Twilio's error code on failure. */
export function verifyAccessToken(secret: Buffer, token: unknown, nowSeconds: number): TokenCheck {
  const decoded = decodeAccessToken(secret, token, nowSeconds);
  if (!decoded.ok)
    return { ok: false, errorCode: CODES[decoded.problem], description: decoded.description };
  if (typeof decoded.grants.data_sync !== 'object' || decoded.grants.data_sync === null) {
    return {
      ok: false,
      errorCode: 20106,
      description: 'Invalid Access Token grants: no data_sync grant',
    };
  }
  if (decoded.identity === null) {
    return {
      ok: false,
      errorCode: 20106,
      description: 'Invalid Access Token grants: identity missing',
    };
  }
  return {
    ok: true,
    identity: decoded.identity,
    exp: decoded.exp,
    sessionRef: decoded.sessionRef,
  };
}
