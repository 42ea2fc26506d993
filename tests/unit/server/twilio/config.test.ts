/**
 * The Twilio account at start: on Twilio every setting read, every problem named at once with what
 * the value should look like; on the twins (embedded, the default, and twilio-twins) a made-up
 * account whose values the environment may set.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../../../server/config';
import { localSignInOffered } from '../../../../server/identity/config';
import { keepAccountSecrets, TWIN_ACCOUNT } from '../../../../server/twins/account';
import { removeDir, tempDir } from '../support';
import { ACCOUNT_SID, APP_SID, NUMBERS, SERVICE_SID, twilioEnv } from './support';

const env = (over: Record<string, string | undefined> = {}) => {
  const { SWITCHBOARD_TWILIO_API_URL: _, ...base } = twilioEnv('http://127.0.0.1:1');
  return { ...base, ...over };
};

/** The Twilio account the configuration names. */
const twilioConfigFromEnv = (e: Record<string, string | undefined>) => configFromEnv(e).twilio;

describe('SWITCHBOARD_BACKEND=twilio', () => {
  it('is embedded unless asked for, and names the three it may be', () => {
    expect(configFromEnv({ SWITCHBOARD_DATA: '/nowhere' }).backend).toBe('embedded');
    expect(configFromEnv({ SWITCHBOARD_DATA: '/nowhere' }).twins).toEqual({ dataDir: '/nowhere' });
    expect(() => configFromEnv({ SWITCHBOARD_BACKEND: 'twillio' })).toThrow(
      'SWITCHBOARD_BACKEND must be "embedded" (the default), "twilio-twins" or "twilio", got "twillio"',
    );
  });

  it('reads every setting, and runs no twins', () => {
    const config = configFromEnv(
      env({ TWILIO_PHONE_NUMBERS: '+44 20 7946 0000, +442079460001,+442079460000' }),
    );
    expect(config.twins).toBeNull();
    expect(config.twilio).toEqual({
      accountSid: ACCOUNT_SID,
      apiKey: 'SK0123456789abcdef0123456789abcdef',
      apiSecret: 'test-api-secret-0123456789abcdef',
      authToken: '0123456789abcdef0123456789abcdef',
      syncServiceSid: SERVICE_SID,
      twimlAppSid: APP_SID,
      phoneNumbers: NUMBERS,
      publicUrl: 'https://switchboard.example.com',
      apiBaseUrl: null,
    });
  });

  it('lists every missing setting at once, saying what each looks like', () => {
    let message = '';
    try {
      configFromEnv({ SWITCHBOARD_BACKEND: 'twilio' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.split('\n')).toEqual([
      'SWITCHBOARD_BACKEND=twilio cannot start:',
      '  - TWILIO_ACCOUNT_SID is not set (AC followed by 32 hex digits)',
      '  - TWILIO_API_KEY is not set (an API key SID: SK and 32 hex digits)',
      "  - TWILIO_API_SECRET is not set (the API key's secret)",
      "  - TWILIO_AUTH_TOKEN is not set (the account's auth token: 32 hex digits (it checks the signature of Twilio's webhooks))",
      '  - TWILIO_SYNC_SERVICE_SID is not set (a Sync service SID: IS and 32 hex digits)',
      '  - TWILIO_TWIML_APP_SID is not set (a TwiML app SID: AP and 32 hex digits)',
      '  - TWILIO_PHONE_NUMBERS is not set (comma-separated, like +442079460000)',
      '  - SWITCHBOARD_PUBLIC_URL is not set (the https origin Twilio reaches this server at, like https://phone.example.com)',
      '  - GOOGLE_CLIENT_ID is not set: on Twilio people sign in with Google only (docs/operations.md, "Running on Twilio")',
    ]);
  });

  it.each([
    [
      'TWILIO_ACCOUNT_SID',
      SERVICE_SID,
      /TWILIO_ACCOUNT_SID must be AC followed by 32 hex digits, got "IS0123/,
    ],
    ['TWILIO_API_KEY', ACCOUNT_SID, /TWILIO_API_KEY must be an API key SID/],
    ['TWILIO_AUTH_TOKEN', 'not-a-token', /TWILIO_AUTH_TOKEN must be the account's auth token/],
    ['TWILIO_SYNC_SERVICE_SID', 'default', /TWILIO_SYNC_SERVICE_SID must be a Sync service SID/],
    ['TWILIO_TWIML_APP_SID', 'AP123', /TWILIO_TWIML_APP_SID must be a TwiML app SID/],
    [
      'TWILIO_PHONE_NUMBERS',
      '+442079460000,020 7946 0001',
      /TWILIO_PHONE_NUMBERS must list numbers in international form like \+442079460000, got "020 7946 0001"/,
    ],
    [
      'SWITCHBOARD_PUBLIC_URL',
      'http://phone.example.com',
      /SWITCHBOARD_PUBLIC_URL must be .* \(https, no path\)/,
    ],
    ['SWITCHBOARD_PUBLIC_URL', 'https://phone.example.com/switchboard', /\(https, no path\)/],
    [
      'SWITCHBOARD_PUBLIC_URL',
      'phone.example.com',
      /SWITCHBOARD_PUBLIC_URL must be the https origin/,
    ],
    [
      'SWITCHBOARD_TWILIO_API_URL',
      'ftp://x',
      /SWITCHBOARD_TWILIO_API_URL must be an absolute http\(s\) URL/,
    ],
  ])('refuses %s=%s', (name, value, message) => {
    expect(() => twilioConfigFromEnv(env({ [name]: value }))).toThrow(message);
  });

  it('refuses a team passcode: on Twilio people sign in with Google only', () => {
    expect(() => twilioConfigFromEnv(env({ SWITCHBOARD_PASSCODE: 'secret' }))).toThrow(
      'SWITCHBOARD_PASSCODE has no use on Twilio',
    );
  });

  it('http is allowed for a loopback public URL only (a test playing Twilio)', () => {
    expect(
      twilioConfigFromEnv(env({ SWITCHBOARD_PUBLIC_URL: 'http://127.0.0.1:8080' })).publicUrl,
    ).toBe('http://127.0.0.1:8080');
  });
});

describe('configFromEnv on Twilio', () => {
  it('answers to the public name, and offers no local sign-in even on loopback', () => {
    const config = configFromEnv(env({ PUBLIC_ORIGIN: 'https://other.example.com' }));
    expect(config.backend).toBe('twilio');
    expect(config.publicHosts).toEqual(['other.example.com', 'switchboard.example.com']);
    expect(localSignInOffered(config)).toBe(false);
  });
});

describe("the twins' made-up account (embedded, twilio-twins)", () => {
  it('is a well-formed account whose secrets are made once, kept when the twins start', () => {
    const dataDir = tempDir('sb-twins-config-');
    try {
      const read = () =>
        configFromEnv({ SWITCHBOARD_BACKEND: 'twilio-twins', SWITCHBOARD_DATA: dataDir });
      const config = read();
      expect(config.twins).toEqual({ dataDir: join(dataDir, 'twilio-twins') });
      expect(config.twilio).toMatchObject({
        accountSid: TWIN_ACCOUNT.TWILIO_ACCOUNT_SID,
        apiKey: TWIN_ACCOUNT.TWILIO_API_KEY,
        syncServiceSid: TWIN_ACCOUNT.TWILIO_SYNC_SERVICE_SID,
        twimlAppSid: TWIN_ACCOUNT.TWILIO_TWIML_APP_SID,
        phoneNumbers: ['+15005550006'],
        // The server's own address once it listens (server/app.ts).
        publicUrl: '',
        apiBaseUrl: null,
      });
      expect(config.twilio.apiSecret).toMatch(/^[0-9a-f]{64}$/);
      expect(config.twilio.authToken).toMatch(/^[0-9a-f]{32}$/);
      // Reading the configuration writes nothing; the twins keep the secrets when they start...
      expect(existsSync(join(dataDir, 'twilio-twins'))).toBe(false);
      keepAccountSecrets(config.twins!.dataDir, config.twilio, {});
      // ...and the next start reads them: tokens minted before a restart stay good.
      expect(read().twilio).toEqual(config.twilio);
    } finally {
      removeDir(dataDir);
    }
  });

  it('has no phone number on the embedded backend (its twins have no phone network)', () => {
    const config = configFromEnv({ SWITCHBOARD_DATA: '/nowhere' });
    expect(config.twilio.phoneNumbers).toEqual([]);
    expect(config.twilio.accountSid).toBe(TWIN_ACCOUNT.TWILIO_ACCOUNT_SID);
  });

  it('takes any Twilio value the environment sets, and checks it as on Twilio', () => {
    const config = twilioConfigFromEnv({
      SWITCHBOARD_BACKEND: 'twilio-twins',
      SWITCHBOARD_DATA: '/nowhere',
      TWILIO_PHONE_NUMBERS: '+442079460000',
      SWITCHBOARD_PUBLIC_URL: 'http://127.0.0.1:8080',
    });
    expect(config).toMatchObject({
      phoneNumbers: ['+442079460000'],
      publicUrl: 'http://127.0.0.1:8080',
    });
    expect(() =>
      configFromEnv({ SWITCHBOARD_BACKEND: 'twilio-twins', TWILIO_API_KEY: 'AK1' }),
    ).toThrow('SWITCHBOARD_BACKEND=twilio-twins cannot start:\n  - TWILIO_API_KEY must be');
  });

  it('needs no Google client, takes a passcode, and offers local sign-in (never on real Twilio)', () => {
    const dataDir = tempDir('sb-twins-config-');
    const twins = configFromEnv({
      SWITCHBOARD_BACKEND: 'twilio-twins',
      HOST: '0.0.0.0',
      SWITCHBOARD_DATA: dataDir,
    });
    expect(localSignInOffered(twins)).toBe(false);
    expect(localSignInOffered({ ...twins, host: '127.0.0.1' })).toBe(true);
    const guarded = configFromEnv({
      SWITCHBOARD_BACKEND: 'twilio-twins',
      HOST: '0.0.0.0',
      SWITCHBOARD_PASSCODE: 'rehearsal',
      SWITCHBOARD_DATA: dataDir,
    });
    expect(localSignInOffered(guarded)).toBe(true);
    expect(localSignInOffered(configFromEnv(env()))).toBe(false);
    removeDir(dataDir);
  });
});
