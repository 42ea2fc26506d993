/**
 * The voice twin's check of a Voice SDK token, as Twilio checks it: Twilio's token layout
 * (server/platform/lib/access-token.ts) with a `voice` grant, as twilio-node's `AccessToken` +
 * `VoiceGrant` make them, signed with the account's API key. Bad tokens get the codes the Voice SDK
 * maps (docs: protocol notes, section 6 and 10).
 */
import { decodeAccessToken } from '../../platform/lib/access-token';

/** Twilio refuses tokens that live longer than a day. */
const MAX_TTL_SECONDS = 86_400;

export type VoiceTokenCheck =
  | {
      ok: true;
      identity: string;
      exp: number;
      incoming: boolean;
      outgoing: boolean;
    }
  /** 31204 invalid, 31202 signature, 31205 expired, 31207 lives too long, 31201 no voice grant. */
  | { ok: false; code: 31201 | 31202 | 31204 | 31205 | 31207; message: string };

export function verifyVoiceToken(
  secret: Buffer,
  token: unknown,
  nowSeconds: number,
): VoiceTokenCheck {
  const decoded = decodeAccessToken(secret, token, nowSeconds);
  if (!decoded.ok) {
    if (decoded.problem === 'expired')
      return { ok: false, code: 31205, message: 'JWT token expired' };
    if (decoded.problem === 'signature')
      return { ok: false, code: 31202, message: 'JWT signature validation failed' };
    return { ok: false, code: 31204, message: `JWT is invalid: ${decoded.description}` };
  }
  if (decoded.iat !== null && decoded.exp - decoded.iat > MAX_TTL_SECONDS)
    return { ok: false, code: 31207, message: 'JWT token expiration too long' };
  const voice = decoded.grants.voice;
  if (decoded.identity === null || typeof voice !== 'object' || voice === null)
    return {
      ok: false,
      code: 31201,
      message: 'Authentication failed: the token has no voice grant',
    };
  const grant = voice as Record<string, unknown>;
  const incoming = grant.incoming as Record<string, unknown> | undefined;
  const outgoing = grant.outgoing as Record<string, unknown> | undefined;
  return {
    ok: true,
    identity: decoded.identity,
    exp: decoded.exp,
    incoming: typeof incoming === 'object' && incoming !== null && incoming.allow === true,
    outgoing:
      typeof outgoing === 'object' &&
      outgoing !== null &&
      typeof outgoing.application_sid === 'string',
  };
}
