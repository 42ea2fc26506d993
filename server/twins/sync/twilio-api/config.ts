/**
 * Whether the embedded Sync service also answers Twilio's Sync REST API, from the environment:
 * SWITCHBOARD_SYNC_TWILIO_API=1 with the credentials a Twilio-mode server authenticates with
 * (TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN, and/or TWILIO_API_KEY and TWILIO_API_SECRET) and the
 * service SID it names (TWILIO_SYNC_SERVICE_SID, default the embedded service's own). Throws a
 * sentence naming what is missing.
 */
import { SERVICE_SID } from '../token';
import type { TwilioApiOptions } from './http';
import { syncFaultsFromEnv } from './faults';

type Env = Readonly<Record<string, string | undefined>>;

const set = (v: string | undefined): string | null =>
  v !== undefined && v.trim() !== '' ? v.trim() : null;

/**
 * The test hook SWITCHBOARD_TEST_SYNC_DELAY_MS (tests and benchmarks only, never in production): the
 * Sync REST twin answers every read (GET) this many ms late, as a slow Sync would. 0 when unset;
 * anything but a whole number of ms up to 10 000 stops the server.
 */
export function syncReadDelayFromEnv(env: Env): number {
  const raw = set(env.SWITCHBOARD_TEST_SYNC_DELAY_MS);
  if (raw === null) return 0;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 10_000)
    throw new Error('SWITCHBOARD_TEST_SYNC_DELAY_MS must be a whole number of ms, 0 to 10000');
  return Number(raw);
}

export function twilioApiFromEnv(env: Env): TwilioApiOptions | null {
  const on = set(env.SWITCHBOARD_SYNC_TWILIO_API);
  if (on === null || on === '0' || on.toLowerCase() === 'false') return null;
  const accountSid = set(env.TWILIO_ACCOUNT_SID);
  const authToken = set(env.TWILIO_AUTH_TOKEN);
  const apiKey = set(env.TWILIO_API_KEY);
  const apiSecret = set(env.TWILIO_API_SECRET);
  const serviceSid = set(env.TWILIO_SYNC_SERVICE_SID) ?? SERVICE_SID;
  const problems: string[] = [];
  if (!accountSid || !/^AC[0-9a-fA-F]{32}$/.test(accountSid))
    problems.push('TWILIO_ACCOUNT_SID must be AC followed by 32 hex digits');
  if (!authToken && !(apiKey && apiSecret))
    problems.push('set TWILIO_AUTH_TOKEN, or TWILIO_API_KEY and TWILIO_API_SECRET');
  if (!/^IS[0-9a-fA-F]{32}$/.test(serviceSid))
    problems.push('TWILIO_SYNC_SERVICE_SID must be IS followed by 32 hex digits');
  if (problems.length > 0)
    throw new Error(
      `SWITCHBOARD_SYNC_TWILIO_API=1 needs the credentials Twilio's REST API is called with: ${problems.join('; ')}`,
    );
  return {
    accountSid: accountSid!,
    authToken: authToken ?? undefined,
    apiKeys: apiKey && apiSecret ? { [apiKey]: apiSecret } : {},
    serviceSid,
    readDelayMs: syncReadDelayFromEnv(env),
    faults: syncFaultsFromEnv(env),
  };
}
