/**
 * The made-up Twilio account the twins play (SWITCHBOARD_BACKEND `embedded` and `twilio-twins`):
 * fixed SIDs, each of which the environment can set with its usual variable (to rehearse with the
 * values a real account will have), and an API secret and auth token made once and kept in the
 * twins' data folder. The app reads it as it reads a real account's settings
 * (server/twilio/config.ts); the twins take the same values as theirs (./index.ts).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The made-up account's SIDs, used unless the environment names others. */
export const TWIN_ACCOUNT = {
  TWILIO_ACCOUNT_SID: 'AC7717e5000000000000000000000000a1',
  TWILIO_API_KEY: 'SK7717e5000000000000000000000000b2',
  TWILIO_SYNC_SERVICE_SID: 'IS7717e5000000000000000000000000c3',
  TWILIO_TWIML_APP_SID: 'AP7717e5000000000000000000000000d4',
} as const;

/**
 * Twilio's own number for test credentials ("a number that is always available",
 * https://www.twilio.com/docs/iam/test-credentials): the account's number on `twilio-twins`.
 */
export const TWIN_PHONE_NUMBER = '+15005550006';

/** Where `twilio-twins` keeps the twins' data (its own Sync data, apart from the embedded backend's). */
export const twinFolder = (dataDir: string): string => join(dataDir, 'twilio-twins');

const SECRETS = { TWILIO_API_SECRET: 'api-secret', TWILIO_AUTH_TOKEN: 'auth-token' } as const;

/** A secret kept in `dir` (64 hex characters), or null when there is none yet. */
function readSecret(dir: string, file: string): string | null {
  const path = join(dir, file);
  if (!existsSync(path)) return null;
  const text = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(text))
    throw new Error(`${path} is corrupt: expected 64 hex characters`);
  return text;
}

/**
 * The environment the app reads the made-up account from: every TWILIO_* value the operator did not
 * set is the account's. The secret and auth token are read from `dir` (the twins' folder) when they
 * were made before, else made now; {@link keepAccountSecrets} stores them when the twins start, so
 * reading the configuration writes nothing. With no `dir` (the twins in a process of their own,
 * which made them) they are the environment's only: unset, the configuration says so.
 */
export function twinEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  dir: string | null,
  phoneNumbers: readonly string[],
): Record<string, string | undefined> {
  const secret = (file: string) =>
    dir === null ? '' : (readSecret(dir, file) ?? randomBytes(32).toString('hex'));
  const given = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''),
  );
  return {
    ...TWIN_ACCOUNT,
    TWILIO_PHONE_NUMBERS: phoneNumbers.join(','),
    TWILIO_API_SECRET: secret(SECRETS.TWILIO_API_SECRET),
    TWILIO_AUTH_TOKEN: secret(SECRETS.TWILIO_AUTH_TOKEN).slice(0, 32),
    ...given,
  };
}

/**
 * Keeps the account's secrets in `dir` unless some are kept already (the next start reads them, so
 * tokens handed out before a restart stay good). Values the operator set are not written.
 */
export function keepAccountSecrets(
  dir: string,
  account: { apiSecret: string; authToken: string },
  env: Readonly<Record<string, string | undefined>>,
): void {
  mkdirSync(dir, { recursive: true });
  const keep = (file: string, value: string): void => {
    const path = join(dir, file);
    if (existsSync(path)) return;
    writeFileSync(path, value + '\n', { mode: 0o600 });
    chmodSync(path, 0o600);
  };
  if (!env.TWILIO_API_SECRET?.trim() && /^[0-9a-f]{64}$/.test(account.apiSecret))
    keep(SECRETS.TWILIO_API_SECRET, account.apiSecret);
  // The auth token is the first 32 digits of the kept secret: the rest is made up again.
  if (!env.TWILIO_AUTH_TOKEN?.trim() && /^[0-9a-f]{32}$/.test(account.authToken))
    keep(SECRETS.TWILIO_AUTH_TOKEN, account.authToken + randomBytes(16).toString('hex'));
}
