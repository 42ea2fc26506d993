/**
 * The made-up Twilio account of `SWITCHBOARD_BACKEND=twilio-twins` (./account.ts): the values a
 * twins-mode server reads as its Twilio settings when the environment does not name them.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadOrCreateSecret } from '../platform/lib/access-token';
import type { TwilioConfig } from '../twilio/config';

/** The value of SWITCHBOARD_BACKEND that selects this mode. */
export const TWINS_BACKEND = 'twilio-twins';

/** The made-up account's SIDs, used unless the environment names others. */
export const TWIN_ACCOUNT = {
  TWILIO_ACCOUNT_SID: 'AC7717e5000000000000000000000000a1',
  TWILIO_API_KEY: 'SK7717e5000000000000000000000000b2',
  TWILIO_SYNC_SERVICE_SID: 'IS7717e5000000000000000000000000c3',
  TWILIO_TWIML_APP_SID: 'AP7717e5000000000000000000000000d4',
  // Twilio's own number for test credentials ("a number that is always available").
  TWILIO_PHONE_NUMBERS: '+15005550006',
} as const;

/** Where the made-up account keeps its secrets and its Sync data. */
export const twinFolder = (dataDir: string): string => join(dataDir, 'twilio-twins');

/**
 * The environment a twins-mode server reads its Twilio settings from: every TWILIO_* value the
 * operator did not set is the made-up account's; the secret and auth token are made once and kept
 * in the data folder (random per start when there is none, in tests that read the config only).
 */
export function twinEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  dataDir: string | null,
): Record<string, string | undefined> {
  let secret: Buffer;
  let token: Buffer;
  if (dataDir === null) {
    secret = randomBytes(32);
    token = randomBytes(32);
  } else {
    mkdirSync(twinFolder(dataDir), { recursive: true });
    secret = loadOrCreateSecret(twinFolder(dataDir), 'api-secret');
    token = loadOrCreateSecret(twinFolder(dataDir), 'auth-token');
  }
  const given = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''),
  );
  return {
    ...TWIN_ACCOUNT,
    TWILIO_API_SECRET: secret.toString('hex'),
    TWILIO_AUTH_TOKEN: token.toString('hex').slice(0, 32),
    ...given,
  };
}

/**
 * The embedded backend's account: its calls are the app's Twilio Voice application (server/twilio/)
 * run by the voice twin, and the app's own Sync writes go through Twilio's Sync REST API to the
 * embedded Sync service (the same data the browsers use, `syncServiceSid`). No phone numbers: the
 * twins have no phone network, so a number dialled is refused with what to do. `api` is
 * SWITCHBOARD_SYNC_TWILIO_API's account when set (its REST clients and the app's then share it).
 */
export function embeddedAccount(
  dataDir: string,
  syncServiceSid: string,
  api: { accountSid: string } | null,
): TwilioConfig {
  const env = twinEnvironment({}, dataDir);
  return {
    kind: 'twilio',
    accountSid: api?.accountSid ?? env.TWILIO_ACCOUNT_SID!,
    apiKey: env.TWILIO_API_KEY!,
    apiSecret: env.TWILIO_API_SECRET!,
    authToken: env.TWILIO_AUTH_TOKEN!,
    syncServiceSid,
    twimlAppSid: env.TWILIO_TWIML_APP_SID!,
    phoneNumbers: [],
    publicUrl: '',
    apiBaseUrl: null,
    twins: true,
  };
}
