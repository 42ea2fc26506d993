/**
 * Access tokens for Sync and Voice, minted with the official `twilio` package on every backend: the
 * browser's unmodified SDKs take them to Twilio (or its twins), which checks them (signed with the
 * API key's secret). They cannot be withdrawn before they expire, so they are short: signing out or
 * removing someone stops new tokens, the ones handed out lapse within 10 minutes, and a removed
 * person's Sync permissions go at once (acl.ts), which a live token cannot get past.
 */
import twilio from 'twilio';
import type { TwilioConfig } from './config';
import { voiceIdentityOf } from '../../src/contracts/voice-identity';

const { AccessToken } = twilio.jwt;

/** Twilio refuses tokens that live longer than a day. */
const MAX_TTL_SECONDS = 86_400;
/** The longest a Twilio token lives here; the SDKs renew theirs before they end. */
export const TWILIO_TOKEN_TTL_SECONDS = 600;
/** The Sync token's lifetime; the browser renews it before it ends (tokenAboutToExpire). */
export const SYNC_TOKEN_TTL_SECONDS = TWILIO_TOKEN_TTL_SECONDS;

function token(
  config: TwilioConfig,
  identity: string,
  ttlSeconds: number,
): InstanceType<typeof AccessToken> {
  return new AccessToken(config.accountSid, config.apiKey, config.apiSecret, {
    identity,
    ttl: Math.min(Math.max(Math.round(ttlSeconds), 1), MAX_TTL_SECONDS),
  });
}

/** A token for the twilio-sync SDK: the team's Sync service, as `identity`. */
export function mintTwilioSyncToken(
  config: TwilioConfig,
  identity: string,
  ttlSeconds = SYNC_TOKEN_TTL_SECONDS,
): string {
  const t = token(config, identity, ttlSeconds);
  t.addGrant(new AccessToken.SyncGrant({ serviceSid: config.syncServiceSid }));
  return t.toJwt();
}

/**
 * A token for the Voice SDK: calls out go through the TwiML app (whose Voice URL is this server's
 * webhook), and calls to `client:<voice identity>` ring this person's browser. The token names the
 * person by their Voice identity (letters, digits and underscores, derived from their email:
 * src/contracts/voice-identity.ts), as Twilio's client identifiers must be
 * (https://www.twilio.com/docs/voice/twiml/client); the Sync token keeps the email.
 */
export function mintTwilioVoiceToken(
  config: TwilioConfig,
  identity: string,
  ttlSeconds: number,
): string {
  const t = token(config, voiceIdentityOf(identity), ttlSeconds);
  t.addGrant(
    new AccessToken.VoiceGrant({ outgoingApplicationSid: config.twimlAppSid, incomingAllow: true }),
  );
  return t.toJwt();
}
