/**
 * Twilio access tokens as a test needs them: signed with an account's API key as the `twilio`
 * package's AccessToken signs them (HS256, `cty: twilio-fpa;v=1`, the key as issuer and the account
 * as subject), but at any moment and for any lifetime (a token already expired, one that lives too
 * long), which the package does not make.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** The account's API key a token is signed with. */
export interface SigningAccount {
  accountSid: string;
  apiKey: string;
  apiSecret: string;
}

const b64 = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** `grants` for `ttlSeconds` from `nowSeconds`, signed with the account's API key. */
export function signToken(
  account: SigningAccount,
  grants: Record<string, unknown>,
  nowSeconds = Math.floor(Date.now() / 1000),
  ttlSeconds = 600,
): string {
  const header = { typ: 'JWT', alg: 'HS256', cty: 'twilio-fpa;v=1' };
  const payload = {
    jti: `${account.apiKey}-${nowSeconds}-${randomBytes(4).toString('hex')}`,
    iss: account.apiKey,
    sub: account.accountSid,
    iat: nowSeconds,
    nbf: nowSeconds,
    exp: nowSeconds + ttlSeconds,
    grants,
  };
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', account.apiSecret).update(input).digest('base64url')}`;
}

/** A twilio-sync SDK token for `identity` on the account's Sync service. */
export function syncTokenFor(
  account: SigningAccount & { syncServiceSid: string },
  identity: string,
  ttlSeconds = 600,
  nowMs = Date.now(),
): string {
  return signToken(
    account,
    { identity, data_sync: { service_sid: account.syncServiceSid } },
    Math.floor(nowMs / 1000),
    ttlSeconds,
  );
}

/** A Voice SDK token for `identity` (a Voice identity) through the account's TwiML app. */
export function voiceTokenFor(
  account: SigningAccount & { twimlAppSid: string },
  identity: string,
  ttlSeconds = 600,
  nowMs = Date.now(),
): string {
  return signToken(
    account,
    {
      identity,
      voice: { incoming: { allow: true }, outgoing: { application_sid: account.twimlAppSid } },
    },
    Math.floor(nowMs / 1000),
    ttlSeconds,
  );
}
