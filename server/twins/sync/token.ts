/**
 * The Sync twin's check of a twilio-sync SDK token, as Twilio checks it: signed by one of the
 * account's API keys, for one of its Sync services (server/platform/lib/access-token.ts does the
 * JWT), with Twilio's error codes for bad ones.
 */
import { decodeAccessToken } from '../../platform/lib/access-token';

export type TokenCheck =
  | { ok: true; identity: string; exp: number }
  | { ok: false; errorCode: TokenErrorCode; description: string };

/**
 * Twilio's codes for a refused Access Token (https://www.twilio.com/docs/api/errors/20101 to 20107):
 * invalid, invalid header, invalid issuer/subject, expired, invalid grants, invalid signature.
 */
export type TokenErrorCode = 20101 | 20102 | 20103 | 20104 | 20106 | 20107;

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
  };
}

/** An API key the service knows: its secret, its account, and the Sync services of that account. */
export interface SigningKey {
  secret: Buffer;
  accountSid: string;
  /** The service SIDs a token's `data_sync.service_sid` may name ('default' names the first). */
  serviceSids: readonly string[];
}

function claims(token: unknown): { header: unknown; payload: unknown } | null {
  if (typeof token !== 'string') return null;
  const [h, p, ...rest] = token.split('.');
  if (h === undefined || p === undefined || rest.length !== 1) return null;
  try {
    return {
      header: JSON.parse(Buffer.from(h, 'base64url').toString('utf8')),
      payload: JSON.parse(Buffer.from(p, 'base64url').toString('utf8')),
    };
  } catch {
    return null;
  }
}

const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * Verifies a token as Twilio does: the API key named by its issuer (`iss`) must be one the service
 * knows and belong to the account named by its subject (`sub`), else 20103 ("Invalid Access Token
 * issuer/subject": https://www.twilio.com/docs/api/errors/20103); the header must be Twilio's
 * (`cty: twilio-fpa;v=1`, else 20102); then the signature with that key's secret (20107), the time
 * window (20104), and a Sync grant for one of that account's services (20106).
 */
export function verifyWithKeys(
  keys: ReadonlyMap<string, SigningKey>,
  token: unknown,
  nowSeconds: number,
): TokenCheck {
  const parsed = claims(token);
  if (parsed === null || typeof token !== 'string' || token.length > 16_384)
    return verifyAccessToken(Buffer.alloc(32), token, nowSeconds);
  const header = record(parsed.header);
  const payload = record(parsed.payload);
  if (header.cty !== 'twilio-fpa;v=1')
    return { ok: false, errorCode: 20102, description: 'Invalid Access Token header' };
  const key = typeof payload.iss === 'string' ? keys.get(payload.iss) : undefined;
  if (!key || payload.sub !== key.accountSid)
    return { ok: false, errorCode: 20103, description: 'Invalid Access Token issuer/subject' };
  const check = verifyAccessToken(key.secret, token, nowSeconds);
  if (!check.ok) return check;
  const service = record(record(payload.grants).data_sync).service_sid;
  const named = service === undefined || service === 'default' ? key.serviceSids[0] : service;
  if (typeof named !== 'string' || !key.serviceSids.includes(named))
    return {
      ok: false,
      errorCode: 20106,
      description: `Invalid Access Token grants: no Sync service ${String(service)} in this account`,
    };
  return check;
}
