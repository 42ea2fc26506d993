/**
 * The app's configuration, read from the environment once at start (docs/operations.md lists every
 * variable): the HTTP server's own (platform), sign-in (identity), call audio ports (voice) and the
 * backend (embedded, or Twilio's with its settings). Throws a readable error when a value is invalid.
 */
import { nonEmpty, serverConfigFromEnv, type Env, type ServerConfig } from './platform/config';
import { signInConfigFromEnv, type SignInConfig } from './identity/config';
import { twilioConfigFromEnv, type TwilioConfig } from './twilio/config';
import { twilioApiFromEnv } from './twins/sync/twilio-api/config';
import type { TwilioApiOptions } from './twins/sync/twilio-api/http';
import { rtpPortsFromEnv } from './voice/settings';

export interface AppConfig extends ServerConfig, SignInConfig {
  /** VOICE_RTP_PORTS: the UDP ports call audio may use ("min-max"); any free port when null. */
  voiceRtpPorts: [number, number] | null;
  /**
   * SWITCHBOARD_BACKEND: `embedded` (Sync and calls served here) or Twilio's Sync and Voice
   * (server/twilio/, with its settings), or `twilio-twins`: Twilio mode against this process's twins
   * (`twins: true`, server/twins/account.ts).
   */
  backend: { kind: 'embedded' } | TwilioConfig;
  /**
   * SWITCHBOARD_SYNC_TWILIO_API (embedded backend only): the embedded Sync service also answers
   * Twilio's Sync REST API at /twilio/sync/v1, with these credentials (server/sync/twilio-api/).
   */
  syncTwilioApi: TwilioApiOptions | null;
}

export function configFromEnv(env: Env, cwd = process.cwd()): AppConfig {
  const server = serverConfigFromEnv(env, cwd);
  const twilio = twilioConfigFromEnv(env, server.dataDir);
  // Twilio reaches the webhooks at the public URL: its name is one this server answers to (on the
  // twins, unless set, the server's own address).
  if (twilio?.publicUrl) server.publicHosts.push(new URL(twilio.publicUrl).hostname.toLowerCase());
  return {
    ...server,
    ...signInConfigFromEnv(env, cwd),
    voiceRtpPorts: rtpPortsFromEnv(nonEmpty(env.VOICE_RTP_PORTS)),
    backend: twilio ?? { kind: 'embedded' },
    syncTwilioApi: twilio ? null : twilioApiFromEnv(env),
  };
}
